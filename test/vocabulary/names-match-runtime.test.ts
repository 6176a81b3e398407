import { describe, expect, it } from 'vitest';
import * as dualAnchor from '../../runtime/dual-anchor-entry.js';
import type { DualAnchorCheckpoint, DualAnchorCheckpointStoreBase } from '../../runtime/dual-anchor-entry.js';
import * as runtime from '../../runtime/index.js';
import type { CheckpointStorage } from '../../runtime/index.js';
import {
  DUAL_ANCHOR_BASE_STEP_NAMES,
  DUAL_ANCHOR_EXPORTS,
  DUAL_ANCHOR_RECORD_FIELD_NAMES,
  DUAL_ANCHOR_STORE_MEMBER_NAMES,
  RUNTIME_VALUE_EXPORTS,
  STORAGE_MEMBER_NAMES,
  type DualAnchorBaseStepName,
  type RuntimeExportName,
} from '../../vocabulary/index.js';

// The vocabulary is compiled into the plugin and the codemod, so it cannot import the runtime. These tests tie its
// names to the runtime instead, at compile time (each index below fails `npm run typecheck` for a renamed name) and at
// run time; test/package checks the built declarations of the runtime tarball against the same lists.

/** Protected members are not in `keyof`; indexing the class by each step name is a compile error for a renamed one. */
type BaseStep = DualAnchorCheckpointStoreBase[DualAnchorBaseStepName];

describe("the vocabulary's names", () => {
  it('are value exports of the runtime, of checkpoint-fencing/dual-anchor where DUAL_ANCHOR_EXPORTS says, else of the root', () => {
    const ofDualAnchor = new Set<RuntimeExportName>(DUAL_ANCHOR_EXPORTS);
    const entryOf = (name: RuntimeExportName): object => (ofDualAnchor.has(name) ? dualAnchor : runtime);
    expect(RUNTIME_VALUE_EXPORTS.filter((name) => !(name in entryOf(name)))).toEqual([]);
    expect(DUAL_ANCHOR_EXPORTS.filter((name) => name in runtime)).toEqual([]);
  });

  it("are the members of the runtime's storages and dual-anchor stores", () => {
    // Some storage members are optional, so an instance need not have them: the compiler checks these names.
    const storageMembers: readonly (keyof CheckpointStorage)[] = STORAGE_MEMBER_NAMES;
    expect(new Set(storageMembers).size).toBe(STORAGE_MEMBER_NAMES.length);
    const store = new dualAnchor.InMemoryDualAnchorCheckpointStore();
    expect(DUAL_ANCHOR_STORE_MEMBER_NAMES.filter((name) => !(name in store))).toEqual([]);
    const steps = DUAL_ANCHOR_BASE_STEP_NAMES.map((name) => Reflect.get(store, name) as BaseStep | undefined);
    expect(steps.filter((step) => typeof step !== 'function')).toEqual([]);
  });

  it("are the fields of the runtime's dual-anchor record", () => {
    const fields: readonly (keyof DualAnchorCheckpoint)[] = DUAL_ANCHOR_RECORD_FIELD_NAMES;
    expect(new Set(fields).size).toBe(DUAL_ANCHOR_RECORD_FIELD_NAMES.length);
  });
});
