// Reads the user's answers to a vendor's PairingForm: trimmed values of the declared fields only,
// each checked against required, maxLength and pattern. Problems are codes; the page words them.
import type { PairingForm } from '../../runtime/devices/pairing-prober.ts';

export type FieldProblem = 'required' | 'tooLong' | 'invalid';

export interface FormInput {
  /** The trimmed value of every declared field ('' when absent), as echoed back on the page. */
  values: Record<string, string>;
  problems: { field: string; problem: FieldProblem }[];
}

const patterns = new Map<string, RegExp>();

/** The field's pattern anchored at both ends, like HTML `pattern`. */
function wholeMatch(pattern: string): RegExp {
  let regex = patterns.get(pattern);
  if (!regex) {
    regex = new RegExp(`^(?:${pattern})$`, 'u');
    patterns.set(pattern, regex);
  }
  return regex;
}

export function readFormInput(form: PairingForm, submitted: Record<string, string>): FormInput {
  const values: Record<string, string> = {};
  const problems: FormInput['problems'] = [];
  for (const field of form.fields) {
    const value = (submitted[field.name] ?? '').trim();
    values[field.name] = value;
    if (value === '') {
      if (field.required) problems.push({ field: field.name, problem: 'required' });
    } else if (value.length > field.maxLength) {
      problems.push({ field: field.name, problem: 'tooLong' });
    } else if (field.pattern !== undefined && !wholeMatch(field.pattern).test(value)) {
      problems.push({ field: field.name, problem: 'invalid' });
    }
  }
  // One way or another: with none given, the first field says what is missing.
  if (form.anyOf && problems.length === 0 && form.fields.every((field) => values[field.name] === '') && form.fields[0]) {
    problems.push({ field: form.fields[0].name, problem: 'required' });
  }
  return { values, problems };
}
