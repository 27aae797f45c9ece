// OCPP handshakes under a flood (`npx tsx bench/ocpp-handshakes.ts`): a real charger's handshake
// (one scrypt: it has not connected since the hub started) alone, then while 150 bad handshakes
// (well-formed wrong passwords, from another loopback address) arrive at once; reported as the
// ratio of the two and the difference, measured in the same run. Target: under 1 s more.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Daemon } from '../src/daemon.ts';
import { ConfigSchema } from '../src/config.ts';
import { silentLogger } from '../src/log.ts';
import { prepareImport } from '../src/domain/import.ts';
import { handshake } from '../test/support/ocpp-handshake.ts';

const PASSWORD = 'bench-password-0123456789';
const BAD = Number(process.env['BENCH_BAD_HANDSHAKES'] ?? 150);
const ROUNDS = 5;

const charger = (n: number) => ({
  kind: 'charger', id: `6f1c2a4e-0000-4000-8000-0000000dd${String(n).padStart(3, '0')}`, userId: 'bench',
  staticData: { vendor: 'ZAPTEC', model: 'Go' }, driver: { type: 'ocpp', chargePointId: `BENCH-${n}`, password: PASSWORD },
});

async function timed(url: string, identity: string): Promise<number> {
  const start = performance.now();
  const { status } = await handshake(url, identity, PASSWORD, '127.0.0.1');
  if (status !== 101) throw new Error(`the good handshake got ${status}`);
  return performance.now() - start;
}

export async function benchOcppHandshakes(): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), 'hub-bench-handshakes-'));
  const daemon = new Daemon({
    config: ConfigSchema.parse({ dataDir: dir, http: { port: 0 }, apiKey: 'bench-handshakes-key-0123456789' }),
    log: silentLogger(),
    beforeListen: (store) => {
      const prepared = prepareImport(Array.from({ length: 2 * ROUNDS + 1 }, (_, i) => charger(i)), Date.now(), () => undefined);
      store.importDevices(prepared.devices, prepared.images, Date.now(), prepared.ocppCredentials);
    },
  });
  await daemon.start();
  try {
    await timed(daemon.url, 'BENCH-0'); // loads ocpp-rpc and its schemas, outside the measurement
    const alone: number[] = [];
    const flooded: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      alone.push(await timed(daemon.url, `BENCH-${1 + 2 * round}`));
      // Each flood from its own address, so that none is locked out from an earlier round.
      const flood = Array.from({ length: BAD }, (_, i) => handshake(daemon.url, 'BENCH-0', `wrong-password-${String(i).padStart(6, '0')}`, `127.0.1.${round + 1}`));
      flooded.push(await timed(daemon.url, `BENCH-${2 + 2 * round}`));
      await Promise.all(flood);
    }
    const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
    const [a, f] = [median(alone), median(flooded)];
    return { aloneMs: Math.round(a * 10) / 10, floodedMs: Math.round(f * 10) / 10, ratio: Math.round((f / a) * 10) / 10, extraMs: Math.round(f - a), badHandshakes: BAD, hashes: daemon.ocpp!.authStats.hashes, busy503: daemon.ocpp!.authStats.busy };
  } finally {
    await daemon.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  benchOcppHandshakes().then((r) => console.log(JSON.stringify(r)), (err: Error) => {
    console.error(err);
    process.exit(1);
  });
}
