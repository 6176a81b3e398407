import type { CheckpointWriteCondition } from '../../../runtime/index.js';
import type { CheckpointOperation, Completion } from './history.js';

/** What one subscription id holds in the sequential spec: nothing, or a checkpoint with an optional version. */
export type CheckpointState =
  | undefined
  | {
      readonly checkpoint: string;
      readonly version: bigint | undefined;
    };

/** Whether `condition` lets a save apply over `state`, exactly as the storage contract states it. */
export function conditionHolds(condition: CheckpointWriteCondition, state: CheckpointState): boolean {
  switch (condition.kind) {
    case 'any':
      return true;
    case 'ifAbsent':
      return state === undefined;
    case 'notOlderThan':
      return state?.version === undefined || state.version <= condition.version;
  }
}

/** The state after a save whose condition holds: `any()` keeps the version, `ifAbsent()` stores none, `notOlderThan(v)` stores v. */
export function stateAfterSave(
  checkpoint: string,
  condition: CheckpointWriteCondition,
  state: CheckpointState,
): CheckpointState {
  switch (condition.kind) {
    case 'any':
      return { checkpoint, version: state?.version };
    case 'ifAbsent':
      return { checkpoint, version: undefined };
    case 'notOlderThan':
      return { checkpoint, version: condition.version };
  }
}

/**
 * The states `operation` may leave behind when it takes effect on `state` and the caller observed `completion`;
 * empty when that observation is impossible from `state`. An unknown (`info`) outcome allows both "applied" and
 * "never applied"; a refused save changes nothing but must have found its condition false.
 */
export function statesAfter(
  operation: CheckpointOperation,
  completion: Completion,
  state: CheckpointState,
): readonly CheckpointState[] {
  switch (completion.type) {
    case 'info':
      return operation.kind === 'read' || operation.kind === 'writeVersion'
        ? [state]
        : uniqueStates([applyUnobserved(operation, state), state]);
    case 'fail':
      if (completion.reason === 'not-applied') {
        return [state];
      }
      return operation.kind === 'save' && !conditionHolds(operation.condition, state) ? [state] : [];
    case 'ok':
      return okStates(operation, completion.value, state);
  }
}

function okStates(
  operation: CheckpointOperation,
  value: string | bigint | undefined,
  state: CheckpointState,
): readonly CheckpointState[] {
  switch (operation.kind) {
    case 'read':
      return value === state?.checkpoint ? [state] : [];
    case 'writeVersion':
      return value === state?.version ? [state] : [];
    case 'delete':
      return [undefined];
    case 'save':
      return conditionHolds(operation.condition, state)
        ? [stateAfterSave(operation.checkpoint, operation.condition, state)]
        : [];
  }
}

function applyUnobserved(operation: CheckpointOperation, state: CheckpointState): CheckpointState {
  switch (operation.kind) {
    case 'read':
    case 'writeVersion':
      return state;
    case 'delete':
      return undefined;
    case 'save':
      return conditionHolds(operation.condition, state)
        ? stateAfterSave(operation.checkpoint, operation.condition, state)
        : state;
  }
}

/** A string equal for equal states and different otherwise, for memoising visited (linearized set, state) pairs. */
export function stateKey(state: CheckpointState): string {
  return state === undefined ? '-' : `${state.version ?? ''}|${state.checkpoint}`;
}

function uniqueStates(states: readonly CheckpointState[]): readonly CheckpointState[] {
  const seen = new Set<string>();
  return states.filter((state) => {
    const key = stateKey(state);
    if (seen.has(key)) {
      return false;
    }
    seen.add(key);
    return true;
  });
}
