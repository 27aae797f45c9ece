// Where the hub's log lines and its start banner go: standard output, written so that a broken or
// stalled reader can never stop the hub from serving or from stopping.
//
// Node writes to a pipe synchronously on Linux, and pino's default destination does too: when the
// reader is gone (`hub | head -1`) the write fails with EPIPE, and when the reader is alive but not
// reading (a stalled journal stream, `hub | sleep 1000`) the write blocks the whole process in the
// kernel, signal handlers included, until someone reads. Here every write is asynchronous (one at a
// time, on libuv's thread pool), what waits is held in memory up to a bound and the oldest is
// dropped past it, a reader that has gone ends writing for good, and a stop waits for the lines
// still queued only as long as it is told to.
import { write as fsWrite } from 'node:fs';

/** What a log destination needs; pino takes any object with write(). */
export interface LogOutput {
  write(text: string): void;
  /** Resolves once everything queued is written, the output has closed, or `timeoutMs` has passed. */
  flush(timeoutMs: number): Promise<void>;
  /** Lines dropped because the reader fell behind by more than the bound, or went away. */
  readonly droppedLines: number;
}

export interface FdOutputOptions {
  fd?: number;
  /** The most bytes held while the reader is slow; older lines are dropped past it. */
  maxQueuedBytes?: number;
  /** Replaces fs.write, for tests. */
  writeFn?: typeof fsWrite;
}

const RETRY_MS = 100;

export function fdOutput(options: FdOutputOptions = {}): LogOutput {
  const fd = options.fd ?? 1;
  const maxQueuedBytes = options.maxQueuedBytes ?? 1024 * 1024;
  const writeFn = options.writeFn ?? fsWrite;
  const queue: Buffer[] = [];
  let queuedBytes = 0;
  let writing = false;
  let closed = false;
  let dropped = 0;
  let idle: Array<() => void> = [];

  const settle = () => {
    if (writing || (queue.length > 0 && !closed)) return;
    const waiting = idle;
    idle = [];
    for (const resolve of waiting) resolve();
  };

  const next = () => {
    if (writing || closed || queue.length === 0) return settle();
    writing = true;
    const chunk = Buffer.concat(queue.splice(0, queue.length));
    queuedBytes = 0;
    writeFn(fd, chunk, 0, chunk.length, null, (err, written) => {
      writing = false;
      if (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN' || code === 'EINTR') {
          // A non-blocking descriptor whose reader is slow: try again shortly, keeping the order.
          queue.unshift(chunk);
          queuedBytes += chunk.length;
          setTimeout(next, RETRY_MS).unref();
          return;
        }
        // EPIPE, EBADF, EIO…: the reader is gone, and nobody is left to tell.
        closed = true;
        dropped += queue.length + 1;
        queue.length = 0;
        queuedBytes = 0;
        return settle();
      }
      if (written < chunk.length) {
        queue.unshift(chunk.subarray(written));
        queuedBytes += chunk.length - written;
      }
      next();
    });
  };

  return {
    write(text: string) {
      if (closed) {
        dropped++;
        return;
      }
      const chunk = Buffer.from(text);
      queue.push(chunk);
      queuedBytes += chunk.length;
      while (queuedBytes > maxQueuedBytes && queue.length > 1) {
        queuedBytes -= queue.shift()!.length;
        dropped++;
      }
      next();
    },
    flush(timeoutMs: number) {
      return new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        idle.push(() => {
          clearTimeout(timer);
          resolve();
        });
        settle();
      });
    },
    get droppedLines() {
      return dropped;
    },
  };
}
