export type {
  CheckpointOperation,
  Completion,
  FailEvent,
  History,
  HistoryEvent,
  InfoEvent,
  InvokeEvent,
  OkEvent,
} from './history.js';
export { conditionHolds, stateAfterSave, stateKey, statesAfter, type CheckpointState } from './checkpoint-spec.js';
export {
  partitionBySubscription,
  type Boundary,
  type RecordedOperation,
  type SubscriptionHistory,
} from './partition-by-subscription.js';
export { searchLinearization, type SearchResult } from './search-linearization.js';
export {
  checkLinearizability,
  describeRecordedOperation,
  type CheckLinearizabilityOptions,
  type LinearizabilityReport,
  type LinearizabilityViolation,
} from './check-linearizability.js';
export { HistoryRecorder, mergeTimedEvents, mergeTimedHistories, type TimedHistoryEvent } from './history-recorder.js';
export { RecordingCheckpointStorage } from './recording-checkpoint-storage.js';
