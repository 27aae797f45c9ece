// Configuration problems in the words of the configuration file: where the value came from (a key of
// the file, or the environment variable that set it), and a plain reason instead of Zod's wording.
import type { z } from 'zod';
import { fieldPath, toValidationErrors } from './domain/validation.ts';

export interface ConfigProblem {
  field: string;
  message: string;
}

/** Configuration keys set by an environment variable: a problem with the value names the variable. */
export const ENV_FIELDS: Readonly<Record<string, string>> = {
  dataDir: 'HUB_DATA_DIR',
  'http.host': 'HUB_HTTP_HOST',
  'http.port': 'HUB_HTTP_PORT',
  'http.publicUrl': 'HUB_PUBLIC_URL',
  'mqtt.url': 'HUB_MQTT_URL',
  'mqtt.deviceUrl': 'HUB_MQTT_DEVICE_URL',
  apiKey: 'HUB_API_KEY',
  logLevel: 'HUB_LOG_LEVEL',
};

const shown = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/** The allowed values of an enum, a literal or a union of literals; undefined for other issues. */
function allowedValues(issue: z.core.$ZodIssue): unknown[] | undefined {
  if (issue.code === 'invalid_value') return issue.values;
  if (issue.code !== 'invalid_union') return undefined;
  const values: unknown[] = [];
  for (const branch of issue.errors) {
    if (branch.length !== 1 || branch[0]!.code !== 'invalid_value' || branch[0]!.path.length > 0) return undefined;
    values.push(...branch[0]!.values);
  }
  return values;
}

/** Zod's issues as configuration problems; `fromEnv` maps a key to the variable that set it. */
export function configProblems(issues: readonly z.core.$ZodIssue[], fromEnv: ReadonlySet<string>): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const issue of issues) {
    const values = allowedValues(issue);
    const found = values ? [{ field: fieldPath(issue.path), message: `must be one of ${values.map(shown).join(', ')}` }]
      : issue.code === 'unrecognized_keys' ? issue.keys.map((key) => ({ field: fieldPath([...issue.path, key]), message: 'is not a known setting (check its spelling and indentation)' }))
        : toValidationErrors([issue]);
    for (const problem of found) {
      const variable = fromEnv.has(problem.field) ? ENV_FIELDS[problem.field] : undefined;
      problems.push(variable ? { field: variable, message: problem.message } : problem);
    }
  }
  return problems;
}

/** A YAML syntax error as one complete line: where, and what. */
export function yamlProblem(err: unknown): ConfigProblem {
  const { message, linePos } = err as { message?: string; linePos?: { line: number; col: number }[] };
  // The yaml package ends its message with "at line L, column C:" and a snippet on the next lines.
  const reason = (message ?? 'unreadable').split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
  const where = linePos?.[0] ? `line ${linePos[0].line}, column ${linePos[0].col}: ` : '';
  return { field: '(file)', message: `is not valid YAML: ${where}${reason}` };
}
