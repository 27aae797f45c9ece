// Turns Zod issues into the error body's validationErrors: every offending field, in plain words.
import type { z } from 'zod';

/** One offending field of a request, a configuration file or an import record, in plain words. */
export interface ValidationError {
  field: string;
  message: string;
}

/** `schedules[0].start.time` from ['schedules', 0, 'start', 'time']. */
export function fieldPath(path: readonly PropertyKey[], prefix = ''): string {
  let out = prefix;
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out || 'body';
}

function describe(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? 'is required' : issue.message.startsWith('Invalid input') ? `must be ${article(issue.expected)}` : issue.message;
    case 'too_small':
      if (issue.origin === 'array') return `must have at least ${issue.minimum} item${Number(issue.minimum) === 1 ? '' : 's'}`;
      if (issue.origin === 'string') return `must be at least ${issue.minimum} character${Number(issue.minimum) === 1 ? '' : 's'} long`;
      return issue.message.startsWith('Too small') ? `must be at least ${issue.minimum}` : issue.message;
    case 'too_big':
      if (issue.origin === 'array') return `must have at most ${issue.maximum} items`;
      if (issue.origin === 'string') return `must be at most ${issue.maximum} characters long`;
      return issue.message.startsWith('Too big') ? `must be at most ${issue.maximum}` : issue.message;
    default:
      return issue.message;
  }
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

export function toValidationErrors(issues: readonly z.core.$ZodIssue[], prefix = ''): ValidationError[] {
  const errors: ValidationError[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) errors.push({ field: fieldPath([...issue.path, key], prefix), message: 'is not a known field' });
    } else {
      errors.push({ field: fieldPath(issue.path, prefix), message: describe(issue) });
    }
  }
  return errors;
}

const shortcuts = new WeakMap<z.ZodType, (input: unknown) => unknown>();

/**
 * Gives a schema a cheap exact check for its common valid inputs: it returns the schema's output
 * when it is sure the input is valid, undefined otherwise (Zod then decides, and words the errors).
 * Zod is quick on its own, but inside a busy server a parse costs about as much as the database
 * read, and a path id needs no more than a regular expression.
 */
export function withShortcut<T extends z.ZodType>(schema: T, shortcut: (input: unknown) => z.output<T> | undefined): T {
  shortcuts.set(schema, shortcut);
  return schema;
}

/** Parses with a schema; returns the value, or pushes the issues and returns undefined. */
export function parseInto<T extends z.ZodType>(schema: T, input: unknown, errors: ValidationError[], prefix = ''): z.output<T> | undefined {
  const quick = shortcuts.get(schema)?.(input);
  if (quick !== undefined) return quick as z.output<T>;
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  errors.push(...toValidationErrors(result.error.issues, prefix));
  return undefined;
}
