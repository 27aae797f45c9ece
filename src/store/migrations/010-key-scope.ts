// A key may be scoped to one household (`user_id`) and be read-only (decisions.md §6). Keys made
// before have neither: they stay the partner's keys, reaching every household. Names are unique among
// active keys from now on; the repository enforces it (api-keys.ts), not an index, because a database
// may already hold two active keys of one name, and those must keep working.
export default /* sql */ `
ALTER TABLE api_keys ADD COLUMN user_id TEXT;
ALTER TABLE api_keys ADD COLUMN read_only INTEGER NOT NULL DEFAULT 0 CHECK (read_only IN (0, 1));
CREATE INDEX api_keys_by_name ON api_keys (name);
`;
