// What one request may reach of the hub's households (decisions.md §6), worked out once per operation
// from the verified key and the path's userId (operation.ts), and passed to every lookup and list
// (device-handlers.ts), so that no handler decides it on its own.
import type { VerifiedKey } from '../store/api-keys.ts';

export interface Reach {
  /** The household the request is confined to: the path's userId, else the key's scope; undefined for every household. */
  owner: string | undefined;
  /**
   * The path names another household than the key's own. To this key nothing there exists: a device
   * is `<KIND>_NOT_FOUND` and a list is empty, exactly as for a user the hub does not know, so that
   * ids and households do not leak.
   */
  foreign: boolean;
  /** The key's own household when it is scoped (a connect session may be opened only for it), else null. */
  scope: string | null;
}

export function reachOf(key: Pick<VerifiedKey, 'userId'>, pathUserId: string | undefined): Reach {
  const scope = key.userId;
  if (scope === null) return { owner: pathUserId, foreign: false, scope };
  return { owner: scope, foreign: pathUserId !== undefined && pathUserId !== scope, scope };
}
