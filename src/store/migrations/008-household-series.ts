// The household's 5-minute curves (issue 25): one row per user and 5 minutes, the last 48 hours.
// Written in batches with the telemetry (src/store/household-series.ts), never one row at a time.
export default /* sql */ `
CREATE TABLE household_points (
  user_id     TEXT NOT NULL,
  start_at    INTEGER NOT NULL,              -- epoch ms of the 5 minutes' start (UTC)
  pv_kw       REAL,                          -- mean PV production
  home_kw     REAL,                          -- mean household consumption
  grid_kw     REAL,                          -- mean grid power, positive importing
  battery_kw  REAL,                          -- mean battery power, positive charging
  battery_soc REAL,                          -- battery charge level at the end, %
  price       REAL,                          -- price in force at the end, currency per kWh
  PRIMARY KEY (user_id, start_at)
) STRICT, WITHOUT ROWID;
`;
