/**
 * An OpenTelemetry `MeterProvider` (`@opentelemetry/api`'s, or an SDK's), declared here by its shape so that the
 * package's declarations compile in a project that does not install `@opentelemetry/api` (an optional peer).
 */
export interface TelemetryMeterProvider {
  /** Returns the meter the instruments are made from. */
  getMeter(name: string, version?: string, options?: object): object;
}

/** An OpenTelemetry `TracerProvider`, declared by its shape for the same reason as {@link TelemetryMeterProvider}. */
export interface TelemetryTracerProvider {
  /** Returns the tracer the spans are started from. */
  getTracer(name: string, version?: string, options?: object): object;
}

/**
 * An OpenTelemetry `Context` (`context.active()`, or one extracted from a message's headers), declared by its shape
 * for the same reason as {@link TelemetryMeterProvider}.
 */
export interface TelemetryContext {
  /** Reads one value of the context, such as its span. */
  getValue(key: symbol): unknown;
}

/**
 * Where storages, strategies and subscriptions record metrics and spans (doc/observability.md). Without these,
 * they use the global providers of `@opentelemetry/api` as registered when they are made; with no SDK registered,
 * or the API not installed, they record nothing and cost nothing.
 */
export interface TelemetryOptions {
  /** Records the metrics here instead of in the global meter provider. */
  readonly meterProvider?: TelemetryMeterProvider;
  /** Records the spans here instead of in the global tracer provider. */
  readonly tracerProvider?: TelemetryTracerProvider;
  /**
   * Adds `checkpoint_fencing.subscription.id` to every metric and span; off by default, since subscription ids can be
   * unbounded and each one is a time series of its own.
   */
  readonly recordSubscriptionIds?: boolean;
}

/**
 * Where an object reports what its telemetry threw (ADR 2402): its `onError`, or a process warning. Declared here, not
 * beside the guards that call it, so the public declarations never reach a module that names `@opentelemetry/api`.
 */
export type TelemetryFailureReport<Context extends readonly unknown[]> = (error: Error, ...context: Context) => void;
