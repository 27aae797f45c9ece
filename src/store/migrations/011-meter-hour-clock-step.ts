// An hour counter read after a step of the wall clock (issue 33): the energy between it and the
// counter before spans a time the clock did not measure (a step forward squeezes it, a step back
// counts it again), so that hour's consumption is left out instead of guessed. 1 = after a step.
export default /* sql */ `
ALTER TABLE meter_hours ADD COLUMN clock_step INTEGER NOT NULL DEFAULT 0;
`;
