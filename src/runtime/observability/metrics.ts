// A small metrics registry rendered in the Prometheus text format (version 0.0.4). Our needs are a
// few counters, gauges and one histogram family; a client library would be more code than this.

type Labels = Record<string, string>;

function labelText(labels: Labels): string {
  const entries = Object.entries(labels);
  if (entries.length === 0) return '';
  return `{${entries.map(([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`).join(',')}}`;
}

interface Family {
  help: string;
  type: 'counter' | 'gauge' | 'histogram';
  render(name: string): string[];
}

export class Counter {
  private readonly values = new Map<string, { labels: Labels; value: number }>();
  inc(labels: Labels = {}, by = 1): void {
    const key = labelText(labels);
    const entry = this.values.get(key) ?? { labels, value: 0 };
    entry.value += by;
    this.values.set(key, entry);
  }
  /**
   * One label set's series, for a hot path: counting through it skips rendering the labels into a
   * key on every call (that was a tenth of a detail read's CPU when done per request).
   */
  series(labels: Labels): { inc(by?: number): void } {
    const key = labelText(labels);
    let entry = this.values.get(key);
    if (!entry) {
      entry = { labels, value: 0 };
      this.values.set(key, entry);
    }
    const series = entry;
    return { inc: (by = 1) => void (series.value += by) };
  }
  render(name: string): string[] {
    return [...this.values.values()].map((e) => `${name}${labelText(e.labels)} ${e.value}`);
  }
}

export class Histogram {
  private readonly series = new Map<string, { labels: Labels; counts: number[]; sum: number; count: number }>();
  constructor(private readonly buckets: readonly number[]) {}
  observe(value: number, labels: Labels = {}): void {
    const key = labelText(labels);
    let entry = this.series.get(key);
    if (!entry) {
      entry = { labels, counts: this.buckets.map(() => 0), sum: 0, count: 0 };
      this.series.set(key, entry);
    }
    this.buckets.forEach((bound, i) => {
      if (value <= bound) entry.counts[i]!++;
    });
    entry.sum += value;
    entry.count++;
  }
  render(name: string): string[] {
    const lines: string[] = [];
    for (const e of this.series.values()) {
      this.buckets.forEach((bound, i) => lines.push(`${name}_bucket${labelText({ ...e.labels, le: String(bound) })} ${e.counts[i]}`));
      lines.push(`${name}_bucket${labelText({ ...e.labels, le: '+Inf' })} ${e.count}`);
      lines.push(`${name}_sum${labelText(e.labels)} ${e.sum}`);
      lines.push(`${name}_count${labelText(e.labels)} ${e.count}`);
    }
    return lines;
  }
}

export class MetricsRegistry {
  private readonly families = new Map<string, Family>();

  counter(name: string, help: string): Counter {
    const counter = new Counter();
    this.families.set(name, { help, type: 'counter', render: (n) => counter.render(n) });
    return counter;
  }

  histogram(name: string, help: string, buckets: readonly number[]): Histogram {
    const histogram = new Histogram(buckets);
    this.families.set(name, { help, type: 'histogram', render: (n) => histogram.render(n) });
    return histogram;
  }

  /** A counter kept elsewhere (a part's own tally), read when scraped. */
  counterOf(name: string, help: string, collect: () => number): void {
    this.families.set(name, { help, type: 'counter', render: (n) => [`${n} ${collect()}`] });
  }

  /** A gauge read when scraped: `collect` returns one value, or values per label set. */
  gauge(name: string, help: string, collect: () => number | { labels: Labels; value: number }[]): void {
    this.families.set(name, {
      help,
      type: 'gauge',
      render: (n) => {
        const value = collect();
        return typeof value === 'number' ? [`${n} ${value}`] : value.map((v) => `${n}${labelText(v.labels)} ${v.value}`);
      },
    });
  }

  render(): string {
    const out: string[] = [];
    for (const [name, family] of this.families) {
      out.push(`# HELP ${name} ${family.help}`, `# TYPE ${name} ${family.type}`, ...family.render(name));
    }
    return `${out.join('\n')}\n`;
  }
}
