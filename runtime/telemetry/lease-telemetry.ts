import type { Attributes, Counter, UpDownCounter } from '@opentelemetry/api';
import { resolveTelemetry, type Telemetry } from './resolve-telemetry.js';
import { ATTRIBUTE_NAMES, METRIC_NAMES } from './telemetry-names.js';
import type { TelemetryOptions } from './telemetry-options.js';

/** Counts one strategy's grants and losses and the leases it holds; held only when something records. */
export class LeaseTelemetry {
  readonly #subscriptionIds: boolean;
  readonly #grants: Counter;
  readonly #losses: Counter;
  readonly #held: UpDownCounter;

  private constructor(telemetry: Telemetry, meter: NonNullable<Telemetry['meter']>) {
    this.#subscriptionIds = telemetry.subscriptionIds;
    this.#grants = meter.createCounter(METRIC_NAMES.leaseGrants, {
      description: 'Leases this process was granted: each one is a hand-over to it, or its first grant.',
      unit: '{lease}',
    });
    this.#losses = meter.createCounter(METRIC_NAMES.leaseLosses, {
      description: 'Leases this process lost without giving them up: expired, deleted, or gone to another process.',
      unit: '{lease}',
    });
    this.#held = meter.createUpDownCounter(METRIC_NAMES.leaseHeld, {
      description: 'Leases this process holds now.',
      unit: '{lease}',
    });
  }

  /** The telemetry of a strategy made with `options`; `undefined` when no meter records. */
  static resolve(options: TelemetryOptions): LeaseTelemetry | undefined {
    const telemetry = resolveTelemetry(options);
    return telemetry?.meter === undefined ? undefined : new LeaseTelemetry(telemetry, telemetry.meter);
  }

  /** A lease of `subscriptionId` was granted to this process. */
  granted(subscriptionId: string): void {
    const attributes = this.#attributes(subscriptionId);
    this.#grants.add(1, attributes);
    this.#held.add(1, attributes);
  }

  /** A held lease ended: `lost` when the store took it away, not when this process gave it up. */
  ended(subscriptionId: string, lost: boolean): void {
    const attributes = this.#attributes(subscriptionId);
    if (lost) {
      this.#losses.add(1, attributes);
    }
    this.#held.add(-1, attributes);
  }

  #attributes(subscriptionId: string): Attributes {
    return this.#subscriptionIds ? { [ATTRIBUTE_NAMES.subscriptionId]: subscriptionId } : {};
  }
}
