// Rows written before the hub settled three normal forms are brought to them:
// - device ids (and location ids) in lower case, as the API now looks them up; where a lower-case
//   twin exists already the row is left alone, and so are the rows that refer to it;
// - device times in whole seconds (imports kept milliseconds), so that the lastUpdated filters
//   compare what the API shows;
// - staticData.lastUpdated filled in where nothing set it: the device was added then.
export default /* sql */ `
UPDATE OR IGNORE devices SET id = lower(id) WHERE id <> lower(id);
UPDATE devices SET location_id = lower(location_id) WHERE location_id <> lower(location_id);
UPDATE commands SET device_id = lower(device_id)
  WHERE device_id <> lower(device_id) AND NOT EXISTS (SELECT 1 FROM devices WHERE id = commands.device_id);
UPDATE OR IGNORE vehicle_images SET vehicle_id = lower(vehicle_id)
  WHERE vehicle_id <> lower(vehicle_id) AND NOT EXISTS (SELECT 1 FROM devices WHERE id = vehicle_images.vehicle_id);
UPDATE OR IGNORE deleted_devices SET id = lower(id) WHERE id <> lower(id);

UPDATE devices SET last_updated = last_updated - last_updated % 1000 WHERE last_updated % 1000 <> 0;
UPDATE devices SET state_json = json_set(state_json, '$.lastUpdated',
    strftime('%Y-%m-%dT%H:%M:%SZ', json_extract(state_json, '$.lastUpdated')))
  WHERE json_extract(state_json, '$.lastUpdated') LIKE '%.%';
UPDATE devices SET static_json = json_set(static_json, '$.lastUpdated',
    strftime('%Y-%m-%dT%H:%M:%SZ', json_extract(static_json, '$.lastUpdated')))
  WHERE json_extract(static_json, '$.lastUpdated') LIKE '%.%';
UPDATE devices SET static_json = json_set(static_json, '$.lastUpdated', strftime('%Y-%m-%dT%H:%M:%SZ', created_at / 1000, 'unixepoch'))
  WHERE json_extract(static_json, '$.lastUpdated') IS NULL;
`;
