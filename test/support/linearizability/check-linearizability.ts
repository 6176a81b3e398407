import type { CheckpointState } from './checkpoint-spec.js';
import type { History } from './history.js';
import { partitionBySubscription, type RecordedOperation } from './partition-by-subscription.js';
import { searchLinearization } from './search-linearization.js';

/** Options of {@link checkLinearizability}. */
export interface CheckLinearizabilityOptions {
  /** Search steps allowed per subscription id before giving up as inconclusive; 5 million by default. */
  readonly maxStepsPerSubscription?: number;
}

/** One subscription id whose history no sequential order explains, with what the search got stuck on. */
export interface LinearizabilityViolation {
  readonly subscriptionId: string;
  readonly linearizedPrefix: number;
  readonly stateAfterPrefix: CheckpointState;
  readonly stuckOperation: RecordedOperation;
  /** One sentence naming the operation, what it observed and the state the spec was in. */
  readonly explanation: string;
}

/** The verdict over a whole history, and per subscription id the order found when there is one. */
export interface LinearizabilityReport {
  readonly valid: boolean;
  readonly violations: readonly LinearizabilityViolation[];
  /** Subscription ids whose search ran out of steps: neither proven nor refuted, so never counted as valid. */
  readonly inconclusive: readonly string[];
  /** Per subscription id, the operations in one valid order, each with the state it left behind. */
  readonly witnesses: ReadonlyMap<
    string,
    readonly { readonly operation: RecordedOperation; readonly state: CheckpointState }[]
  >;
  readonly operationsChecked: number;
  readonly steps: number;
}

/**
 * Checks a recorded history against the sequential checkpoint spec, one subscription id at a time. `valid` is
 * true only when every id has a linearization; an inconclusive id makes it false.
 */
export function checkLinearizability(
  history: History,
  options: CheckLinearizabilityOptions = {},
): LinearizabilityReport {
  const maxSteps = options.maxStepsPerSubscription ?? 5_000_000;
  const violations: LinearizabilityViolation[] = [];
  const inconclusive: string[] = [];
  const witnesses = new Map<string, { operation: RecordedOperation; state: CheckpointState }[]>();
  let operationsChecked = 0;
  let steps = 0;
  for (const part of partitionBySubscription(history)) {
    operationsChecked += part.operations.length;
    const result = searchLinearization(part, maxSteps);
    steps += result.steps;
    switch (result.verdict) {
      case 'linearizable':
        witnesses.set(
          part.subscriptionId,
          result.witness.map(({ operation, state }) => ({
            operation: part.operations[operation] as RecordedOperation,
            state,
          })),
        );
        break;
      case 'inconclusive':
        inconclusive.push(part.subscriptionId);
        break;
      case 'not-linearizable':
        violations.push({
          subscriptionId: part.subscriptionId,
          linearizedPrefix: result.linearizedPrefix,
          stateAfterPrefix: result.stateAfterPrefix,
          stuckOperation: result.stuckOperation,
          explanation: explain(
            part.subscriptionId,
            result.stuckOperation,
            result.linearizedPrefix,
            result.stateAfterPrefix,
          ),
        });
        break;
    }
  }
  return {
    valid: violations.length === 0 && inconclusive.length === 0,
    violations,
    inconclusive,
    witnesses,
    operationsChecked,
    steps,
  };
}

/** Renders an operation as `save("7", notOlderThan(3)) -> ok` for reports. */
export function describeRecordedOperation(recorded: RecordedOperation): string {
  const { operation, completion } = recorded;
  const call =
    operation.kind === 'save'
      ? `save(${JSON.stringify(operation.checkpoint)}, ${formatCondition(operation)})`
      : `${operation.kind}()`;
  const outcome =
    completion.type === 'ok'
      ? completion.value === undefined
        ? 'ok'
        : `ok ${typeof completion.value === 'bigint' ? `${completion.value}n` : JSON.stringify(completion.value)}`
      : completion.type === 'fail'
        ? `fail (${completion.reason})`
        : 'info (unknown outcome)';
  return `${recorded.process}: ${call} -> ${outcome}`;
}

function formatCondition(operation: {
  readonly condition: { readonly kind: string; readonly version?: bigint };
}): string {
  const { condition } = operation;
  return condition.kind === 'notOlderThan' ? `notOlderThan(${condition.version})` : `${condition.kind}()`;
}

function explain(subscriptionId: string, stuck: RecordedOperation, prefix: number, state: CheckpointState): string {
  const stored =
    state === undefined
      ? 'nothing stored'
      : `${JSON.stringify(state.checkpoint)} at version ${state.version ?? 'none'}`;
  return (
    `Subscription ${JSON.stringify(subscriptionId)} is not linearizable: after the longest valid order of ${prefix} operations ` +
    `(${stored}), [${describeRecordedOperation(stuck)}] (history event ${stuck.position}) cannot take effect before it returned.`
  );
}
