// Point references in field rules: `group.point`, `group.point[n]` (n-th repeating block, from 1),
// `group.point[*]` (the sum over all blocks), `group.point[1,3]` (the sum over the listed blocks) or
// `group.point[^3,4]` (the sum over all blocks but the listed ones). A sum adds the blocks that
// are implemented, and is absent when none of them is.
import type { FieldRule } from './definition.ts';

/** Repeating blocks summed by a reference: the listed ones, or all but the listed ones. */
export interface BlockSet { blocks: number[]; except: boolean }

export interface ParsedRef {
  group: string;
  point: string;
  index?: number | '*' | BlockSet;
}

export function parseRef(ref: string): ParsedRef {
  const match = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_]+)(?:\[(\d+|\*|\^?\d+(?:,\d+)*)\])?$/.exec(ref);
  if (!match) throw new Error(`malformed point reference ${ref} (expected group.point, group.point[n], [*], [1,2] or [^1,2])`);
  const [, group, point, index] = match;
  return { group: group!, point: point!, index: index === undefined ? undefined : parseIndex(index) };
}

function parseIndex(index: string): number | '*' | BlockSet {
  if (index === '*') return '*';
  const except = index.startsWith('^');
  const blocks = (except ? index.slice(1) : index).split(',').map(Number);
  return !except && blocks.length === 1 ? blocks[0]! : { blocks, except };
}

/** A reference to the sum of a point over a set of repeating blocks. */
export function blockRef(groupPoint: string, blocks: readonly number[], except = false): string {
  if (except && blocks.length === 0) return `${groupPoint}[*]`;
  return `${groupPoint}[${except ? '^' : ''}${blocks.join(',')}]`;
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
