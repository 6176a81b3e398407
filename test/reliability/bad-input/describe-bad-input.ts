import { expect, it, describe } from 'vitest';
import { CheckpointWriteCondition, type CheckpointStorage } from '../../../runtime/index.js';
import { badStorageCalls } from './bad-storage-calls.js';

const { notOlderThan } = CheckpointWriteCondition;

/** A storage and, for Redis, a complete count of the keys it holds, so "nothing was written" covers every key. */
export interface StorageUnderTest {
  readonly create: () => Promise<CheckpointStorage>;
  readonly storedKeys?: () => Promise<number>;
}

/** Ids a coerced bad id would have been stored under, checked where the store cannot be counted (in memory). */
const coercedIds = ['42', 'undefined', 'null', 'orders', '[object Object]', 'overwritten', 'cp'];

/** Every row of {@link badStorageCalls} the storage has a method for, each followed by a check that nothing was written. */
export function describeBadInput(name: string, prototype: object, target: StorageUnderTest): void {
  describe(`${name}: bad input is refused with a TypeError and writes nothing`, () => {
    const rows = badStorageCalls.filter(
      ({ method }) => typeof (prototype as Record<string, unknown>)[method] === 'function',
    );

    it('has a row for every method of the contract the storage implements', () => {
      const methods = new Set(rows.map(({ method }) => method));
      expect([...methods].sort()).toEqual(
        ['delete', 'evaluatesWriteConditionsFor', 'read', 'resolveFirstCheckpointRace', 'save', 'writeVersion'].filter(
          (method) => typeof (prototype as Record<string, unknown>)[method] === 'function',
        ),
      );
    });

    for (const { label, call } of rows) {
      it(label, async () => {
        const storage = await target.create();
        await storage.save('victim', 'kept', notOlderThan(3));
        const keysBefore = await target.storedKeys?.();
        await expect((async () => call(storage))()).rejects.toThrow(TypeError);
        expect(await storage.read('victim')).toBe('kept');
        expect(await storage.writeVersion('victim')).toBe(3n);
        if (target.storedKeys === undefined) {
          for (const id of coercedIds) {
            expect(await storage.read(id), `checkpoint under ${JSON.stringify(id)}`).toBeUndefined();
          }
        } else {
          // A complete count: covers every key a coerced id or a stray version could have been written under.
          expect(await target.storedKeys()).toBe(keysBefore);
        }
      });
    }
  });
}
