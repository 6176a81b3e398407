export { CheckpointWriteConditionNotFulfilledError } from './checkpoint-write-condition-not-fulfilled-error.js';
export {
  CheckpointWriteNotReplicatedError,
  type CheckpointWriteNotReplicatedDetails,
} from './checkpoint-write-not-replicated-error.js';
export { NoLeaseHeldError } from './no-lease-held-error.js';
export { UnsupportedWriteConditionError } from './unsupported-write-condition-error.js';
export { StartPositionAlreadyPinnedError } from './start-position-already-pinned-error.js';
export { StorageCannotBeFencedError } from './storage-cannot-be-fenced-error.js';
