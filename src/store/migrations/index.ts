// Append-only: never edit a migration that has shipped; add the next number instead.
import m001 from './001-initial.ts';

export const MIGRATIONS: readonly string[] = [m001];
