// The kind of device a connect session is for: 'chargers', 'vehicles', 'hvac', 'homePower' or
// 'tariffs' (the domains of available-vendors), since a vendor code alone does not say it (TESLA
// makes cars and Powerwalls). NULL for a session opened before: a charger's or a car's, as its
// vendor says.
export default /* sql */ `
ALTER TABLE connect_sessions ADD COLUMN kind TEXT;
`;
