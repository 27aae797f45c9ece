// Why a PENDING command has not run yet (its device is offline), shown on the command while it waits:
// a command that waits for a device gone silent is otherwise indistinguishable from one about to run.
export default /* sql */ `
ALTER TABLE commands ADD COLUMN waiting_reason TEXT;
`;
