export type { JsonObject, JsonValue } from './json-value.js';
export type { DualAnchorCheckpoint, DualAnchorToken } from './dual-anchor-checkpoint.js';
export type { DualAnchorCheckpointStore } from './dual-anchor-checkpoint-store.js';
export { DualAnchorCheckpointStoreBase } from './dual-anchor-checkpoint-store-base.js';
export { canonicalJson } from './canonical-json.js';
export {
  decodeDualAnchorCheckpoint,
  DualAnchorWritePlan,
  emptyStoredDualAnchorFields,
  encodeDualAnchorCheckpoint,
  storedFieldsAfterReset,
  type DualAnchorFieldWrite,
  type DualAnchorResetWrite,
  type StoredDualAnchorFields,
} from './dual-anchor-write-plan.js';
export { withReadModifyWriteDefaults, type MinimalDualAnchorCheckpointStore } from './read-modify-write-defaults.js';
export { noOpDualAnchorCheckpointStore } from './no-op-dual-anchor-checkpoint-store.js';
export { assertStreamName, assertWellFormedId } from './well-formed-id.js';
export { earliestTimestampMillis, latestTimestampMillis } from './timestamp.js';
