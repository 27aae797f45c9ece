// A signal that aborts when a long-lived one does (the runtime stopping), after a time, or with a
// caller's; `done` lets go of it. Made by hand rather than with AbortSignal.any, which on Node 20
// keeps every signal made from a long-lived one alive (a poll every few seconds for months).

export interface BoundedSignal {
  signal: AbortSignal;
  done: () => void;
}

export function boundedSignal(lasting: AbortSignal, ms: number | undefined, outer?: AbortSignal): BoundedSignal {
  const controller = new AbortController();
  const onLasting = () => controller.abort(lasting.reason);
  const onOuter = () => controller.abort(outer!.reason);
  const timer = ms === undefined ? undefined : setTimeout(() => controller.abort(new Error(`no answer within ${ms} ms`)), ms);
  if (lasting.aborted) onLasting();
  else lasting.addEventListener('abort', onLasting, { once: true });
  if (outer?.aborted) onOuter();
  else outer?.addEventListener('abort', onOuter, { once: true });
  return {
    signal: controller.signal,
    done: () => {
      clearTimeout(timer);
      lasting.removeEventListener('abort', onLasting);
      outer?.removeEventListener('abort', onOuter);
    },
  };
}
