import type * as OpenTelemetryApi from '@opentelemetry/api';
import { createRequire } from 'node:module';
import { join } from 'node:path';
// names.js, not the folder's index: its package-docs module is ESM only, and this one is in the CommonJS build.
import { PACKAGE_NAME } from '../../vocabulary/names.js';
import { messageOf, telemetryError, warnOfTelemetryFailure } from './guarded-telemetry.js';
import type { TelemetryOptions } from './telemetry-options.js';

/** `@opentelemetry/api`, the optional peer. */
export type OpenTelemetry = typeof OpenTelemetryApi;

/** Where one storage, strategy or subscription records: at least one of `meter` and `tracer` records. */
export interface Telemetry {
  readonly api: OpenTelemetry;
  /** `undefined` when no meter provider records (no SDK registered). */
  readonly meter: OpenTelemetryApi.Meter | undefined;
  /** `undefined` when no tracer provider records. */
  readonly tracer: OpenTelemetryApi.Tracer | undefined;
  readonly subscriptionIds: boolean;
}

/** Options whose instruments could not be made, warned of once: a storage's bindings to transactions share theirs. */
const failedOptions = new WeakSet<TelemetryOptions>();

/** The API once looked for: `null` when it is not installed. */
let loadedApi: OpenTelemetry | null | undefined;

/**
 * What `make` builds over where to record: `options`' providers, else the global ones as registered now. `undefined`
 * when nothing would record (the API not installed, or no SDK registered), so that callers skip every instrument and
 * pay nothing; also when a provider or meter throws while `owner` makes its instruments, which is a process warning:
 * telemetry never stops a storage, strategy or subscription from being made (ADR 2402).
 */
export function resolveTelemetry<T>(
  options: TelemetryOptions,
  owner: string,
  make: (telemetry: Telemetry) => T,
): T | undefined {
  const api = openTelemetryApi();
  if (api === undefined) {
    return undefined;
  }
  try {
    const meterProvider =
      (options.meterProvider as OpenTelemetryApi.MeterProvider | undefined) ?? api.metrics.getMeterProvider();
    const meter = meterProvider.getMeter(PACKAGE_NAME);
    const tracer = recordingTracer(
      (options.tracerProvider as OpenTelemetryApi.TracerProvider | undefined) ?? api.trace.getTracerProvider(),
    );
    const recordingMeter = meter === api.createNoopMeter() ? undefined : meter;
    if (recordingMeter === undefined && tracer === undefined) {
      return undefined;
    }
    return make({ api, meter: recordingMeter, tracer, subscriptionIds: options.recordSubscriptionIds === true });
  } catch (error) {
    if (!failedOptions.has(options)) {
      failedOptions.add(options);
      warnOfTelemetryFailure(
        telemetryError(
          `OpenTelemetry threw while ${owner} made its instruments (${messageOf(error)}), so it records nothing.`,
          error,
        ),
      );
    }
    return undefined;
  }
}

/**
 * Loads the optional peer on first use and keeps the answer. A guarded `require` rather than an `import`: the runtime
 * is one CommonJS build (ADR 0707), where a static import of a missing package fails the whole module at load, and
 * an `import()` would make resolving a storage's instruments asynchronous (ADR 2401). Where it is installed but cannot
 * be loaded (a bundler's stand-in for `require` refuses a dynamic one), a process warning says so once and nothing
 * records: telemetry never stops a storage from being made (ADR 2402).
 */
function openTelemetryApi(): OpenTelemetry | undefined {
  if (loadedApi === undefined) {
    try {
      loadedApi = moduleRequire()('@opentelemetry/api') as OpenTelemetry;
    } catch (error) {
      loadedApi = null;
      if ((error as { code?: unknown }).code !== 'MODULE_NOT_FOUND') {
        warnOfTelemetryFailure(
          new Error(
            `${PACKAGE_NAME}: @opentelemetry/api could not be loaded (${messageOf(error)}), so nothing records ` +
              'telemetry. In a bundle, leave the require of it to Node (with @rollup/plugin-commonjs, set ' +
              'ignoreDynamicRequires).',
            { cause: error },
          ),
        );
      }
    }
  }
  return loadedApi ?? undefined;
}

/**
 * The package's own `require`. Only these sources run as ES modules (the repository's tests under vitest) have none:
 * it resolves from the working directory, the repository root when they run.
 */
function moduleRequire(): NodeJS.Require {
  return typeof require === 'function' ? require : createRequire(join(process.cwd(), 'noop.js'));
}

/**
 * The tracer of `provider`, or `undefined` when it would only make no-op spans: the global provider is a proxy that
 * answers a no-op tracer until an SDK registers its own, and says so through `getDelegateTracer`. Tested by shape,
 * not `instanceof`, since an ESM and a CommonJS copy of the API share one global provider.
 */
function recordingTracer(provider: OpenTelemetryApi.TracerProvider): OpenTelemetryApi.Tracer | undefined {
  const proxy = provider as { getDelegateTracer?: (name: string) => OpenTelemetryApi.Tracer | undefined };
  return typeof proxy.getDelegateTracer === 'function'
    ? proxy.getDelegateTracer(PACKAGE_NAME)
    : provider.getTracer(PACKAGE_NAME);
}
