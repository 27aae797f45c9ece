// What a `hub` command writes to: its output and its errors. Its own file so that hub.ts and the
// commands it runs import it without importing each other.
export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
}
