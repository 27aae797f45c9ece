// The fill/free cycle under load, from outside a hub process (the integration test and
// bench/storage-faults.ts): commands submitted every few tens of ms, the data file system filled
// with dd mid-run, then freed; what was acknowledged, refused and answered otherwise, what /health
// and /metrics said meanwhile, and how long after the space was freed the hub took writes again.
import { rmSync } from 'node:fs';
import { fill } from './mounts.ts';

export interface CycleOptions {
  url: string;
  key: string;
  /** The command to submit, e.g. /v1.0.0/vehicles/{id}/commands/charging-stop. */
  commandPath: string;
  /** The mount point to fill. */
  mount: string;
  intervalMs?: number;
  /** Submissions before the card is filled. */
  before?: number;
  /** How long the card stays full, in ms. */
  fullMs?: number;
  /** Submissions after the hub took writes again. */
  after?: number;
}

export interface CycleResult {
  acknowledged: string[];
  refused: number;
  /** Status codes other than 200 and 503 STORAGE_UNAVAILABLE, with their error codes. */
  unexpected: string[];
  /** A 503's Retry-After and message. */
  refusal?: { retryAfter: string | null; message: string };
  healthWhileFull?: { status: number; body: unknown };
  metricsWhileFull?: string;
  /** From the moment the space was freed to the first command acknowledged again. */
  recoveredMs: number;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function fillFreeCycle(options: CycleOptions): Promise<CycleResult> {
  const { url, key, commandPath, mount } = options;
  const intervalMs = options.intervalMs ?? 40;
  const result: CycleResult = { acknowledged: [], refused: 0, unexpected: [], recoveredMs: -1 };
  const submit = async (): Promise<number> => {
    const res = await fetch(`${url}${commandPath}`, { method: 'POST', headers: { 'x-api-key': key } });
    const body = (await res.json()) as { id?: string; errorCode?: string; message?: string };
    if (res.status === 200 && body.id) result.acknowledged.push(body.id);
    else if (res.status === 503 && body.errorCode === 'STORAGE_UNAVAILABLE') {
      result.refused++;
      result.refusal ??= { retryAfter: res.headers.get('retry-after'), message: body.message ?? '' };
    } else result.unexpected.push(`${res.status} ${body.errorCode ?? ''}`);
    return res.status;
  };
  // The load is paced, not a wait on an outcome: commands arrive every intervalMs, as from an app.
  for (let i = 0; i < (options.before ?? 25); i++) {
    await submit();
    await pause(intervalMs);
  }
  const filler = fill(mount);
  const fullUntil = Date.now() + (options.fullMs ?? 2_000);
  while (Date.now() < fullUntil) {
    await submit();
    if (!result.healthWhileFull && result.refused > 0) {
      const health = await fetch(`${url}/health`);
      result.healthWhileFull = { status: health.status, body: await health.json() };
      result.metricsWhileFull = await (await fetch(`${url}/metrics`, { headers: { 'x-api-key': key } })).text();
    }
    await pause(intervalMs);
  }
  const freedAt = Date.now();
  rmSync(filler);
  while (result.recoveredMs < 0 && Date.now() - freedAt < 30_000) {
    if ((await submit()) === 200) result.recoveredMs = Date.now() - freedAt;
    else await pause(intervalMs);
  }
  for (let i = 0; i < (options.after ?? 25); i++) {
    await pause(intervalMs);
    await submit();
  }
  return result;
}

/** The hub's command counts by state, from /metrics. */
export async function commandCounts(url: string, key: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${url}/metrics`, { headers: { 'x-api-key': key } })).text();
  const counts: Record<string, number> = {};
  for (const match of text.matchAll(/^hub_commands\{state="(\w+)"\} (\d+)$/gm)) counts[match[1]!] = Number(match[2]);
  return counts;
}

/** The ids of a vehicle's commands the hub holds now (the demo's past has some before a test's own). */
export async function vehicleCommandIds(url: string, key: string, userId: string, vehicleId: string): Promise<Set<string>> {
  const res = await fetch(`${url}/v1.0.0/users/${userId}/vehicles/${vehicleId}/commands?state=ALL`, { headers: { 'x-api-key': key } });
  return new Set(((await res.json()) as { id: string }[]).map((c) => c.id));
}
