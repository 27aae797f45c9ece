export default /* sql */ `
CREATE TABLE devices (
  id             TEXT PRIMARY KEY,
  kind           TEXT NOT NULL,
  user_id        TEXT NOT NULL,
  vendor         TEXT NOT NULL,
  name           TEXT,
  model          TEXT,
  is_online      INTEGER NOT NULL DEFAULT 0,
  last_updated   INTEGER,              -- epoch ms of the last change of any variable
  location_id    TEXT,
  hvac_type      TEXT,                 -- HVAC only
  charging_state TEXT,                 -- battery only: chargeState.chargingState, a list filter
  user_id_fold   TEXT NOT NULL,        -- case-folded copies for the substring filters
  name_fold      TEXT,
  model_fold     TEXT,
  static_json    TEXT NOT NULL,        -- staticData, without its derived columns
  state_json     TEXT,                 -- chargeState or powerState
  driver_json    TEXT,                 -- how the hub reaches the device, if it does
  created_at     INTEGER NOT NULL
) STRICT;
-- Subscription lists: kind, then the sort column, then id as the tie-breaker.
CREATE INDEX devices_by_user    ON devices (kind, user_id, id);
CREATE INDEX devices_by_vendor  ON devices (kind, vendor, id);
CREATE INDEX devices_by_online  ON devices (kind, is_online, id);
CREATE INDEX devices_by_updated ON devices (kind, last_updated, id);
-- User lists: an exact user, then the sort column.
CREATE INDEX devices_of_user_by_vendor  ON devices (user_id, kind, vendor, id);
CREATE INDEX devices_of_user_by_online  ON devices (user_id, kind, is_online, id);
CREATE INDEX devices_of_user_by_updated ON devices (user_id, kind, last_updated, id);

-- A deleted device stays deleted: configuration and discovery consult this before adding.
CREATE TABLE deleted_devices (
  id         TEXT PRIMARY KEY,
  kind       TEXT NOT NULL,
  address    TEXT,                     -- the driver address it was reached at, if any
  deleted_at INTEGER NOT NULL
) STRICT;
CREATE INDEX deleted_devices_by_address ON deleted_devices (address) WHERE address IS NOT NULL;

CREATE TABLE commands (
  seq           INTEGER PRIMARY KEY AUTOINCREMENT,  -- execution order
  id            TEXT NOT NULL UNIQUE,
  device_id     TEXT NOT NULL,
  device_kind   TEXT NOT NULL,
  user_id       TEXT NOT NULL,
  type          TEXT NOT NULL,
  state         TEXT NOT NULL,
  payload_json  TEXT,
  created_at    INTEGER NOT NULL,
  last_updated  INTEGER NOT NULL,
  expires_at    INTEGER NOT NULL,
  failed_reason TEXT
) STRICT;
CREATE INDEX commands_of_device ON commands (device_id, state, seq);
CREATE INDEX commands_pending   ON commands (seq) WHERE state = 'PENDING';

CREATE TABLE api_keys (
  id         TEXT PRIMARY KEY,
  name       TEXT NOT NULL,
  hash       BLOB NOT NULL,            -- SHA-256 of the whole key; the key itself is never stored
  created_at INTEGER NOT NULL,
  revoked_at INTEGER
) STRICT;

CREATE TABLE connect_sessions (
  token_hash   BLOB PRIMARY KEY,       -- SHA-256 of the token in the pairing URL
  user_id      TEXT NOT NULL,
  vendor       TEXT NOT NULL,
  redirect_url TEXT NOT NULL,
  theme        TEXT,
  language     TEXT,
  created_at   INTEGER NOT NULL,
  expires_at   INTEGER NOT NULL,
  used_at      INTEGER
) STRICT;

CREATE TABLE vehicle_images (
  vehicle_id TEXT PRIMARY KEY,
  png        BLOB NOT NULL,
  etag       TEXT NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;
`;
