import type { Context, Span, SpanOptions, SpanStatusCode, Tracer } from '@opentelemetry/api';
import { ATTRIBUTE_NAMES } from './telemetry-names.js';
import type { TelemetryFailureReport } from './telemetry-options.js';

/**
 * A storage's or dual-anchor store's report, and any object's when it cannot make its instruments: a process warning
 * named `CheckpointFencingTelemetryWarning`, which `process.on('warning')` hears (ADR 2402).
 */
export function warnOfTelemetryFailure(error: Error): void {
  error.name = 'CheckpointFencingTelemetryWarning';
  process.emitWarning(error);
}

/**
 * One object's handler of what its telemetry throws while recording `what`: reports the first error, with it as the
 * `cause`, and drops the rest, which a broken span processor would throw on every write.
 */
export function reportOnce<Context extends readonly unknown[]>(
  what: string,
  report: TelemetryFailureReport<Context>,
): (error: unknown, ...context: Context) => void {
  let reported = false;
  return (error, ...context) => {
    if (reported) {
      return;
    }
    reported = true;
    report(
      telemetryError(
        `OpenTelemetry threw while recording ${what} (${messageOf(error)}); it went on as if nothing recorded it, and ` +
          'no later telemetry error of the same object is reported.',
        error,
      ),
      ...context,
    );
  };
}

/** The error an object reports when OpenTelemetry threw: the cause, what it broke, and what to do. */
export function telemetryError(what: string, cause: unknown): Error {
  return new Error(
    `checkpoint-fencing: ${what} A meter, tracer or span processor of the OpenTelemetry SDK registered or passed in ` +
      'is failing: fix or remove it (ADR 2402).',
    { cause },
  );
}

/**
 * Runs `run` inside an active span, or without one when starting it throws (a span processor's `onStart`, a parent
 * that is not a context): `failed` hears of that, and `run` runs once either way.
 */
export function inActiveSpan<T>(
  tracer: Tracer,
  name: string,
  options: SpanOptions,
  parent: Context,
  run: (span: Span | undefined) => Promise<T>,
  failed: (error: unknown) => void,
): Promise<T> {
  let running: Promise<T> | undefined;
  try {
    return tracer.startActiveSpan(name, options, parent, (span) => (running = run(span)));
  } catch (error) {
    failed(error);
    return running ?? run(undefined);
  }
}

/**
 * Ends `span` with its status: error with `error`'s message when the operation failed. A span processor's `onEnd`
 * that throws goes to `failed`, not to the operation.
 */
export function endSpan(
  statusCodes: typeof SpanStatusCode,
  span: Span,
  error: unknown,
  failed: (error: unknown) => void,
  outcome?: string,
): void {
  try {
    if (outcome !== undefined) {
      span.setAttribute(ATTRIBUTE_NAMES.outcome, outcome);
    }
    if (error !== undefined) {
      span.setStatus({ code: statusCodes.ERROR, message: messageOf(error) });
    }
    span.end();
  } catch (thrown) {
    failed(thrown);
  }
}

/** The text a span's error status carries. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
