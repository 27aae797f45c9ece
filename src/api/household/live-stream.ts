// One /home/live stream as a budget (issue 34): what waits for the client is the latest message per
// device, command and kind, never a queue of every event. A page needs the household's state now, not
// its history, so a device that reports every second while the client does not read still costs one
// message. The hub writes only when the client's socket takes it: the Node adapter reads the body
// (pull below) only after a write the socket took, or after its 'drain'. A client that leaves data
// waiting longer than the write timeout, or lets it grow past the byte bound, is closed.
import { performance } from 'node:perf_hooks';

export interface LiveStreamLimits {
  /** A client with messages waiting that takes none for this long is closed (ms, timers: monotonic). */
  writeTimeoutMs: number;
  /** The most bytes of messages waiting for one client; past it the client is closed. */
  maxBacklogBytes: number;
}

/** Why a stream ended: its client went away, stopped reading, fell too far behind, gave way to another key's stream, or the hub stopped. */
export type LiveStreamEnd = 'client' | 'stalled' | 'backlog' | 'displaced';

/** The most bytes handed to the socket in one write: a whole backlog at once would be one large buffer more. */
const MAX_CHUNK_BYTES = 64 * 1024;

const encoder = new TextEncoder();

export class LiveStream {
  /** The response body the adapter reads from. */
  readonly body: ReadableStream<Uint8Array>;
  /** When it opened, on the monotonic clock. */
  readonly openedAt = performance.now();
  /** Why it ended; undefined while open. */
  ended: LiveStreamEnd | undefined;
  /** Messages waiting for the client, by what they are about (`device:<id>`, `command:<id>`, `flows`); oldest change first. */
  private readonly backlog = new Map<string, Uint8Array>();
  private bytes = 0;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  /** The adapter asked for more: the socket took the last write. */
  private wanted = false;
  private stallTimer: NodeJS.Timeout | undefined;
  private readonly onEnd: ((reason: LiveStreamEnd) => void)[] = [];

  /**
   * `closeSocket` ends the connection at once (the Node response's destroy): a stream that stopped
   * reading has the adapter waiting for a 'drain' that never comes, so ending the body is not enough.
   */
  constructor(private readonly limits: LiveStreamLimits, private readonly closeSocket: () => void = () => {}) {
    this.body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.controller = controller;
      },
      pull: () => this.pull(),
      cancel: () => this.end('client'),
    }, { highWaterMark: 0 }); // nothing is queued in the stream itself: the backlog is the only buffer
  }

  /** Messages waiting for the client (introspection for tests, the bench and the log). */
  get backlogMessages(): number {
    return this.backlog.size;
  }

  /** Bytes of the messages waiting for the client. */
  get backlogBytes(): number {
    return this.bytes;
  }

  /** Calls `listener` once when the stream ends, for whatever reason. */
  whenEnded(listener: (reason: LiveStreamEnd) => void): void {
    if (this.ended) listener(this.ended);
    else this.onEnd.push(listener);
  }

  /** Sends an SSE message, replacing one about the same thing that the client has not taken yet. */
  send(about: string, event: string, data: unknown): void {
    this.put(about, `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  /** A comment line that keeps proxies and phones from closing an idle stream. */
  keepalive(): void {
    this.put('keepalive', ': keepalive\n\n');
  }

  /** Ends the stream and frees everything it holds. */
  close(reason: LiveStreamEnd): void {
    if (this.ended) return;
    const wanted = this.wanted;
    this.end(reason);
    try {
      this.controller.close(); // with a read pending, the response ends cleanly
    } catch { /* already closed */ }
    // Otherwise the adapter waits for a 'drain' of a full socket: only closing the socket frees it.
    if (!wanted) this.closeSocket();
  }

  private put(about: string, text: string): void {
    if (this.ended) return;
    const bytes = encoder.encode(text);
    const previous = this.backlog.get(about);
    if (previous) {
      this.bytes -= previous.byteLength;
      this.backlog.delete(about); // re-added below: the backlog keeps the order of the latest changes
    }
    this.backlog.set(about, bytes);
    this.bytes += bytes.byteLength;
    if (this.wanted) return this.flush();
    if (this.bytes > this.limits.maxBacklogBytes) return this.close('backlog');
    this.stallTimer ??= setTimeout(() => this.close('stalled'), this.limits.writeTimeoutMs);
  }

  private pull(): void {
    if (this.ended) return;
    clearTimeout(this.stallTimer);
    this.stallTimer = undefined;
    this.wanted = true;
    if (this.backlog.size > 0) this.flush();
  }

  /** Hands the oldest waiting messages (up to MAX_CHUNK_BYTES) to the pending read. */
  private flush(): void {
    const parts: Uint8Array[] = [];
    let size = 0;
    for (const [about, bytes] of this.backlog) {
      if (size > 0 && size + bytes.byteLength > MAX_CHUNK_BYTES) break;
      parts.push(bytes);
      size += bytes.byteLength;
      this.backlog.delete(about);
    }
    this.bytes -= size;
    this.wanted = false;
    const chunk = parts.length === 1 ? parts[0]! : Buffer.concat(parts, size);
    try {
      this.controller.enqueue(chunk);
    } catch {
      return this.end('client'); // the body was cancelled under us
    }
    // What is left waits for the next read, which comes when the socket took this one.
    if (this.backlog.size > 0) this.stallTimer ??= setTimeout(() => this.close('stalled'), this.limits.writeTimeoutMs);
  }

  private end(reason: LiveStreamEnd): void {
    if (this.ended) return;
    this.ended = reason;
    this.wanted = false;
    clearTimeout(this.stallTimer);
    this.stallTimer = undefined;
    this.backlog.clear();
    this.bytes = 0;
    for (const listener of this.onEnd.splice(0)) listener(reason);
  }
}
