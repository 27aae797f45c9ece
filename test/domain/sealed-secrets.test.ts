// A sealed export is opened only with the scrypt parameters the hub itself writes: a crafted file
// must be refused before anything is derived (N=2^20, r=16 cost an import 2.2 GB and 13 s).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openSecrets, sealSecrets, SealedFormatError } from '../../src/domain/sealed-secrets.ts';

const PASSPHRASE = 'correct horse battery staple';
const SECRETS = { 'device-1': { binding: { type: 'enphase-envoy', host: '192.168.1.30' }, secrets: { token: 'envoy-token' } } } as never;

test('an export sealed by the hub opens with its passphrase', async () => {
  const sealed = await sealSecrets(SECRETS, PASSPHRASE);
  assert.deepEqual({ N: sealed.N, r: sealed.r, p: sealed.p }, { N: 2 ** 15, r: 8, p: 3 });
  assert.deepEqual(await openSecrets(sealed, PASSPHRASE), SECRETS);
});

for (const crafted of [{ N: 2 ** 20, r: 16 }, { N: 2 ** 16 }, { N: 2 ** 14 }, { r: 9 }, { p: 4 }, { p: 1 }, { N: '32768' }, { N: 2 ** 15 + 0.5 }]) {
  test(`scrypt parameters other than the hub's are refused before deriving: ${JSON.stringify(crafted)}`, async () => {
    const sealed = { ...(await sealSecrets(SECRETS, PASSPHRASE)), ...crafted };
    await assert.rejects(openSecrets(sealed, PASSPHRASE), (err: Error) => {
      assert.ok(err instanceof SealedFormatError, `refused as a format error, not after a derivation: ${err.name}`);
      assert.match(err.message, /scrypt parameters the hub never writes .*a hub writes N=32768, r=8, p=3/);
      return true;
    });
  });
}
