// A list published one value per topic (definition.ts, SeriesSpec): the count topic and the slots'
// parts are gathered here, from untrusted publishers. Memory is bounded by the spec: at most
// `maxSlots` slots of at most one value per declared part, whatever topics and counts arrive.
import type { SeriesSpec, StateTopic } from './definition.ts';
import { applyRule, decodePayload } from '../values/values.ts';

/** A slot index as a publisher writes it: 1, 2, … (no sign, no leading zero, no exponent). */
const INDEX = /^[1-9][0-9]{0,8}$/;
const COUNT = /^[0-9]{1,9}$/;

export class SeriesBuffer {
  private count: number | undefined;
  private readonly slots = new Map<number, Record<string, unknown>>();
  private readonly parts: ReadonlyMap<string, [string, SeriesSpec['slot'][string]]>;

  constructor(private readonly topic: StateTopic & { series: SeriesSpec }, readonly countTopic: string) {
    this.parts = new Map(Object.entries(topic.series.slot).map(([field, rule]) => [rule.at, [field, rule]]));
  }

  get spec(): SeriesSpec {
    return this.topic.series;
  }

  /** The wildcard filters that hear the slots' parts, each within the count topic. */
  filters(): string[] {
    return [...this.parts.keys()].map((at) => `${this.countTopic}/+/${at}`);
  }

  /**
   * A message on the count topic or a slot's part: 'changed' when taken and new, 'same' when it
   * repeats what is held (evcc republishes its whole forecast with every round of values),
   * 'ignored' when not taken.
   */
  take(topic: string, payload: Buffer): 'changed' | 'same' | 'ignored' {
    const text = payload.toString('utf8').trim();
    if (topic === this.countTopic) {
      if (text !== '' && !COUNT.test(text)) return 'ignored';
      const count = Math.min(Number(text), this.spec.maxSlots);
      if (count === this.count) return 'same';
      this.count = count;
      return 'changed';
    }
    if (!topic.startsWith(`${this.countTopic}/`)) return 'ignored';
    const levels = topic.slice(this.countTopic.length + 1).split('/');
    if (levels.length !== 2 || !INDEX.test(levels[0]!)) return 'ignored';
    const index = Number(levels[0]);
    const part = this.parts.get(levels[1]!);
    if (!part || index > this.spec.maxSlots) return 'ignored';
    const [field, rule] = part;
    const slot = this.slots.get(index);
    const value = text === '' ? undefined : applyRule(rule, decodePayload(payload, this.topic.format));
    if (text !== '' && value === undefined) return 'ignored';
    if (slot?.[field] === value) return 'same';
    if (value === undefined) delete slot![field];
    else if (slot) slot[field] = value;
    else this.slots.set(index, { [field]: value });
    return 'changed';
  }

  /** Slots 1..count with every part known, in order; undefined until the count is heard. */
  list(): Record<string, unknown>[] | undefined {
    if (this.count === undefined) return undefined;
    const fields = Object.keys(this.spec.slot);
    const out: Record<string, unknown>[] = [];
    for (let index = 1; index <= this.count; index++) {
      const slot = this.slots.get(index);
      if (slot && fields.every((field) => slot[field] !== undefined)) out.push({ ...slot });
    }
    return out;
  }

  /** How many slots are held (for the bound's tests). */
  get held(): number {
    return this.slots.size;
  }
}

/** Whether a topic heard matches a subscription's filter (`+` one level, `#` the rest). */
export function topicMatches(filter: string, topic: string): boolean {
  const want = filter.split('/');
  const got = topic.split('/');
  for (let i = 0; i < want.length; i++) {
    if (want[i] === '#') return true;
    if (i >= got.length || (want[i] !== '+' && want[i] !== got[i])) return false;
  }
  return want.length === got.length;
}
