// Tariff prices and hourly grid import (issue 23): the prices a tariff's source published, kept for
// 48 hours, and a grid meter's import counter at each hour's start, one row per meter and hour, from
// which the API works out each hour's consumption and its cost.
export default /* sql */ `
CREATE TABLE tariff_prices (
  tariff_id   TEXT NOT NULL,
  start_at    INTEGER NOT NULL,              -- epoch ms: the quarter hour from which the price is in force
  total_price REAL NOT NULL,                 -- currency per kWh
  PRIMARY KEY (tariff_id, start_at)
) STRICT, WITHOUT ROWID;

CREATE TABLE meter_hours (
  meter_id   TEXT NOT NULL,
  hour_at    INTEGER NOT NULL,               -- epoch ms of the hour's start (UTC)
  import_kwh REAL NOT NULL,                  -- the import counter, first read in that hour
  PRIMARY KEY (meter_id, hour_at)
) STRICT, WITHOUT ROWID;
`;
