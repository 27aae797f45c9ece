// Images are no longer the vehicles' alone: an HVAC unit has its picture too (the origin's
// /users/{u}/hvacs/{id}/image.png). One table keyed by the device's id serves every kind; the rows
// already there keep their ids, which are device ids.
export default /* sql */ `
ALTER TABLE vehicle_images RENAME TO device_images;
ALTER TABLE device_images RENAME COLUMN vehicle_id TO device_id;
`;
