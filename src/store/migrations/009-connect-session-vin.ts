// The car a vehicle connect session is for (POST /connections/vehicles takes an optional VIN): the
// connect page binds that one when the maker's account holds several. NULL for chargers.
export default /* sql */ `
ALTER TABLE connect_sessions ADD COLUMN vin TEXT;
`;
