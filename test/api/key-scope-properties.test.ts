// A property of scoped keys over the hub's real socket: for any partner-level list query and any
// household, the scoped key's page is the partner's whole sorted list cut down to that household, then
// paged (decisions.md §6: lists filtered, totals counted over the household). Scoping commutes with
// every filter, sort and page; no query lets a device of another household through.
//
// A failing run prints its seed; replay it with FC_SEED=<seed> (and FC_PATH=<path> if given).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startHttpHub } from '../support/http-hub.ts';
import { keyedApi } from '../support/keyed-api.ts';

// Users whose names contain each other, so that the `userId` substring filter crosses households.
const USERS = ['alpha', 'alphabet', 'beta'] as const;
const LISTS = [
  { path: '/batteries', kind: 'battery', vendors: ['FRONIUS', 'SMA', 'TESLA'] },
  { path: '/hvacs', kind: 'hvac', vendors: ['DAIKIN', 'VIESSMANN'] },
  { path: '/vehicles', kind: 'vehicle', vendors: ['BMW', 'VOLVO', 'TESLA'] },
] as const;

/** Eight devices of each list's kind per user, with vendors, online states and times that tie often. */
function records(): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let n = 0;
  for (const list of LISTS) {
    for (const userId of USERS) {
      for (let i = 0; i < 8; i++, n++) {
        out.push({
          kind: list.kind,
          id: `0000${n.toString(16).padStart(4, '0')}-0000-4000-8000-000000000000`,
          userId,
          isOnline: n % 3 === 0,
          lastUpdated: new Date(Date.parse('2026-11-07T05:00:00Z') + (n % 5) * 60_000).toISOString().replace('.000', ''),
          ...(list.kind === 'hvac' ? { type: 'AC' } : {}),
          staticData: { vendor: list.vendors[n % list.vendors.length], model: `M${n % 4}`, ...(n % 2 ? { name: `unit ${n % 6}` } : {}) },
        });
      }
    }
  }
  return out;
}

test('a scoped key\'s list is the partner\'s list cut down to its household, for any query (over the socket)', { timeout: 120_000 }, async (t) => {
  const hub = await startHttpHub(t, records());
  const keys = Object.fromEntries(USERS.map((userId) => [userId, keyedApi(() => hub.daemon.url, hub.daemon.db.apiKeys.create(`tablet-${userId}`, Date.now(), { userId, readOnly: false }).key)]));
  const partner = hub.api;
  const page = async (api: typeof partner, path: string, query: URLSearchParams) => {
    const res = await api(`${path}?${query}`);
    assert.equal(res.status, 200, await res.clone().text());
    return res.json() as Promise<{ content: { id: string; userId: string }[]; totalElements: number; totalPages: number }>;
  };

  await fc.assert(fc.asyncProperty(
    fc.constantFrom(...USERS), fc.constantFrom(...LISTS),
    fc.record({
      sortField: fc.constantFrom('USER_ID', 'VENDOR', 'IS_ONLINE', 'LAST_UPDATED'),
      sortOrder: fc.constantFrom('ASC', 'DESC'),
      size: fc.integer({ min: 1, max: 9 }),
      page: fc.integer({ min: 0, max: 4 }),
    }),
    fc.record({ userId: fc.constantFrom('alpha', 'bet', 'a', 'beta'), isOnline: fc.constantFrom('true', 'false'), model: fc.constantFrom('m1', 'M3'), name: fc.constantFrom('unit', '4') }, { requiredKeys: [] }),
    async (scope, list, paging, filters) => {
      const query = new URLSearchParams({ ...filters, sortField: paging.sortField, sortOrder: paging.sortOrder });
      // The partner's whole list in the same order, cut down to the household: what the scoped key must page through.
      const whole = await page(partner, list.path, new URLSearchParams([...query, ['size', '100']]));
      const theirs = whole.content.filter((d) => d.userId === scope).map((d) => d.id);
      const scoped = await page(keys[scope]!, list.path, new URLSearchParams([...query, ['size', String(paging.size)], ['page', String(paging.page)]]));
      assert.deepEqual(scoped.content.map((d) => d.id), theirs.slice(paging.page * paging.size, (paging.page + 1) * paging.size));
      assert.ok(scoped.content.every((d) => d.userId === scope));
      assert.deepEqual([scoped.totalElements, scoped.totalPages], [theirs.length, Math.ceil(theirs.length / paging.size)]);
    },
  ), { numRuns: 80, interruptAfterTimeLimit: 60_000 });
});
