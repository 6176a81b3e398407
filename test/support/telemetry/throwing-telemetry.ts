import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { vi, type MockInstance } from 'vitest';
import type { TelemetryMeterProvider } from '../../../runtime/telemetry/index.js';

/** A span processor that throws from `onStart` or from `onEnd`, as the adversarial review's did; it counts its throws. */
export class ThrowingSpanProcessor implements SpanProcessor {
  thrown = 0;
  readonly #throwsIn: 'onStart' | 'onEnd';

  constructor(throwsIn: 'onStart' | 'onEnd') {
    this.#throwsIn = throwsIn;
  }

  onStart(): void {
    this.#throwIn('onStart');
  }

  onEnd(): void {
    this.#throwIn('onEnd');
  }

  async forceFlush(): Promise<void> {}

  async shutdown(): Promise<void> {}

  #throwIn(hook: 'onStart' | 'onEnd'): void {
    if (hook === this.#throwsIn) {
      this.thrown += 1;
      throw new Error(`span processor ${hook} failed`);
    }
  }
}

/**
 * A meter provider whose meter throws creating any instrument (`create`), or whose instruments throw from every
 * `add` and `record` (`record`); `thrown` counts the throws.
 */
export class ThrowingMeterProvider implements TelemetryMeterProvider {
  thrown = 0;
  readonly #meter: object;

  constructor(throwsIn: 'create' | 'record') {
    const fail = (): never => {
      this.thrown += 1;
      throw new Error(`meter ${throwsIn} failed`);
    };
    const instrument = { add: fail, record: fail };
    const create = throwsIn === 'create' ? fail : (): object => instrument;
    this.#meter = { createCounter: create, createHistogram: create, createUpDownCounter: create, createGauge: create };
  }

  getMeter(): object {
    return this.#meter;
  }
}

/** Spies on `process.emitWarning`, where a storage reports what its telemetry threw, and keeps the warnings quiet. */
export function spyOnWarnings(): MockInstance<typeof process.emitWarning> {
  return vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
}
