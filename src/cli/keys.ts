import type { Store } from '../store/store.ts';
import { formatTimestamp } from '../domain/time.ts';
import type { CliIo } from './io.ts';

export function runKeys(store: Store, args: string[], io: CliIo): number {
  const [action, target] = args;
  const now = Date.now();
  switch (action) {
    case 'create': {
      if (!target) return usage(io);
      const { id, key } = store.apiKeys.create(target, now);
      io.out(`Created key "${target}" (${id}). Store it now; it cannot be shown again:\n${key}`);
      return 0;
    }
    case 'list': {
      const keys = store.apiKeys.list();
      if (keys.length === 0) io.out('No keys.');
      for (const k of keys) {
        const status = k.revokedAtMs === null ? 'active' : `revoked ${formatTimestamp(k.revokedAtMs)}`;
        io.out(`${k.id}  ${k.name.padEnd(20)}  created ${formatTimestamp(k.createdAtMs)}  ${status}`);
      }
      return 0;
    }
    case 'revoke': {
      if (!target) return usage(io);
      const count = store.apiKeys.revoke(target, now);
      if (count === 0) {
        io.err(`No active key with id or name "${target}".`);
        return 1;
      }
      io.out(`Revoked ${count} key${count === 1 ? '' : 's'}.`);
      return 0;
    }
    default:
      return usage(io);
  }
}

function usage(io: CliIo): number {
  io.err('usage: npm run hub -- keys create NAME | keys list | keys revoke ID|NAME');
  return 2;
}
