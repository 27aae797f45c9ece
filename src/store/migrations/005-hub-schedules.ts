// Weekly programs the hub runs itself, for HVACs without a program of their own (issue 15, item 5):
// the program as the API took it, and the occurrence of its events last applied and read back, so
// that after a restart or a power cut the event in force is applied once and never twice.
export default /* sql */ `
CREATE TABLE hub_schedules (
  device_id          TEXT PRIMARY KEY,
  command_id         TEXT,                 -- the SET_SCHEDULE command that stored it
  program_json       TEXT NOT NULL,        -- {events (UTC, as the API took them), timeZone, offsetMinutes}
  applied_occurrence INTEGER,              -- epoch ms of the occurrence last applied and read back
  applied_at         INTEGER,              -- when that was (epoch ms)
  stored_at          INTEGER NOT NULL
) STRICT;
`;
