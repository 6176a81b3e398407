import { describe, expect, it } from 'vitest';
import {
  CheckpointWriteCondition,
  CheckpointWriteConditionNotFulfilledError,
  FencedCheckpointWriter,
  InMemoryCheckpointStorage,
  NoLeaseHeldError,
  StartPositionAlreadyPinnedError,
  StorageCannotBeFencedError,
  UnsupportedWriteConditionError,
  type Checkpoint,
  type CheckpointStorage,
  type CheckpointWriteCondition as Condition,
} from '../../runtime/index.js';

/** Records every call so tests can assert exactly what reached the storage. */
class RecordingStorage implements CheckpointStorage {
  readonly saves: { subscriptionId: string; checkpoint: Checkpoint; condition: string }[] = [];
  readonly inner: CheckpointStorage;

  constructor(
    inner: CheckpointStorage = new InMemoryCheckpointStorage(),
    private readonly capability: { all?: boolean; perId?: (id: string) => boolean } = { all: true },
  ) {
    this.inner = inner;
  }

  read(subscriptionId: string): Promise<Checkpoint | undefined> {
    return this.inner.read(subscriptionId);
  }

  save(subscriptionId: string, checkpoint: Checkpoint, condition: Condition): Promise<Checkpoint> {
    this.saves.push({ subscriptionId, checkpoint, condition: String(condition) });
    return this.inner.save(subscriptionId, checkpoint, condition);
  }

  writeVersion(subscriptionId: string): Promise<bigint | undefined> {
    return this.inner.writeVersion(subscriptionId);
  }

  delete(subscriptionId: string): Promise<void> {
    return this.inner.delete(subscriptionId);
  }

  evaluatesWriteConditions(): boolean {
    return this.capability.all ?? false;
  }

  evaluatesWriteConditionsFor(subscriptionId: string): boolean {
    return this.capability.perId?.(subscriptionId) ?? this.evaluatesWriteConditions();
  }
}

/** A pre-fencing storage after the upgrade recipe: any() only, honest about it. */
class UnconditionalStorage implements CheckpointStorage {
  readonly #map = new Map<string, Checkpoint>();

  async read(subscriptionId: string): Promise<Checkpoint | undefined> {
    return this.#map.get(subscriptionId);
  }

  async save(subscriptionId: string, checkpoint: Checkpoint, condition: Condition): Promise<Checkpoint> {
    if (condition.kind !== 'any') {
      throw new UnsupportedWriteConditionError(condition);
    }
    this.#map.set(subscriptionId, checkpoint);
    return checkpoint;
  }

  async writeVersion(): Promise<bigint | undefined> {
    return undefined;
  }

  async delete(subscriptionId: string): Promise<void> {
    this.#map.delete(subscriptionId);
  }
}

