import type { Metric, Registry } from 'prom-client';

/**
 * Counters and histograms for the hot path. prom-client's own `labels(...)` children hash and
 * validate their label object on every `inc`/`observe` (15.1: `hashObject` builds a string per
 * call); these keep one plain object per label set, made once and held by the caller, so
 * recording a request is an array scan and a few additions — no allocation. They hand their
 * values to prom-client's registry in the shape its own metrics do (`get()`), so the exposition
 * (escaping, format, content type) stays prom-client's.
 */

type Labels = Record<string, string>;

interface Exported {
  value: number;
  labels: Labels;
  metricName?: string;
}

abstract class Series<Child> {
  protected readonly children = new Map<string, { labels: Labels; child: Child }>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: 'counter' | 'histogram',
    readonly labelNames: readonly string[],
  ) {}

  readonly aggregator = 'sum';

  /** The series of these label values, made on first use: call once, keep the result. */
  child(...values: string[]): Child {
    const id = values.join('\u0000');
    let entry = this.children.get(id);
    if (entry === undefined) {
      const labels: Labels = {};
      this.labelNames.forEach((n, i) => {
        labels[n] = values[i] ?? '';
      });
      entry = { labels, child: this.make() };
      this.children.set(id, entry);
    }
    return entry.child;
  }

  register(registry: Registry): this {
    registry.registerMetric(this as unknown as Metric);
    return this;
  }

  async get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: Exported[] }> {
    const values: Exported[] = [];
    for (const { labels, child } of this.children.values()) this.export(labels, child, values);
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  reset(): void {
    this.children.clear();
  }

  protected abstract make(): Child;
  protected abstract export(labels: Labels, child: Child, into: Exported[]): void;
}

export interface CounterChild {
  value: number;
}

export class FastCounter extends Series<CounterChild> {
  constructor(name: string, help: string, labelNames: readonly string[]) {
    super(name, help, 'counter', labelNames);
  }
  protected make(): CounterChild {
    return { value: 0 };
  }
  protected export(labels: Labels, child: CounterChild, into: Exported[]): void {
    into.push({ labels, value: child.value });
  }
}

/** One histogram series: `observe(seconds)` adds to the first bucket whose bound holds it. */
export class HistogramChild {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  constructor(private readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length);
  }
  observe(value: number): void {
    this.sum += value;
    this.count++;
    const b = this.bounds;
    for (let i = 0; i < b.length; i++) {
      if (value <= b[i]!) {
        this.counts[i]!++;
        return;
      }
    }
  }
}

export class FastHistogram extends Series<HistogramChild> {
  private readonly le: string[];
  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    private readonly bounds: readonly number[],
  ) {
    super(name, help, 'histogram', labelNames);
    this.le = bounds.map(String);
  }
  protected make(): HistogramChild {
    return new HistogramChild(this.bounds);
  }
  protected export(labels: Labels, child: HistogramChild, into: Exported[]): void {
    let cumulative = 0;
    for (let i = 0; i < this.bounds.length; i++) {
      cumulative += child.counts[i]!;
      into.push({
        metricName: `${this.name}_bucket`,
        labels: { ...labels, le: this.le[i]! },
        value: cumulative,
      });
    }
    into.push({ metricName: `${this.name}_bucket`, labels: { ...labels, le: '+Inf' }, value: child.count });
    into.push({ metricName: `${this.name}_sum`, labels, value: child.sum });
    into.push({ metricName: `${this.name}_count`, labels, value: child.count });
  }
}
