import type { Attributes, Context, Counter, Gauge, Histogram, Span } from '@opentelemetry/api';
import { endSpan, inActiveSpan, reportOnce } from './guarded-telemetry.js';
import { resolveTelemetry, type Telemetry } from './resolve-telemetry.js';
import { ATTRIBUTE_NAMES, DURATION_BUCKETS_SECONDS, METRIC_NAMES, SPAN_NAMES } from './telemetry-names.js';
import type { TelemetryContext, TelemetryFailureReport, TelemetryOptions } from './telemetry-options.js';

/** What a handled event tells telemetry: where its trace goes on and how far behind its source is. */
export interface TracedEvent {
  readonly traceContext?: TelemetryContext;
  readonly lag?: number;
}

/**
 * Counts, times and traces one `DurableSubscription`'s handled events and refusals; held only when something records.
 * What OpenTelemetry throws never reaches the handler or the run: the first error goes to the subscription's `onError`.
 */
export class SubscriptionTelemetry {
  readonly #telemetry: Telemetry;
  readonly #failed: (error: unknown, subscriptionId: string) => void;
  readonly #events: Counter | undefined;
  readonly #handlerDuration: Histogram | undefined;
  readonly #refusals: Counter | undefined;
  readonly #lag: Gauge | undefined;

  private constructor(telemetry: Telemetry, report: TelemetryFailureReport<[subscriptionId: string]>) {
    this.#telemetry = telemetry;
    this.#failed = reportOnce('a handled event or a refusal', report);
    const meter = telemetry.meter;
    this.#events = meter?.createCounter(METRIC_NAMES.subscriptionEvents, {
      description: 'Events whose handler returned.',
      unit: '{event}',
    });
    this.#handlerDuration = meter?.createHistogram(METRIC_NAMES.subscriptionHandlerDuration, {
      description: 'How long a handler took with one event, whether it returned or threw.',
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS_SECONDS },
    });
    this.#refusals = meter?.createCounter(METRIC_NAMES.subscriptionRefusals, {
      description: 'Runs that ended on a refused checkpoint write: a zombie stopped, its lease given up.',
      unit: '{refusal}',
    });
    this.#lag = meter?.createGauge(METRIC_NAMES.subscriptionLag, {
      description: 'How far behind its source a subscription is, as the source reports it with each event.',
      unit: '{event}',
    });
  }

  /**
   * The telemetry of a subscription made with `options`, which reports what OpenTelemetry throws to `report`;
   * `undefined` when nothing would record.
   */
  static resolve(
    options: TelemetryOptions,
    report: TelemetryFailureReport<[subscriptionId: string]>,
  ): SubscriptionTelemetry | undefined {
    return resolveTelemetry(options, 'a subscription', (telemetry) => new SubscriptionTelemetry(telemetry, report));
  }

  /**
   * Runs `handle` inside a `checkpoint_fencing.subscription.handle` span, a child of the event's `traceContext`
   * (else of the active context), times it, counts it once it returns, and records the lag the event reports.
   */
  handle(subscriptionId: string, event: TracedEvent, handle: () => void | Promise<void>): Promise<void> {
    const attributes = this.#attributes(subscriptionId);
    const failed = (error: unknown): void => {
      this.#failed(error, subscriptionId);
    };
    if (event.lag !== undefined) {
      try {
        this.#lag?.record(event.lag, attributes);
      } catch (error) {
        failed(error);
      }
    }
    const { api, tracer } = this.#telemetry;
    return tracer === undefined
      ? this.#measure(attributes, undefined, handle, failed)
      : inActiveSpan(
          tracer,
          SPAN_NAMES.subscriptionHandle,
          { attributes, kind: api.SpanKind.CONSUMER },
          (event.traceContext as Context | undefined) ?? api.context.active(),
          (span) => this.#measure(attributes, span, handle, failed),
          failed,
        );
  }

  /** A run of `subscriptionId` ended on a refused checkpoint write. */
  refused(subscriptionId: string): void {
    try {
      this.#refusals?.add(1, this.#attributes(subscriptionId));
    } catch (error) {
      this.#failed(error, subscriptionId);
    }
  }

  async #measure(
    attributes: Attributes,
    span: Span | undefined,
    handle: () => void | Promise<void>,
    failed: (error: unknown) => void,
  ): Promise<void> {
    const started = performance.now();
    let thrown: { readonly error: unknown } | undefined;
    try {
      await handle();
    } catch (error) {
      thrown = { error };
    }
    try {
      if (thrown === undefined) {
        this.#events?.add(1, attributes);
      }
      this.#handlerDuration?.record((performance.now() - started) / 1000, attributes);
    } catch (error) {
      failed(error);
    }
    if (span !== undefined) {
      endSpan(this.#telemetry.api.SpanStatusCode, span, thrown?.error, failed);
    }
    if (thrown !== undefined) {
      throw thrown.error;
    }
  }

  #attributes(subscriptionId: string): Attributes {
    return this.#telemetry.subscriptionIds ? { [ATTRIBUTE_NAMES.subscriptionId]: subscriptionId } : {};
  }
}
