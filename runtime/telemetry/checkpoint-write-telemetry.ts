import type { Attributes, Counter, Histogram, Span } from '@opentelemetry/api';
import type { CheckpointWriteCondition } from '../checkpoint-write-condition.js';
import { CheckpointWriteConditionNotFulfilledError } from '../errors/checkpoint-write-condition-not-fulfilled-error.js';
import { CheckpointWriteNotReplicatedError } from '../errors/checkpoint-write-not-replicated-error.js';
import { endSpan, inActiveSpan, reportOnce, warnOfTelemetryFailure } from './guarded-telemetry.js';
import { resolveTelemetry, type Telemetry } from './resolve-telemetry.js';
import {
  ATTRIBUTE_NAMES,
  DURATION_BUCKETS_SECONDS,
  METRIC_NAMES,
  SPAN_NAMES,
  type DualAnchorName,
} from './telemetry-names.js';
import type { TelemetryOptions } from './telemetry-options.js';

/** How `advanceWriteVersion` is recorded: as the `notOlderThan` write it is, though it stores no checkpoint. */
export const advanceWriteVersionCondition = { kind: 'notOlderThan' } as const;

/** The condition of a recorded write, by kind alone. */
type RecordedCondition = Pick<CheckpointWriteCondition, 'kind'>;

type WriteOutcome = 'accepted' | 'refused' | 'not_replicated' | 'error';

const conditionNames: ReadonlyMap<unknown, string> = new Map<CheckpointWriteCondition['kind'], string>([
  ['any', 'any'],
  ['notOlderThan', 'not_older_than'],
  ['ifAbsent', 'if_absent'],
]);

/**
 * Counts, times and traces one storage's writes. A storage holds one only when something records
 * ({@link CheckpointWriteTelemetry.resolve}), and otherwise calls its write directly. What OpenTelemetry throws never
 * reaches the write: the first error is a process warning (ADR 2402).
 */
export class CheckpointWriteTelemetry {
  readonly #telemetry: Telemetry;
  readonly #backend: string;
  readonly #writes: Counter | undefined;
  readonly #duration: Histogram | undefined;
  readonly #failed = reportOnce('a checkpoint write', warnOfTelemetryFailure);

  private constructor(telemetry: Telemetry, backend: string) {
    this.#telemetry = telemetry;
    this.#backend = backend;
    this.#writes = telemetry.meter?.createCounter(METRIC_NAMES.checkpointWrites, {
      description: 'Checkpoint writes, by outcome: a refused one is a write a newer fencing token stopped.',
      unit: '{write}',
    });
    this.#duration = telemetry.meter?.createHistogram(METRIC_NAMES.checkpointWriteDuration, {
      description: 'How long a checkpoint write took, from the call to its answer.',
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS_SECONDS },
    });
  }

  /**
   * The telemetry of a storage whose writes carry `backend` (`checkpoint_fencing.backend`), made with `options`;
   * `undefined` when nothing would record.
   */
  static resolve(backend: string, options: TelemetryOptions): CheckpointWriteTelemetry | undefined {
    return resolveTelemetry(
      options,
      `the ${backend} storage`,
      (telemetry) => new CheckpointWriteTelemetry(telemetry, backend),
    );
  }

  /** Runs `write` inside a `checkpoint_fencing.checkpoint.write` span, and counts and times it by its outcome. */
  record<T>(
    subscriptionId: string,
    condition: RecordedCondition | undefined,
    anchor: DualAnchorName | undefined,
    write: () => Promise<T>,
  ): Promise<T> {
    const attributes: Attributes = { [ATTRIBUTE_NAMES.backend]: this.#backend };
    const conditionName = conditionNameOf(condition);
    if (conditionName !== undefined) {
      attributes[ATTRIBUTE_NAMES.condition] = conditionName;
    }
    if (anchor !== undefined) {
      attributes[ATTRIBUTE_NAMES.anchor] = anchor;
    }
    if (this.#telemetry.subscriptionIds) {
      attributes[ATTRIBUTE_NAMES.subscriptionId] = subscriptionId;
    }
    const { api, tracer } = this.#telemetry;
    return tracer === undefined
      ? this.#measure(attributes, undefined, write)
      : inActiveSpan(
          tracer,
          SPAN_NAMES.checkpointWrite,
          { attributes },
          api.context.active(),
          (span) => this.#measure(attributes, span, write),
          this.#failed,
        );
  }

  async #measure<T>(attributes: Attributes, span: Span | undefined, write: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      const written = await write();
      this.#settle(attributes, span, started, 'accepted', undefined);
      return written;
    } catch (error) {
      this.#settle(attributes, span, started, outcomeOf(error), error);
      throw error;
    }
  }

  #settle(
    attributes: Attributes,
    span: Span | undefined,
    started: number,
    outcome: WriteOutcome,
    error: unknown,
  ): void {
    const settled = { ...attributes, [ATTRIBUTE_NAMES.outcome]: outcome };
    try {
      this.#writes?.add(1, settled);
      this.#duration?.record((performance.now() - started) / 1000, settled);
    } catch (thrown) {
      this.#failed(thrown);
    }
    if (span !== undefined) {
      endSpan(this.#telemetry.api.SpanStatusCode, span, error, this.#failed, outcome);
    }
  }
}

/**
 * A dual-anchor write without a condition is unconditional. An argument that is not a condition at all (the write
 * refuses it) gets no condition attribute, and reading it must not throw before the write can reject.
 */
function conditionNameOf(condition: RecordedCondition | undefined): string | undefined {
  return condition === undefined ? 'any' : conditionNames.get((condition as { readonly kind?: unknown } | null)?.kind);
}

function outcomeOf(error: unknown): WriteOutcome {
  if (error instanceof CheckpointWriteConditionNotFulfilledError) {
    return 'refused';
  }
  return error instanceof CheckpointWriteNotReplicatedError ? 'not_replicated' : 'error';
}