describe('FencedCheckpointWriter', () => {
  describe('save', () => {
    it('stamps every write with the token asked for right before it', async () => {
      const storage = new RecordingStorage();
      let token = 3n;
      let asked = 0;
      const writer = new FencedCheckpointWriter(storage, {
        fencingToken: (id) => {
          expect(id).toBe('orders');
          asked += 1;
          return token;
        },
      });
      await writer.save('orders', '1');
      token = 4n;
      await writer.save('orders', '2');
      expect(asked).toBe(2);
      expect(storage.saves.map((save) => save.condition)).toEqual(['notOlderThan(3)', 'notOlderThan(4)']);
      expect(await storage.writeVersion('orders')).toBe(4n);
    });

    it('awaits an async token source and accepts a number token', async () => {
      const storage = new RecordingStorage();
      const writer = new FencedCheckpointWriter(storage, { fencingToken: async () => Promise.resolve(12) });
      expect(await writer.save('orders', 'a')).toBe('a');
      expect(storage.saves[0]?.condition).toBe('notOlderThan(12)');
    });

    it.each([
      ['answers', () => undefined],
      ['resolves', async () => Promise.resolve(undefined)],
    ])(
      'sends nothing and rejects with NoLeaseHeldError when the token source %s undefined',
      async (_, fencingToken) => {
        const storage = new RecordingStorage();
        await storage.save('orders', 'new-holder', CheckpointWriteCondition.notOlderThan(1n));
        const writer = new FencedCheckpointWriter(storage, { fencingToken });
        const error: unknown = await writer.save('orders', 'zombie').catch((reason: unknown) => reason);
        expect(error).toBeInstanceOf(NoLeaseHeldError);
        expect(error).toBeInstanceOf(CheckpointWriteConditionNotFulfilledError);
        expect(error).toMatchObject({
          name: 'NoLeaseHeldError',
          subscriptionId: 'orders',
          condition: CheckpointWriteCondition.any(),
          storedVersion: undefined,
        });
        expect((error as Error).message).toBe(
          'Checkpoint write for subscription "orders" not sent: this node holds no lease for it (the fencing-token source ' +
            'answered undefined, as after a release, a shutdown, an expiry or a refusal), and a write without a token would ' +
            'be unconditional. The checkpoint was left unchanged; do not retry this write: the new holder of the lease ' +
            'resumes from the stored checkpoint.',
        );
        expect(storage.saves).toHaveLength(1);
        expect(await storage.read('orders')).toBe('new-holder');
        expect(await storage.writeVersion('orders')).toBe(1n);
      },
    );

    it('writes again, fenced, once the token source has a token again', async () => {
      const storage = new RecordingStorage();
      const lease: { token?: bigint } = {};
      const writer = new FencedCheckpointWriter(storage, { fencingToken: () => lease.token });
      await expect(writer.save('orders', 'a')).rejects.toBeInstanceOf(NoLeaseHeldError);
      lease.token = 2n;
      await writer.save('orders', 'b');
      expect(storage.saves.map((save) => save.condition)).toEqual(['notOlderThan(2)']);
    });

    it('lets a refusal reach the caller without catching or retrying it', async () => {
      const storage = new RecordingStorage();
      await new FencedCheckpointWriter(storage, { fencingToken: () => 8n }).save('orders', 'new-owner');
      const zombie = new FencedCheckpointWriter(storage, { fencingToken: () => 7n });
      await expect(zombie.save('orders', 'zombie')).rejects.toBeInstanceOf(CheckpointWriteConditionNotFulfilledError);
      expect(storage.saves).toHaveLength(2);
      expect(await storage.read('orders')).toBe('new-owner');
    });

    it('surfaces a bad token from the source as a RangeError and writes nothing', async () => {
      const storage = new RecordingStorage();
      const writer = new FencedCheckpointWriter(storage, { fencingToken: () => -1 });
      await expect(writer.save('orders', 'a')).rejects.toThrow(RangeError);
      expect(storage.saves).toHaveLength(0);
    });

    it('rejects a non-string id or checkpoint with a TypeError before asking for a token', async () => {
      let asked = 0;
      const writer = new FencedCheckpointWriter(new RecordingStorage(), {
        fencingToken: () => {
          asked += 1;
          return 1n;
        },
      });
      await expect(writer.save(1 as never, 'a')).rejects.toThrow(TypeError);
      await expect(writer.save('orders', 1 as never)).rejects.toThrow(TypeError);
      expect(asked).toBe(0);
    });
  });

  describe('refusing to be silently unfenced', () => {
    it.each([
      ['no options', undefined],
      ['no fencingToken', {}],
      ['an undefined fencingToken', { fencingToken: undefined }],
      ['a token instead of a source', { fencingToken: 3n }],
    ])('refuses at construction %s, with a TypeError that spells out the unfenced write', (_, options) => {
      const make = () => new FencedCheckpointWriter(new RecordingStorage(), options as never);
      expect(make).toThrow(TypeError);
      expect(make).toThrow(
        /^FencedCheckpointWriter needs a fencingToken function, got .*: it writes nothing without a token\. .*storage\.save\(id, checkpoint, CheckpointWriteCondition\.any\(\)\)\.$/,
      );
    });

    it('refuses at construction a storage that cannot evaluate conditions', () => {
      expect(() => new FencedCheckpointWriter(new UnconditionalStorage(), { fencingToken: () => 1n })).toThrow(
        StorageCannotBeFencedError,
      );
      expect(() => new FencedCheckpointWriter(new UnconditionalStorage(), { fencingToken: () => 1n })).toThrow(
        /^UnconditionalStorage cannot be fenced/,
      );
    });

    it('refuses per id before the first write when the storage cannot fence that id', async () => {
      const storage = new RecordingStorage(undefined, { all: true, perId: (id) => id !== '{}orders' });
      let asked = 0;
      const writer = new FencedCheckpointWriter(storage, {
        fencingToken: () => {
          asked += 1;
          return 1n;
        },
      });
      await expect(writer.save('{}orders', 'a')).rejects.toThrow(StorageCannotBeFencedError);
      await expect(writer.saveStartPosition('{}orders', 'a')).rejects.toThrow(StorageCannotBeFencedError);
      expect(storage.saves).toHaveLength(0);
      expect(asked).toBe(0);
      await writer.save('{tenant}orders', 'b');
      expect(storage.saves).toHaveLength(1);
    });

    it('refuses a per-id-incapable id even when the token source has no token for it', async () => {
      const storage = new RecordingStorage(undefined, { all: true, perId: () => false });
      const writer = new FencedCheckpointWriter(storage, { fencingToken: () => undefined });
      await expect(writer.save('orders', 'a')).rejects.toThrow(StorageCannotBeFencedError);
      expect(storage.saves).toHaveLength(0);
    });

    it('asks the per-id capability once per id', async () => {
      const asked: string[] = [];
      const storage = new RecordingStorage(undefined, {
        all: true,
        perId: (id) => {
          asked.push(id);
          return true;
        },
      });
      const writer = new FencedCheckpointWriter(storage, { fencingToken: () => 1n });
      await writer.save('orders', '1');
      await writer.save('orders', '2');
      await writer.save('payments', '1');
      expect(asked).toEqual(['orders', 'payments']);
    });
  });

  describe('saveStartPosition', () => {
    it('pins a first position with ifAbsent(), a token or none', async () => {
      const storage = new RecordingStorage();
      const writer = new FencedCheckpointWriter(storage, { fencingToken: () => undefined });
      expect(await writer.saveStartPosition('orders', 'start')).toBe('start');
      expect(storage.saves).toEqual([{ subscriptionId: 'orders', checkpoint: 'start', condition: 'ifAbsent()' }]);
    });

    it('returns what resolveFirstCheckpointRace keeps when the pin was refused', async () => {
      const inner = new InMemoryCheckpointStorage({ comparePositions: (a, b) => Number(a) - Number(b) });
      const writer = new FencedCheckpointWriter(inner, { fencingToken: () => 1n });
      await writer.saveStartPosition('orders', '40');
      expect(await writer.saveStartPosition('orders', '12')).toBe('12');
      expect(await writer.saveStartPosition('orders', '30')).toBe('12');
      expect(await inner.read('orders')).toBe('12');
    });

    it('rejects with StartPositionAlreadyPinnedError when the storage cannot resolve the race', async () => {
      const writer = new FencedCheckpointWriter(new InMemoryCheckpointStorage(), { fencingToken: () => 1n });
      await writer.saveStartPosition('orders', '40');
      const error = await writer.saveStartPosition('orders', '12').catch((reason: unknown) => reason);
      expect(error).toBeInstanceOf(StartPositionAlreadyPinnedError);
      expect((error as StartPositionAlreadyPinnedError).candidate).toBe('12');
    });

    it('rejects with StartPositionAlreadyPinnedError when resolveFirstCheckpointRace is absent', async () => {
      const inner = new InMemoryCheckpointStorage();
      await inner.save('orders', 'stored', CheckpointWriteCondition.any());
      const bare: CheckpointStorage = {
        read: (id) => inner.read(id),
        save: (id, cp, condition) => inner.save(id, cp, condition),
        writeVersion: (id) => inner.writeVersion(id),
        delete: (id) => inner.delete(id),
        evaluatesWriteConditions: () => true,
      };
      const writer = new FencedCheckpointWriter(bare, { fencingToken: () => 1n });
      await expect(writer.saveStartPosition('orders', 'mine')).rejects.toBeInstanceOf(StartPositionAlreadyPinnedError);
    });

    it('lets any other failure through unchanged', async () => {
      const failure = new Error('connection lost');
      const storage = new RecordingStorage();
      storage.save = () => Promise.reject(failure);
      const writer = new FencedCheckpointWriter(storage, { fencingToken: () => 1n });
      await expect(writer.saveStartPosition('orders', 'start')).rejects.toBe(failure);
    });
  });
});
