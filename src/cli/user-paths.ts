// `npm run hub -- …` runs in the package's root whatever directory it was typed in (npm says which in
// INIT_CWD). The files a user names there are meant from where they typed them: `npm run hub --
// export rel.json` from docs/ writes docs/rel.json, not the root's. So the command's file arguments,
// and the data directory and configuration the environment names, are made absolute against that
// directory before anything runs; messages then name the whole path.
import { isAbsolute, resolve } from 'node:path';

/** Positional arguments that are files, by command (and sub-command), counted after the command. */
const FILE_ARGUMENTS: Record<string, (args: string[]) => number[]> = {
  import: () => [0],
  export: () => [0],
  backup: () => [0],
  restore: () => [0],
  image: (args) => (args[0] === 'set' ? [2] : []),
  config: (args) => (args[0] === 'check' ? [1] : []),
};

/** Flags whose value is a file (`-` stays standard input). */
const FILE_FLAG = /^--([a-z]+-)*file$/;

function absolute(path: string, cwd: string): string {
  return path === '-' || path === '' || isAbsolute(path) ? path : resolve(cwd, path);
}

/** The arguments with their files made absolute against `cwd`, the directory the user typed them in. */
export function argumentsFrom(argv: readonly string[], cwd: string): string[] {
  const [command, ...args] = argv;
  if (command === undefined) return [];
  const positional = new Set(FILE_ARGUMENTS[command]?.(args) ?? []);
  const out: string[] = [];
  let index = 0;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const inline = /^(--[a-z-]+)=(.*)$/.exec(arg);
    if (inline && FILE_FLAG.test(inline[1]!)) {
      out.push(`${inline[1]}=${absolute(inline[2]!, cwd)}`);
    } else if (FILE_FLAG.test(arg) && i + 1 < args.length) {
      out.push(arg, absolute(args[++i]!, cwd));
    } else if (arg.startsWith('--')) {
      out.push(arg);
    } else {
      out.push(positional.has(index) ? absolute(arg, cwd) : arg);
      index++;
    }
  }
  return [command, ...out];
}

/** HUB_DATA_DIR and HUB_CONFIG made absolute against `cwd` when they are relative. */
export function environmentFrom(env: NodeJS.ProcessEnv, cwd: string): NodeJS.ProcessEnv {
  const out = { ...env };
  for (const name of ['HUB_DATA_DIR', 'HUB_CONFIG'] as const) {
    const value = env[name];
    if (value) out[name] = absolute(value, cwd);
  }
  return out;
}

/** The directory `npm run` was typed in, when the command came through npm from elsewhere. */
export function typedIn(env: NodeJS.ProcessEnv, ownDirectory: string): string | undefined {
  const typed = env['INIT_CWD'];
  return typed && env['npm_lifecycle_event'] === 'hub' && resolve(typed) !== resolve(ownDirectory) ? typed : undefined;
}
