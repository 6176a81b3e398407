import type { Attributes, Context, Counter, Gauge, Histogram, Span, Tracer } from '@opentelemetry/api';
import type { TelemetryContext } from './telemetry-options.js';
import { messageOf } from './checkpoint-write-telemetry.js';
import { resolveTelemetry, type Telemetry } from './resolve-telemetry.js';
import { ATTRIBUTE_NAMES, DURATION_BUCKETS_SECONDS, METRIC_NAMES, SPAN_NAMES } from './telemetry-names.js';
import type { TelemetryOptions } from './telemetry-options.js';

/** What a handled event tells telemetry: where its trace goes on and how far behind its source is. */
export interface TracedEvent {
  readonly traceContext?: TelemetryContext;
  readonly lag?: number;
}

/** Counts, times and traces one `DurableSubscription`'s handled events and refusals; held only when something records. */
export class SubscriptionTelemetry {
  readonly #telemetry: Telemetry;
  readonly #events: Counter | undefined;
  readonly #handlerDuration: Histogram | undefined;
  readonly #refusals: Counter | undefined;
  readonly #lag: Gauge | undefined;

  private constructor(telemetry: Telemetry) {
    this.#telemetry = telemetry;
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

  /** The telemetry of a subscription made with `options`; `undefined` when nothing would record. */
  static resolve(options: TelemetryOptions): SubscriptionTelemetry | undefined {
    const telemetry = resolveTelemetry(options);
    return telemetry === undefined ? undefined : new SubscriptionTelemetry(telemetry);
  }

  /**
   * Runs `handle` inside a `checkpoint_fencing.subscription.handle` span, a child of the event's `traceContext`
   * (else of the active context), times it, counts it once it returns, and records the lag the event reports.
   */
  handle(subscriptionId: string, event: TracedEvent, handle: () => void | Promise<void>): Promise<void> {
    const attributes = this.#attributes(subscriptionId);
    if (event.lag !== undefined) {
      this.#lag?.record(event.lag, attributes);
    }
    const tracer: Tracer | undefined = this.#telemetry.tracer;
    if (tracer === undefined) {
      return this.#measure(attributes, undefined, handle);
    }
    const { api } = this.#telemetry;
    const parent = (event.traceContext as Context | undefined) ?? api.context.active();
    return tracer.startActiveSpan(
      SPAN_NAMES.subscriptionHandle,
      { attributes, kind: api.SpanKind.CONSUMER },
      parent,
      (span) => this.#measure(attributes, span, handle),
    );
  }

  /** A run of `subscriptionId` ended on a refused checkpoint write. */
  refused(subscriptionId: string): void {
    this.#refusals?.add(1, this.#attributes(subscriptionId));
  }

  async #measure(attributes: Attributes, span: Span | undefined, handle: () => void | Promise<void>): Promise<void> {
    const started = performance.now();
    try {
      await handle();
      this.#events?.add(1, attributes);
    } catch (error) {
      span?.setStatus({ code: this.#telemetry.api.SpanStatusCode.ERROR, message: messageOf(error) });
      throw error;
    } finally {
      this.#handlerDuration?.record((performance.now() - started) / 1000, attributes);
      span?.end();
    }
  }

  #attributes(subscriptionId: string): Attributes {
    return this.#telemetry.subscriptionIds ? { [ATTRIBUTE_NAMES.subscriptionId]: subscriptionId } : {};
  }
}
