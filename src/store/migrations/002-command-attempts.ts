// A command's attempt is recorded before anything is sent to the device, so that after a crash the
// worker knows which PENDING commands may already have reached it (and must not be sent twice).
export default /* sql */ `
ALTER TABLE commands ADD COLUMN started_at INTEGER;
`;
