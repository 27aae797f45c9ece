// What happens in the hub, told once, in process: devices that appear, change, go offline or are
// deleted, and commands that change state. The API's metrics, the command worker and the MQTT event
// publisher listen here; the sources (state writers, the API, the worker, pairing) only emit.
import { EventEmitter } from 'node:events';
import type { DeviceRecord } from '../../domain/device.ts';
import type { CommandRecord } from '../../store/commands.ts';

/** The event types partners know from the cloud service's stream. */
export const EVENT_TYPES = ['connect', 'update', 'delete', 'offline', 'command'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface DeviceEvent {
  type: Exclude<EventType, 'command'>;
  device: DeviceRecord;
  atMs: number;
}

export interface CommandEvent {
  type: 'command';
  command: CommandRecord;
  atMs: number;
}

/** A tariff's source published a new price: its prices of the last 48 hours and ahead (the origin's price.update). */
export interface PriceEvent {
  type: 'price.update';
  device: DeviceRecord;
  prices: { startDate: string; totalPrice: number }[];
  atMs: number;
}

export type HubEvent = DeviceEvent | CommandEvent | PriceEvent;

export class HubEvents {
  private readonly emitter = new EventEmitter();

  constructor() {
    // Every listener is a part of the hub (worker, publisher, tests); none is per request.
    this.emitter.setMaxListeners(100);
  }

  emit(event: HubEvent): void {
    this.emitter.emit('event', event);
  }

  on(listener: (event: HubEvent) => void): () => void {
    this.emitter.on('event', listener);
    return () => this.emitter.off('event', listener);
  }

  /** Resolves with the first event that matches, or rejects after `timeoutMs` (tests and waits). */
  next(match: (event: HubEvent) => boolean, timeoutMs: number, signal?: AbortSignal): Promise<HubEvent> {
    return new Promise((resolve, reject) => {
      const done = (fn: () => void) => {
        clearTimeout(timer);
        off();
        signal?.removeEventListener('abort', onAbort);
        fn();
      };
      const off = this.on((event) => {
        if (match(event)) done(() => resolve(event));
      });
      const timer = setTimeout(() => done(() => reject(new Error(`no matching event within ${timeoutMs} ms`))), timeoutMs);
      const onAbort = () => done(() => reject(signal?.reason ?? new Error('aborted')));
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
