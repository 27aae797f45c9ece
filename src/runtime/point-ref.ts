// Point references in field rules: `group.point`, `group.point[n]` (n-th repeating block, from 1)
// or `group.point[*]` (the sum over all blocks).
import type { FieldRule } from './driver-model.ts';

export interface ParsedRef {
  group: string;
  point: string;
  index?: number | '*';
}

export function parseRef(ref: string): ParsedRef {
  const match = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_]+)(?:\[(\d+|\*)\])?$/.exec(ref);
  if (!match) throw new Error(`malformed point reference ${ref} (expected group.point, group.point[n] or group.point[*])`);
  const [, group, point, index] = match;
  return { group: group!, point: point!, index: index === undefined ? undefined : index === '*' ? '*' : Number(index) };
}

/** Every point reference the rules read. */
export function refsOfRules(rules: Record<string, FieldRule | readonly FieldRule[]>): string[] {
  const refs = new Set<string>();
  for (const rule of Object.values(rules).flatMap((r) => (Array.isArray(r) ? r : [r]) as FieldRule[])) {
    if ('point' in rule) refs.add(rule.point);
    if ('difference' in rule) rule.difference.forEach((r) => refs.add(r));
  }
  return [...refs];
}
