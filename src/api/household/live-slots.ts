// The places for /home/live streams, shared fairly between keys (issue 34). Each stream is a listener
// on the hub's events and a budget of memory, and a gateway serves a household, not a crowd: at most
// MAX_LIVE_STREAMS at once. While places are free anyone may take one. When all are taken, a key that
// holds fewer than its fair share, ceil(max / keys that want streams), takes the oldest stream of the
// key holding the most, if that key is over its share; any other ask is refused (429). So one key can
// fill an idle hub but never keep another key out, and pages that retry (the page does, every 3 s)
// settle at the shares instead of taking places back and forth.
import type { Logger } from 'pino';
import { performance } from 'node:perf_hooks';
import { LiveStream, type LiveStreamLimits } from './live-stream.ts';

/** Open live streams at most. */
export const MAX_LIVE_STREAMS = 20;

export interface LiveSlotSettings extends LiveStreamLimits {
  maxStreams: number;
}

export const DEFAULT_LIVE_SLOT_SETTINGS: LiveSlotSettings = {
  maxStreams: MAX_LIVE_STREAMS,
  // Long enough for a phone on a weak network; a page that does not read for this long is gone.
  writeTimeoutMs: 30_000,
  // A household's devices' latest messages (~1 KB each) fit many times over.
  maxBacklogBytes: 256 * 1024,
};

interface Slot {
  owner: string;
  stream: LiveStream;
}

export class LiveSlots {
  readonly settings: LiveSlotSettings;
  /** Oldest first. */
  private readonly slots: Slot[] = [];

  constructor(settings: Partial<LiveSlotSettings> = {}, private readonly log?: Logger) {
    this.settings = { ...DEFAULT_LIVE_SLOT_SETTINGS, ...settings };
  }

  /** The open streams, oldest first: tests and the bench look at their backlog. */
  streams(): LiveStream[] {
    return this.slots.map((slot) => slot.stream);
  }

  /**
   * A new stream for `owner` (the key that asks, as routes.ts names it), or undefined when the rule
   * above refuses it. `closeSocket` ends the client's connection (see LiveStream).
   */
  open(owner: string, closeSocket?: () => void): LiveStream | undefined {
    if (this.slots.length >= this.settings.maxStreams && !this.makeRoomFor(owner)) return undefined;
    const stream = new LiveStream(this.settings, closeSocket);
    const slot = { owner, stream };
    this.slots.push(slot);
    stream.whenEnded((reason) => {
      this.slots.splice(this.slots.indexOf(slot), 1);
      if (reason !== 'client') {
        this.log?.info({ reason, openMs: Math.round(performance.now() - stream.openedAt) }, 'live stream closed by the hub');
      }
    });
    return stream;
  }

  /** Closes the oldest stream of the key most over its share, if `owner` is under its own. */
  private makeRoomFor(owner: string): boolean {
    const held = new Map<string, number>();
    for (const slot of this.slots) held.set(slot.owner, (held.get(slot.owner) ?? 0) + 1);
    const keys = held.has(owner) ? held.size : held.size + 1;
    const share = Math.ceil(this.settings.maxStreams / keys);
    if ((held.get(owner) ?? 0) >= share) return false;
    let most: string | undefined;
    for (const [key, count] of held) if (most === undefined || count > held.get(most)!) most = key;
    if (most === undefined || held.get(most)! <= share) return false;
    this.slots.find((slot) => slot.owner === most)!.stream.close('displaced');
    return true;
  }
}
