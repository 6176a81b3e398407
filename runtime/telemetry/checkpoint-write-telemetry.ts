import type { Attributes, Counter, Histogram, Span } from '@opentelemetry/api';
import type { CheckpointWriteCondition } from '../checkpoint-write-condition.js';
import { CheckpointWriteConditionNotFulfilledError } from '../errors/checkpoint-write-condition-not-fulfilled-error.js';
import { CheckpointWriteNotReplicatedError } from '../errors/checkpoint-write-not-replicated-error.js';
import { resolveTelemetry, type Telemetry } from './resolve-telemetry.js';
import {
  ATTRIBUTE_NAMES,
  DURATION_BUCKETS_SECONDS,
  METRIC_NAMES,
  SPAN_NAMES,
  type DualAnchorName,
  type StorageBackend,
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
 * ({@link CheckpointWriteTelemetry.resolve}), and otherwise calls its write directly.
 */
export class CheckpointWriteTelemetry {
  readonly #telemetry: Telemetry;
  readonly #backend: StorageBackend;
  readonly #writes: Counter | undefined;
  readonly #duration: Histogram | undefined;

  private constructor(telemetry: Telemetry, backend: StorageBackend) {
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

  /** The telemetry of a `backend` storage made with `options`; `undefined` when nothing would record. */
  static resolve(backend: StorageBackend, options: TelemetryOptions): CheckpointWriteTelemetry | undefined {
    const telemetry = resolveTelemetry(options);
    return telemetry === undefined ? undefined : new CheckpointWriteTelemetry(telemetry, backend);
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
    const tracer = this.#telemetry.tracer;
    return tracer === undefined
      ? this.#measure(attributes, undefined, write)
      : tracer.startActiveSpan(SPAN_NAMES.checkpointWrite, { attributes }, (span) =>
          this.#measure(attributes, span, write),
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
    this.#writes?.add(1, settled);
    this.#duration?.record((performance.now() - started) / 1000, settled);
    if (span === undefined) {
      return;
    }
    span.setAttribute(ATTRIBUTE_NAMES.outcome, outcome);
    if (error !== undefined) {
      span.setStatus({ code: this.#telemetry.api.SpanStatusCode.ERROR, message: messageOf(error) });
    }
    span.end();
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

/** The text a span's error status carries. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
