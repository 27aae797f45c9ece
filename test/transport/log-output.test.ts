// The log output with a fake descriptor: order kept, a slow reader bounded, a gone reader final.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { write as fsWrite } from 'node:fs';
import { fdOutput } from '../../src/transport/log-output.ts';

type Callback = (err: NodeJS.ErrnoException | null, written: number) => void;

/** A descriptor whose writes complete only when the test says so. */
function fakeFd() {
  const pending: Array<{ data: string; done: Callback }> = [];
  const written: string[] = [];
  const writeFn = ((_fd: number, buffer: Buffer, _offset: number, length: number, _position: null, done: Callback) => {
    pending.push({ data: buffer.subarray(0, length).toString(), done });
  }) as unknown as typeof fsWrite;
  const complete = (err?: string) => {
    const next = pending.shift()!;
    if (err) next.done(Object.assign(new Error(err), { code: err }), 0);
    else {
      written.push(next.data);
      next.done(null, Buffer.byteLength(next.data));
    }
  };
  return { pending, written, writeFn, complete };
}

test('one write at a time, the lines in order, what queued meanwhile written together', () => {
  const fd = fakeFd();
  const out = fdOutput({ writeFn: fd.writeFn });
  out.write('a\n');
  out.write('b\n');
  out.write('c\n');
  assert.equal(fd.pending.length, 1);
  fd.complete();
  fd.complete();
  assert.deepEqual(fd.written, ['a\n', 'b\nc\n']);
});

test('a reader that falls behind: the oldest lines past the bound are dropped and counted', () => {
  const fd = fakeFd();
  const out = fdOutput({ writeFn: fd.writeFn, maxQueuedBytes: 10 });
  out.write('first\n'); // in flight
  for (const line of ['1234\n', '5678\n', 'abcd\n']) out.write(line);
  assert.equal(out.droppedLines, 1);
  fd.complete();
  fd.complete();
  assert.deepEqual(fd.written, ['first\n', '5678\nabcd\n']);
});

test('EPIPE: the reader is gone, nothing more is written, and a flush returns at once', async () => {
  const fd = fakeFd();
  const out = fdOutput({ writeFn: fd.writeFn });
  out.write('a\n');
  out.write('b\n');
  fd.complete('EPIPE');
  out.write('c\n');
  assert.equal(fd.pending.length, 0);
  assert.equal(out.droppedLines, 3);
  await out.flush(60_000);
});

test('a flush waits for the queue, and no longer than it is told when the reader hangs', async () => {
  const fd = fakeFd();
  const out = fdOutput({ writeFn: fd.writeFn });
  out.write('a\n');
  const flushed = out.flush(60_000);
  fd.complete();
  await flushed;
  out.write('never taken\n');
  const started = Date.now();
  await out.flush(20);
  assert.ok(Date.now() - started < 5_000);
});
