import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { expect, vi, type MockInstance } from 'vitest';
import {
  CheckpointWriteCondition,
  CheckpointWriteConditionNotFulfilledError,
  type CheckpointStorage,
} from '../../../runtime/index.js';
import type { TelemetryMeterProvider } from '../../../runtime/telemetry/index.js';

const { any, notOlderThan } = CheckpointWriteCondition;

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

/** Four writes, one of each outcome a storage decides, each checked to end as the storage decided it. */
export async function writeEveryOutcome(storage: CheckpointStorage): Promise<void> {
  expect(await storage.save('orders', '1', notOlderThan(2))).toBe('1');
  await expect(storage.save('orders', '2', notOlderThan(1))).rejects.toThrow(CheckpointWriteConditionNotFulfilledError);
  await storage.advanceWriteVersion?.('orders', 3n);
  await expect(storage.save('orders', 42 as never, any())).rejects.toThrow(TypeError);
  expect(await storage.read('orders')).toBe('1');
  expect(await storage.writeVersion('orders')).toBe(3n);
}
