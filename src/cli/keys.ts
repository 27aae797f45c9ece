// hub keys: create, list and revoke API keys. A key is the partner's (every household) or scoped to one
// userId with --user, and then optionally read-only (decisions.md §6). Names are unique among active keys.
import type { Store } from '../store/store.ts';
import { AmbiguousKeyName, KeyNameTaken, type ApiKeyInfo } from '../store/api-keys.ts';
import { formatTimestamp } from '../domain/time.ts';
import { parseArgs } from './modbus-args.ts';
import type { CliIo } from './io.ts';

const USAGE = `usage: npm run hub -- keys create NAME [--user USER [--read-only]] | keys list | keys revoke ID|NAME
  --user USER    the key reaches only the household of USER (its devices, its connect sessions, its /home)
  --read-only    with --user: the key reads and refreshes, but sends no command, deletes nothing, opens no connect session`;

export function runKeys(store: Store, args: string[], io: CliIo): number {
  const [action, ...rest] = args;
  const now = Date.now();
  switch (action) {
    case 'create':
      return create(store, rest, io, now);
    case 'list':
      return list(store, rest, io);
    case 'revoke':
      return revoke(store, rest, io, now);
    default:
      return usage(io);
  }
}

function create(store: Store, args: string[], io: CliIo, now: number): number {
  // --read-only takes no value: it is taken out before the options that do.
  const readOnly = args.includes('--read-only');
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs(args.filter((a) => a !== '--read-only'), ['user']);
  } catch (err) {
    io.err((err as Error).message);
    return usage(io);
  }
  const [name, ...extra] = parsed.words;
  const userId = parsed.flags['user'];
  if (!name || extra.length > 0) return usage(io);
  if (userId !== undefined && (userId.trim() === '' || userId.length > 200)) {
    io.err('--user must be a userId of 1 to 200 characters.');
    return 2;
  }
  if (readOnly && userId === undefined) {
    io.err('--read-only needs --user: a read-only key is scoped to one household.');
    return 2;
  }
  try {
    const { id, key } = store.apiKeys.create(name, now, { userId: userId ?? null, readOnly });
    io.out(`Created key "${name}" (${id}), ${describeScope({ userId: userId ?? null, readOnly })}. Store it now; it cannot be shown again:\n${key}`);
    return 0;
  } catch (err) {
    if (!(err instanceof KeyNameTaken)) throw err;
    io.err(`An active key is already named "${name}"; names are unique. Choose another name, or revoke that key first (keys revoke ${name}).`);
    return 1;
  }
}

function list(store: Store, args: string[], io: CliIo): number {
  if (args.length > 0) return usage(io);
  const keys = store.apiKeys.list();
  if (keys.length === 0) io.out('No keys.');
  // Two active keys of one name come from a database made before names were unique: say which.
  const activeNames = new Map<string, number>();
  for (const k of keys) if (k.revokedAtMs === null) activeNames.set(k.name, (activeNames.get(k.name) ?? 0) + 1);
  for (const k of keys) {
    const status = k.revokedAtMs === null ? 'active' : `revoked ${formatTimestamp(k.revokedAtMs)}`;
    const shared = k.revokedAtMs === null && activeNames.get(k.name)! > 1 ? '  (name shared with another active key: revoke by id)' : '';
    io.out(`${k.id}  ${k.name.padEnd(20)}  created ${formatTimestamp(k.createdAtMs)}  ${status}  ${describeScope(k)}${shared}`);
  }
  return 0;
}

function revoke(store: Store, args: string[], io: CliIo, now: number): number {
  const [target, ...extra] = args;
  if (!target || extra.length > 0) return usage(io);
  try {
    if (store.apiKeys.revoke(target, now) === 0) {
      io.err(`No active key with id or name "${target}".`);
      return 1;
    }
  } catch (err) {
    if (!(err instanceof AmbiguousKeyName)) throw err;
    io.err(`${err.ids.length} active keys are named "${target}"; none was revoked. Revoke one by its id: ${err.ids.join(', ')}`);
    return 1;
  }
  io.out('Revoked 1 key.');
  return 0;
}

/** `every household`, `user alice`, `user alice, read-only`. */
function describeScope(k: Pick<ApiKeyInfo, 'userId' | 'readOnly'>): string {
  if (k.userId === null) return 'every household';
  return `user ${k.userId}${k.readOnly ? ', read-only' : ''}`;
}

function usage(io: CliIo): number {
  io.err(USAGE);
  return 2;
}
