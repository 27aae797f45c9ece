// A raw WebSocket upgrade to a hub's OCPP endpoint, from a chosen loopback address, answered with
// its HTTP status and Retry-After: what a flood of handshakes is made of (tests and bench/).
import { request } from 'node:http';
import { randomBytes } from 'node:crypto';

/** One raw WebSocket upgrade to the OCPP endpoint, from `localAddress`: its status and Retry-After. */
export function handshake(url: string, identity: string, password: string, localAddress: string): Promise<{ status: number; retryAfter: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/ocpp/${identity}`, {
      localAddress,
      headers: {
        Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': randomBytes(16).toString('base64'),
        'Sec-WebSocket-Protocol': 'ocpp1.6', Authorization: `Basic ${Buffer.from(`${identity}:${password}`).toString('base64')}`,
      },
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 101, retryAfter: undefined });
    });
    req.on('response', (res) => {
      res.resume();
      resolve({ status: res.statusCode!, retryAfter: res.headers['retry-after'] });
    });
    req.on('error', reject);
    req.end();
  });
}
