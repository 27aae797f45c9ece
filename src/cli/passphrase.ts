// The passphrase that seals an export's secrets (`hub export --with-secrets`) and opens them again
// (`hub import`): from a file (`--passphrase-file`, its first line) or HUB_EXPORT_PASSPHRASE, never
// from the command line, which other users of the machine see (ps) and the shell keeps (history).
import { readFileSync } from 'node:fs';

export const PASSPHRASE_ENV = 'HUB_EXPORT_PASSPHRASE';

/** The passphrase given, undefined when none is; throws when the file cannot be read. */
export function passphraseOf(file: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  if (file !== undefined) {
    let text: string;
    try {
      text = readFileSync(file === '-' ? 0 : file, 'utf8');
    } catch (err) {
      throw new Error(`cannot read the passphrase file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    return text.split(/\r?\n/, 1)[0]!;
  }
  const value = env[PASSPHRASE_ENV];
  return value === undefined || value === '' ? undefined : value;
}

/** The value of `--name VALUE` or `--name=VALUE` in args, and args without it. */
export function takeOption(args: string[], name: string): { value: string | undefined; rest: string[] } {
  const rest: string[] = [];
  let value: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === `--${name}`) value = args[++i] ?? '';
    else if (arg.startsWith(`--${name}=`)) value = arg.slice(name.length + 3);
    else rest.push(arg);
  }
  return { value, rest };
}
