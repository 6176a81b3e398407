import type { Attributes } from '@opentelemetry/api';
import {
  AggregationTemporality,
  DataPointType,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-base';

/** One data point of a recorded metric: a sum's or gauge's value, or a histogram's count of recordings. */
export interface RecordedPoint {
  readonly value: number;
  readonly attributes: Attributes;
}

/**
 * The real SDK's meter and tracer providers over its in-memory exporters, to pass as `meterProvider` and
 * `tracerProvider` or to register globally; `spanProcessors` run after the one that records.
 */
export class RecordingTelemetry {
  readonly #metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  readonly #reader = new PeriodicExportingMetricReader({
    exporter: this.#metricExporter,
    // Exported only when the test asks (forceFlush); a timer would export on its own.
    exportIntervalMillis: 2_147_483_647,
  });
  readonly #spanExporter = new InMemorySpanExporter();
  readonly meterProvider = new MeterProvider({ readers: [this.#reader] });
  readonly tracerProvider: BasicTracerProvider;

  constructor(spanProcessors: readonly SpanProcessor[] = []) {
    this.tracerProvider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(this.#spanExporter), ...spanProcessors],
    });
  }

  /** The two providers, as a storage's, strategy's or subscription's options. */
  get options(): { readonly meterProvider: MeterProvider; readonly tracerProvider: BasicTracerProvider } {
    return { meterProvider: this.meterProvider, tracerProvider: this.tracerProvider };
  }

  /** Every data point of the metric `name` recorded so far, cumulative; empty when it was never recorded. */
  async points(name: string): Promise<RecordedPoint[]> {
    await this.#reader.forceFlush();
    const latest = this.#metricExporter.getMetrics().at(-1);
    const metric = latest?.scopeMetrics.flatMap((scope) => scope.metrics).find((each) => each.descriptor.name === name);
    return (metric?.dataPoints ?? []).map((point) => ({
      value:
        metric?.dataPointType === DataPointType.HISTOGRAM
          ? (point.value as { readonly count: number }).count
          : (point.value as number),
      attributes: point.attributes,
    }));
  }

  /** The names of every metric recorded so far. */
  async metricNames(): Promise<string[]> {
    await this.#reader.forceFlush();
    const latest = this.#metricExporter.getMetrics().at(-1);
    return (latest?.scopeMetrics ?? []).flatMap((scope) => scope.metrics.map((metric) => metric.descriptor.name));
  }

  /** The spans ended so far. */
  spans(): readonly ReadableSpan[] {
    return this.#spanExporter.getFinishedSpans();
  }

  async shutdown(): Promise<void> {
    await Promise.all([this.meterProvider.shutdown(), this.tracerProvider.shutdown()]);
  }
}
