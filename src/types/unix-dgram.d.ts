// The part of unix-dgram (a native Unix datagram socket) that the hub uses.
declare module 'unix-dgram' {
  import type { EventEmitter } from 'node:events';
  export interface UnixDgramSocket extends EventEmitter {
    bind(path: string): void;
    send(buf: Buffer, offset: number, length: number, path: string, callback?: (err?: Error) => void): void;
    close(): void;
  }
  export function createSocket(type: 'unix_dgram', listener?: (msg: Buffer, rinfo: unknown) => void): UnixDgramSocket;
  const _default: { createSocket: typeof createSocket };
  export default _default;
}
