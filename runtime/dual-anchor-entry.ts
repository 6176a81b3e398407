// `checkpoint-fencing/dual-anchor`: the dual-anchor checkpoint contract (doc/dual-anchor.md), its base class and write
// plan, and the three stores that implement it. A package entry of its own, apart from the root, which a consumer of
// fenced checkpoints reads without it; its conformance kit is under `checkpoint-fencing/testing`.
export { assertStreamName } from './subscription-id.js';
export {
  canonicalJson,
  decodeDualAnchorCheckpoint,
  DualAnchorCheckpointStoreBase,
  DualAnchorWritePlan,
  emptyStoredDualAnchorFields,
  encodeDualAnchorCheckpoint,
  noOpDualAnchorCheckpointStore,
  storedFieldsAfterReset,
  withReadModifyWriteDefaults,
  type DualAnchorCheckpoint,
  type DualAnchorCheckpointStore,
  type DualAnchorFieldWrite,
  type DualAnchorResetWrite,
  type DualAnchorToken,
  type JsonObject,
  type JsonValue,
  type MinimalDualAnchorCheckpointStore,
  type StoredDualAnchorFields,
} from './dual-anchor/index.js';
export { InMemoryDualAnchorCheckpointStore } from './in-memory/index.js';
export {
  RedisDualAnchorCheckpointStore,
  type RedisDualAnchorCheckpointStoreOptions,
  type RedisDualAnchorClient,
} from './redis/index.js';
export { PostgresDualAnchorCheckpointStore, type PostgresDualAnchorCheckpointStoreOptions } from './postgres/index.js';
