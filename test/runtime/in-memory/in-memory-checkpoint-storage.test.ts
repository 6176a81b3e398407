import { describe, expect, it } from 'vitest';
import { CheckpointWriteCondition, InMemoryCheckpointStorage } from '../../../runtime/index.js';
import { describeCheckpointStorageConformance } from '../../../runtime/testing/index.js';

const { any, notOlderThan, ifAbsent } = CheckpointWriteCondition;

describeCheckpointStorageConformance('InMemoryCheckpointStorage', () => new InMemoryCheckpointStorage());

describe('InMemoryCheckpointStorage', () => {
  it('evaluates every write condition', () => {
    expect(new InMemoryCheckpointStorage().evaluatesWriteConditions()).toBe(true);
  });

  describe('resolveFirstCheckpointRace', () => {
    const byOffset = (a: string, b: string): number => Number(a) - Number(b);

    it('keeps the earlier candidate over a pinned later start position', async () => {
      const storage = new InMemoryCheckpointStorage({ comparePositions: byOffset });
      await storage.save('orders', '40', ifAbsent());
      expect(await storage.resolveFirstCheckpointRace('orders', '12')).toBe('12');
      expect(await storage.read('orders')).toBe('12');
      expect(await storage.writeVersion('orders')).toBeUndefined();
    });

    it('keeps the pinned start position over a later candidate', async () => {
      const storage = new InMemoryCheckpointStorage({ comparePositions: byOffset });
      await storage.save('orders', '12', ifAbsent());
      expect(await storage.resolveFirstCheckpointRace('orders', '40')).toBe('12');
      expect(await storage.read('orders')).toBe('12');
    });

    it('stays resolvable across several racing candidates until a write moves the position', async () => {
      const storage = new InMemoryCheckpointStorage({ comparePositions: byOffset });
      await storage.save('orders', '40', ifAbsent());
      expect(await storage.resolveFirstCheckpointRace('orders', '30')).toBe('30');
      expect(await storage.resolveFirstCheckpointRace('orders', '20')).toBe('20');
      await storage.save('orders', '21', notOlderThan(1));
      expect(await storage.resolveFirstCheckpointRace('orders', '5')).toBeUndefined();
      expect(await storage.read('orders')).toBe('21');
    });

    it('does not resolve once an any() write has moved the position', async () => {
      const storage = new InMemoryCheckpointStorage({ comparePositions: byOffset });
      await storage.save('orders', '40', ifAbsent());
      await storage.save('orders', '41', any());
      expect(await storage.resolveFirstCheckpointRace('orders', '1')).toBeUndefined();
      expect(await storage.read('orders')).toBe('41');
    });

    it('does not resolve a checkpoint that was never pinned, nor an unknown id', async () => {
      const storage = new InMemoryCheckpointStorage({ comparePositions: byOffset });
      await storage.save('orders', '40', any());
      expect(await storage.resolveFirstCheckpointRace('orders', '1')).toBeUndefined();
      expect(await storage.resolveFirstCheckpointRace('unknown', '1')).toBeUndefined();
      expect(await storage.read('unknown')).toBeUndefined();
    });

    it('does not resolve without comparePositions', async () => {
      const storage = new InMemoryCheckpointStorage();
      await storage.save('orders', '40', ifAbsent());
      expect(await storage.resolveFirstCheckpointRace('orders', '1')).toBeUndefined();
      expect(await storage.read('orders')).toBe('40');
    });

    it('rejects bad input with a TypeError', async () => {
      const storage = new InMemoryCheckpointStorage({ comparePositions: byOffset });
      await expect(storage.resolveFirstCheckpointRace(42 as never, '1')).rejects.toThrow(TypeError);
      await expect(storage.resolveFirstCheckpointRace('orders', 1 as never)).rejects.toThrow(TypeError);
    });
  });

  it('rejects bad input asynchronously, never with a synchronous throw', () => {
    const storage = new InMemoryCheckpointStorage();
    const pending = storage.save(42 as never, 'cp', any());
    expect(pending).toBeInstanceOf(Promise);
    return expect(pending).rejects.toThrow('subscriptionId must be a string, got 42.');
  });

  it('tells a two-argument caller to pass a condition', async () => {
    const storage = new InMemoryCheckpointStorage();
    const twoArgumentSave = storage.save.bind(storage) as unknown as (
      id: string,
      checkpoint: string,
    ) => Promise<string>;
    await expect(twoArgumentSave('orders', 'cp')).rejects.toThrow(
      'condition must be a CheckpointWriteCondition, got undefined. save() takes three arguments: pass CheckpointWriteCondition.any() for an unconditional write.',
    );
  });
});
