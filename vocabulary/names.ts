import type * as Runtime from '../runtime/index.js';
import type { CheckpointStorage } from '../runtime/index.js';

// The names the recipes and the lint rules read in users' code and write into it, in one place. Type-only imports tie
// them to the runtime without loading it: the lint plugin must stay cheap to load.

/** The npm package name: the module specifier users import the runtime from. */
export const PACKAGE_NAME = 'checkpoint-fencing';

/** Runtime value exports the recipes and rules recognise or write. */
export const RUNTIME_VALUE_EXPORTS = [
  'CheckpointWriteCondition',
  'CheckpointWriteConditionNotFulfilledError',
  'FencedCheckpointWriter',
  'UnsupportedWriteConditionError',
] as const satisfies readonly (keyof typeof Runtime)[];

/** Runtime type-only exports the recipes and rules recognise or write; a test checks the built index.d.ts has them. */
export const RUNTIME_TYPE_EXPORTS = ['CheckpointStorage', 'FencingToken', 'FencingTokenSource'] as const;

/** A runtime export the recipes or rules name. */
export type RuntimeExportName = (typeof RUNTIME_VALUE_EXPORTS)[number] | (typeof RUNTIME_TYPE_EXPORTS)[number];

/** Every member of `CheckpointStorage`, by name. */
export const STORAGE_MEMBER_NAMES = [
  'read',
  'save',
  'writeVersion',
  'delete',
  'evaluatesWriteConditions',
  'evaluatesWriteConditionsFor',
  'resolveFirstCheckpointRace',
  'advanceWriteVersion',
] as const satisfies readonly (keyof CheckpointStorage)[];

/** A member of `CheckpointStorage`. */
export type StorageMemberName = (typeof STORAGE_MEMBER_NAMES)[number];

/**
 * The default `tokenPattern` of the lint rules (case-insensitive): names that hold a fencing token or call a token
 * source. Anchored at the end, so `fencingTokenTtl` and `fencingTokenSource` are not tokens (doc/adr/0302).
 */
export const DEFAULT_TOKEN_PATTERN = 'fencing_?token$';
