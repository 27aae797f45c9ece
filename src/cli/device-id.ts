// Device ids as the `hub` commands take them: whole, in any case (UUIDs are case-insensitive, RFC
// 9562), or by a prefix that names exactly one device, as `git` takes commit hashes.
import type { DeviceKind } from '../domain/vocabulary.ts';
import type { Store } from '../store/store.ts';

const CANDIDATES_SHOWN = 10;

export type DeviceIdLookup = { id: string } | { problem: string };

/**
 * The one stored device `given` names (of one of `kinds`, when given; `what` names them in the
 * messages); else why not, in words.
 */
export function resolveDeviceId(store: Store, given: string, kinds?: readonly DeviceKind[], what = 'device'): DeviceIdLookup {
  const wanted = given.trim().toLowerCase();
  if (wanted === '') return { problem: `No ${what} id given.` };
  const all = store.devices.identities().filter((d) => kinds === undefined || kinds.includes(d.kind));
  const exact = all.find((d) => d.id === wanted);
  if (exact) return { id: exact.id };
  const matches = all.filter((d) => d.id.startsWith(wanted)).sort((a, b) => a.id.localeCompare(b.id));
  if (matches.length === 1) return { id: matches[0]!.id };
  if (matches.length === 0) return { problem: `No ${what} with the id or id prefix "${wanted}" (hub devices list shows them).` };
  const shown = matches.slice(0, CANDIDATES_SHOWN).map((d) => `  ${d.id}  ${d.kind} of ${d.userId}`);
  if (matches.length > CANDIDATES_SHOWN) shown.push(`  … and ${matches.length - CANDIDATES_SHOWN} more`);
  return { problem: `"${wanted}" is the start of ${matches.length} ${what} ids; give more of it:\n${shown.join('\n')}` };
}
