// The fixes the rules suggest, written as the codemod writes its edits: the upgrade of a storage that ignores the
// write condition, and imports from checkpoint-fencing in the file's own style. Above the recognisers, below the rules.
export * from './runtime-imports.js';
export * from './storage-upgrade.js';
export * from './text-edits.js';
