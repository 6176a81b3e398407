import type { Counter, Histogram, UpDownCounter } from '@opentelemetry/api';
import { reportOnce, type TelemetryFailureReport } from './guarded-telemetry.js';
import { resolveTelemetry, type Telemetry } from './resolve-telemetry.js';
import { DURATION_BUCKETS_SECONDS, METRIC_NAMES } from './telemetry-names.js';
import type { TelemetryOptions } from './telemetry-options.js';

/**
 * Counts one `PartitionedSubscription`'s partitions, rebalances and hand-overs; held only when a meter records. What
 * OpenTelemetry throws never reaches the assignment: the first error goes to the subscription's `onError` (ADR 2402).
 */
export class PartitionTelemetry {
  readonly #owned: UpDownCounter;
  readonly #rebalances: Counter;
  readonly #handover: Histogram;
  readonly #unowned: Histogram;
  readonly #failed: (error: unknown) => void;

  private constructor(meter: NonNullable<Telemetry['meter']>, report: TelemetryFailureReport<[]>) {
    this.#failed = reportOnce('a partition grant, loss or hand-over', report);
    this.#owned = meter.createUpDownCounter(METRIC_NAMES.partitionsOwned, {
      description: 'Partitions whose leases this process holds now.',
      unit: '{partition}',
    });
    this.#rebalances = meter.createCounter(METRIC_NAMES.partitionRebalances, {
      description: 'Times this process found a new target assignment once the membership had settled.',
      unit: '{rebalance}',
    });
    const histogram = (name: string, description: string): Histogram =>
      meter.createHistogram(name, {
        description,
        unit: 's',
        advice: { explicitBucketBoundaries: DURATION_BUCKETS_SECONDS },
      });
    this.#handover = histogram(
      METRIC_NAMES.partitionHandoverDuration,
      'From a partition leaving this process (fetching stopped) to its lease released: drain and last checkpoint.',
    );
    this.#unowned = histogram(
      METRIC_NAMES.partitionUnownedDuration,
      'From a partition seen without an owner (released or expired) to its next grant, here.',
    );
  }

  /** The telemetry of a partitioned subscription made with `options`; `undefined` when no meter records. */
  static resolve(options: TelemetryOptions, report: TelemetryFailureReport<[]>): PartitionTelemetry | undefined {
    return resolveTelemetry(options, 'a partitioned subscription', (telemetry) =>
      telemetry.meter === undefined ? undefined : new PartitionTelemetry(telemetry.meter, report),
    );
  }

  /** A partition's lease was granted here, after `unownedSeconds` without an owner when known. */
  granted(unownedSeconds: number | undefined): void {
    this.#guard(() => {
      this.#owned.add(1);
      if (unownedSeconds !== undefined) {
        this.#unowned.record(unownedSeconds);
      }
    });
  }

  /** A partition's lease held here ended. */
  ended(): void {
    this.#guard(() => {
      this.#owned.add(-1);
    });
  }

  rebalanced(): void {
    this.#guard(() => {
      this.#rebalances.add(1);
    });
  }

  handedOver(seconds: number): void {
    this.#guard(() => {
      this.#handover.record(seconds);
    });
  }

  #guard(record: () => void): void {
    try {
      record();
    } catch (error) {
      this.#failed(error);
    }
  }
}
