import { describe, expect, it } from 'vitest';
import { CheckpointWriteCondition, UnsupportedWriteConditionError } from '../../../runtime/index.js';
import { noOpDualAnchorCheckpointStore } from '../../../runtime/dual-anchor-entry.js';
import { describeDualAnchorCheckpointStoreConformance } from '../../../runtime/testing/index.js';

describeDualAnchorCheckpointStoreConformance('noOpDualAnchorCheckpointStore()', () => noOpDualAnchorCheckpointStore(), {
  persists: false,
});

describe('noOpDualAnchorCheckpointStore()', () => {
  it('is one shared, frozen instance', () => {
    const store = noOpDualAnchorCheckpointStore();
    expect(noOpDualAnchorCheckpointStore()).toBe(store);
    expect(Object.isFrozen(store)).toBe(true);
  });

  it('names the condition it cannot evaluate', async () => {
    await expect(
      noOpDualAnchorCheckpointStore().saveHeartbeat('orders', new Date(0), CheckpointWriteCondition.notOlderThan(3)),
    ).rejects.toThrow(new UnsupportedWriteConditionError(CheckpointWriteCondition.notOlderThan(3)).message);
  });
});
