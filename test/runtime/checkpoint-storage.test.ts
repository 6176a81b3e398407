import { describe, expect, it } from 'vitest';
import { evaluatesWriteConditions, evaluatesWriteConditionsFor, type CheckpointStorage } from '../../runtime/index.js';

function storage(
  capabilities: Partial<Pick<CheckpointStorage, 'evaluatesWriteConditions' | 'evaluatesWriteConditionsFor'>>,
): CheckpointStorage {
  return {
    read: () => Promise.resolve(undefined),
    save: (_id, checkpoint) => Promise.resolve(checkpoint),
    writeVersion: () => Promise.resolve(undefined),
    delete: () => Promise.resolve(),
    ...capabilities,
  };
}

describe('capability defaults', () => {
  it('a storage that does not say evaluates no conditions', () => {
    expect(evaluatesWriteConditions(storage({}))).toBe(false);
    expect(evaluatesWriteConditionsFor(storage({}), 'orders')).toBe(false);
  });

  it('the per-id answer falls back to the storage-wide one', () => {
    const capable = storage({ evaluatesWriteConditions: () => true });
    expect(evaluatesWriteConditions(capable)).toBe(true);
    expect(evaluatesWriteConditionsFor(capable, 'orders')).toBe(true);
  });

  it('a per-id answer wins over the storage-wide one', () => {
    const picky = storage({ evaluatesWriteConditions: () => true, evaluatesWriteConditionsFor: (id) => id !== '' });
    expect(evaluatesWriteConditionsFor(picky, 'orders')).toBe(true);
    expect(evaluatesWriteConditionsFor(picky, '')).toBe(false);
  });
});
