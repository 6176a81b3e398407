// The names the recipes and the lint rules read in users' code and write into it, in one place. Each package compiles
// this folder into its own build, so nothing here imports the runtime; test/vocabulary/names-match-runtime.test.ts
// ties every name to the runtime's declarations instead (a renamed export or member fails `npm run typecheck`).

/** The npm package name: the module specifier users import the runtime from. */
export const PACKAGE_NAME = 'checkpoint-fencing';

/** The lint plugin's npm package name, which ESLint derives from `--plugin checkpoint-fencing`. */
export const ESLINT_PLUGIN_PACKAGE_NAME = 'eslint-plugin-checkpoint-fencing';

/** The codemod's npm package name, also its bin: `npx checkpoint-fencing-codemod upgrade`. */
export const CODEMOD_PACKAGE_NAME = 'checkpoint-fencing-codemod';

/** The operator commands' npm package name, also a bin of theirs: `npx checkpoint-fencing-cli inspect`. */
export const CLI_PACKAGE_NAME = 'checkpoint-fencing-cli';

/** The module specifier of the runtime's dual-anchor entry: the contract, its base class and the stores. */
export const DUAL_ANCHOR_MODULE = 'checkpoint-fencing/dual-anchor';

/** The module specifiers the runtime names the rules recognise are imported from: the root and the dual-anchor entry. */
export const RUNTIME_MODULES: readonly string[] = [PACKAGE_NAME, DUAL_ANCHOR_MODULE];

/** Runtime value exports the recipes and rules recognise or write. */
export const RUNTIME_VALUE_EXPORTS = [
  'CheckpointStorageBase',
  'CheckpointWriteCondition',
  'CheckpointWriteConditionNotFulfilledError',
  'DualAnchorCheckpointStoreBase',
  'FencedCheckpointWriter',
  'storedFieldsAfterReset',
  'UnsupportedWriteConditionError',
] as const;

/** Runtime type-only exports the recipes and rules recognise or write; a test checks the built index.d.ts has them. */
export const RUNTIME_TYPE_EXPORTS = [
  'CheckpointStorage',
  'DualAnchorCheckpointStore',
  'FencingToken',
  'FencingTokenSource',
] as const;

/** A runtime export the recipes or rules name. */
export type RuntimeExportName = (typeof RUNTIME_VALUE_EXPORTS)[number] | (typeof RUNTIME_TYPE_EXPORTS)[number];

/** The runtime exports above that {@link DUAL_ANCHOR_MODULE} exports, not the package root; the root has the others. */
export const DUAL_ANCHOR_EXPORTS = [
  'DualAnchorCheckpointStoreBase',
  'storedFieldsAfterReset',
  'DualAnchorCheckpointStore',
] as const satisfies readonly RuntimeExportName[];

/** The type of a write condition, named in the parameter lists generated code writes. */
export const CONDITION_TYPE = 'CheckpointWriteCondition' satisfies RuntimeExportName;

/** The error a storage that cannot evaluate a condition refuses it with, as generated code does. */
export const UNSUPPORTED_ERROR = 'UnsupportedWriteConditionError' satisfies RuntimeExportName;

/** Every member of `CheckpointStorage`, by name. */
export const STORAGE_MEMBER_NAMES = [
  'read',
  'save',
  'writeVersion',
  'delete',
  'evaluatesWriteConditions',
  'evaluatesWriteConditionsFor',
  'assertSubscriptionId',
  'resolveFirstCheckpointRace',
  'advanceWriteVersion',
] as const;

/** A member of `CheckpointStorage`. */
export type StorageMemberName = (typeof STORAGE_MEMBER_NAMES)[number];

/** Every member of `DualAnchorCheckpointStore`, by name. */
export const DUAL_ANCHOR_STORE_MEMBER_NAMES = [
  'save',
  'findByStreamName',
  'delete',
  'saveSeen',
  'saveProcessed',
  'saveHeartbeat',
  'resetAfterHistoryLost',
  'evaluatesWriteConditions',
] as const;

/** A member of `DualAnchorCheckpointStore`. */
export type DualAnchorStoreMemberName = (typeof DUAL_ANCHOR_STORE_MEMBER_NAMES)[number];

/** The partial operations of `DualAnchorCheckpointStore`: each must upsert only its own fields in one atomic write. */
export const DUAL_ANCHOR_PARTIAL_OPERATIONS = [
  'saveSeen',
  'saveProcessed',
  'saveHeartbeat',
  'resetAfterHistoryLost',
] as const satisfies readonly DualAnchorStoreMemberName[];

/** A partial operation of `DualAnchorCheckpointStore`. */
export type DualAnchorPartialOperation = (typeof DUAL_ANCHOR_PARTIAL_OPERATIONS)[number];

/** Every field of `DualAnchorCheckpoint`, by name. */
export const DUAL_ANCHOR_RECORD_FIELD_NAMES = [
  'streamName',
  'instanceId',
  'lastSeenToken',
  'lastSeenTimestamp',
  'lastProcessedToken',
  'lastProcessedTimestamp',
  'lastHeartbeatTimestamp',
  'metadata',
] as const;

/** A field of `DualAnchorCheckpoint`. */
export type DualAnchorRecordFieldName = (typeof DUAL_ANCHOR_RECORD_FIELD_NAMES)[number];

/**
 * The protected steps a `DualAnchorCheckpointStoreBase` subclass writes: `writeFields` and `writeReset` are its atomic
 * writes, `readRecord` and `removeRecord` its read and delete.
 */
export const DUAL_ANCHOR_BASE_STEP_NAMES = ['writeFields', 'writeReset', 'readRecord', 'removeRecord'] as const;

/** A protected step of `DualAnchorCheckpointStoreBase`. */
export type DualAnchorBaseStepName = (typeof DUAL_ANCHOR_BASE_STEP_NAMES)[number];

/**
 * The default `tokenPattern` of the lint rules (case-insensitive): names that hold a fencing token or call a token
 * source. Anchored at the end, so `fencingTokenTtl` and `fencingTokenSource` are not tokens (doc/adr/0302).
 */
export const DEFAULT_TOKEN_PATTERN = 'fencing_?token$';
