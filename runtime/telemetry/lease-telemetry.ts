import type { Attributes, Counter, UpDownCounter } from '@opentelemetry/api';
import { reportOnce } from './guarded-telemetry.js';
import { resolveTelemetry, type Telemetry } from './resolve-telemetry.js';
import { ATTRIBUTE_NAMES, METRIC_NAMES } from './telemetry-names.js';
import type { TelemetryFailureReport, TelemetryOptions } from './telemetry-options.js';

type LeaseContext = [subscriptionId: string, subscriberId: string];

/**
 * Counts one strategy's grants and losses and the leases it holds; held only when something records. What
 * OpenTelemetry throws never reaches a grant or a loss: the first error goes to the strategy's `onError`.
 */
export class LeaseTelemetry {
  readonly #subscriptionIds: boolean;
  readonly #grants: Counter;
  readonly #losses: Counter;
  readonly #held: UpDownCounter;
  readonly #failed: (error: unknown, ...context: LeaseContext) => void;

  private constructor(
    telemetry: Telemetry,
    meter: NonNullable<Telemetry['meter']>,
    report: TelemetryFailureReport<LeaseContext>,
  ) {
    this.#subscriptionIds = telemetry.subscriptionIds;
    this.#failed = reportOnce('a lease grant or loss', report);
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

  /**
   * The telemetry of a strategy made with `options`, which reports what OpenTelemetry throws to `report`; `undefined`
   * when no meter records.
   */
  static resolve(options: TelemetryOptions, report: TelemetryFailureReport<LeaseContext>): LeaseTelemetry | undefined {
    return resolveTelemetry(options, 'a lease strategy', (telemetry) =>
      telemetry.meter === undefined ? undefined : new LeaseTelemetry(telemetry, telemetry.meter, report),
    );
  }

  /** A lease of `subscriptionId` was granted to `subscriberId` in this process. */
  granted(subscriptionId: string, subscriberId: string): void {
    const attributes = this.#attributes(subscriptionId);
    try {
      this.#grants.add(1, attributes);
      this.#held.add(1, attributes);
    } catch (error) {
      this.#failed(error, subscriptionId, subscriberId);
    }
  }

  /** A held lease ended: `lost` when the store took it away, not when this process gave it up. */
  ended(subscriptionId: string, subscriberId: string, lost: boolean): void {
    const attributes = this.#attributes(subscriptionId);
    try {
      if (lost) {
        this.#losses.add(1, attributes);
      }
      this.#held.add(-1, attributes);
    } catch (error) {
      this.#failed(error, subscriptionId, subscriberId);
    }
  }

  #attributes(subscriptionId: string): Attributes {
    return this.#subscriptionIds ? { [ATTRIBUTE_NAMES.subscriptionId]: subscriptionId } : {};
  }
}
