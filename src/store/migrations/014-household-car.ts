// The car's mean power in the household's 5-minute points (issue 30), so today's energy can say what
// went into the car. NULL in a point written before: the car's power was not kept then (unknown, not 0).
export default /* sql */ `
ALTER TABLE household_points ADD COLUMN car_kw REAL;           -- mean power into the cars, kW
`;
