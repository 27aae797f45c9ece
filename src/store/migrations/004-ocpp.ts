// OCPP chargers: the credentials of each charge point (its password only as a salted scrypt hash)
// and its transactions, so that a StopTransaction the charger queued while the hub was down is
// taken exactly once when it comes back, and a StartTransaction it sends again gets the same id.
export default /* sql */ `
CREATE TABLE ocpp_credentials (
  charge_point_id TEXT PRIMARY KEY,     -- the identity in ws(s)://<hub>/ocpp/{chargePointId}
  device_id       TEXT NOT NULL UNIQUE,
  password_hash   TEXT NOT NULL,        -- scrypt$N$r$p$salt$hash; the password itself is never stored
  updated_at      INTEGER NOT NULL
) STRICT;

CREATE TABLE ocpp_transactions (
  id              INTEGER PRIMARY KEY AUTOINCREMENT,  -- the transactionId the hub gave the charger
  charge_point_id TEXT NOT NULL,
  device_id       TEXT NOT NULL,
  connector_id    INTEGER NOT NULL,
  id_tag          TEXT NOT NULL,
  meter_start_wh  INTEGER NOT NULL,
  started_at      INTEGER NOT NULL,     -- the charger's timestamp, epoch ms
  meter_stop_wh   INTEGER,
  stopped_at      INTEGER,              -- NULL while the transaction runs
  stop_reason     TEXT,
  received_at     INTEGER NOT NULL
) STRICT;
-- A StartTransaction sent again (its answer was lost) is the same transaction.
CREATE UNIQUE INDEX ocpp_transactions_by_start ON ocpp_transactions (charge_point_id, connector_id, started_at, meter_start_wh);
CREATE INDEX ocpp_transactions_running ON ocpp_transactions (charge_point_id, connector_id) WHERE stopped_at IS NULL;
`;
