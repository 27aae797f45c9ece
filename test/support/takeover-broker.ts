// A broker that says "Session taken over": the MQTT 5 DISCONNECT with reason code 0x8E that a broker
// sends to a client whose client id another client has just connected with (MQTT 5 §3.14.2.1).
// mosquitto 2.0 closes the old connection without a word, so the tests that need the broker's word
// use this: a TLS listener on a free loopback port that speaks just enough MQTT 5 for the hub's
// stream (CONNECT, SUBSCRIBE, PINGREQ, DISCONNECT) and sends the takeover when told to.
import { once } from 'node:events';
import { createServer, type TLSSocket } from 'node:tls';
import { readFileSync } from 'node:fs';
import type { TestCertificates } from './tls.ts';

export interface TakeoverBroker {
  port: number;
  /** CONNECTs accepted so far. */
  readonly connects: number;
  /** Sends DISCONNECT 0x8E to every connected client and closes its connection. */
  takeOver(): void;
  stop(): Promise<void>;
}

const CONNECT = 1;
const SUBSCRIBE = 8;
const PINGREQ = 12;
const DISCONNECT = 14;

export async function startTakeoverBroker(certs: TestCertificates): Promise<TakeoverBroker> {
  const sockets = new Set<TLSSocket>();
  let connects = 0;
  const server = createServer({ cert: readFileSync(certs.serverCertFile), key: readFileSync(certs.serverKeyFile) }, (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        const packet = nextPacket(buffered);
        if (!packet) return;
        buffered = buffered.subarray(packet.length);
        const type = packet.first >> 4;
        if (type === CONNECT) {
          connects++;
          socket.write(Buffer.from([0x20, 0x03, 0x00, 0x00, 0x00])); // CONNACK: success, no properties
        } else if (type === SUBSCRIBE) {
          socket.write(subAck(packet.body));
        } else if (type === PINGREQ) {
          socket.write(Buffer.from([0xd0, 0x00]));
        } else if (type === DISCONNECT) {
          socket.end();
        }
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as { port: number }).port,
    get connects() {
      return connects;
    },
    takeOver() {
      for (const socket of sockets) socket.end(Buffer.from([0xe0, 0x01, 0x8e])); // DISCONNECT, Session taken over
    },
    async stop() {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

/** The first whole packet in `data`: its first byte, its body and its whole length; undefined until it is all there. */
function nextPacket(data: Buffer): { first: number; body: Buffer; length: number } | undefined {
  let length = 0;
  let multiplier = 1;
  let at = 1;
  for (;; at++) {
    if (at >= data.length) return undefined;
    length += (data[at]! & 0x7f) * multiplier;
    multiplier *= 128;
    if ((data[at]! & 0x80) === 0) break;
  }
  const start = at + 1;
  if (data.length < start + length) return undefined;
  return { first: data[0]!, body: data.subarray(start, start + length), length: start + length };
}

/** SUBACK granting QoS 1 to each topic of a SUBSCRIBE's body (packet id, properties, then the topics). */
function subAck(body: Buffer): Buffer {
  const packetId = body.subarray(0, 2);
  let at = 2;
  let propertiesLength = 0;
  for (let multiplier = 1; ; multiplier *= 128) {
    const byte = body[at++]!;
    propertiesLength += (byte & 0x7f) * multiplier;
    if ((byte & 0x80) === 0) break;
  }
  at += propertiesLength;
  const granted: number[] = [];
  while (at < body.length) {
    at += 2 + body.readUInt16BE(at) + 1;
    granted.push(0x01);
  }
  const rest = Buffer.from([...packetId, 0x00, ...granted]);
  return Buffer.concat([Buffer.from([0x90, rest.length]), rest]);
}
