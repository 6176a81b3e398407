import { describe as vitestDescribe, expect, it as vitestIt } from 'vitest';
import {
  CheckpointWriteCondition,
  CheckpointWriteConditionNotFulfilledError,
  evaluatesWriteConditions,
  UnsupportedWriteConditionError,
  type CheckpointStorage,
} from '../index.js';
import { expectRefused } from './expect-refused.js';
import { shuffled } from './shuffled.js';
import { untyped } from './untyped.js';

const { any, notOlderThan, ifAbsent } = CheckpointWriteCondition;

/** The suite-registration functions the kit needs; vitest's by default, or any runner with the same shape. */
export interface ConformanceSuiteOptions {
  readonly describe?: (name: string, body: () => void) => void;
  readonly it?: (name: string, body: () => Promise<void>, timeoutMs?: number) => void;
  /** Called after every case with the storage the factory made: close connections, drop keys. */
  readonly teardown?: (storage: CheckpointStorage) => void | Promise<void>;
  /** Number of concurrent writers in the concurrency case; 50 by default. */
  readonly concurrentWriters?: number;
  /**
   * Whether the storage rejects bad arguments with a `TypeError`; true by default. Pass false for a storage upgraded
   * by the add-write-conditions recipe: it keeps its pre-fencing methods' argument handling and accepts the
   * two-argument `save` as `any()`, so the bad-input section is replaced by a case that checks exactly that.
   */
  readonly validatesArguments?: boolean;
}

/** Makes a fresh, empty storage for one case. */
export type CheckpointStorageFactory = () => CheckpointStorage | Promise<CheckpointStorage>;

/**
 * Registers a suite that checks a `CheckpointStorage` against the contract: round trips, deletes, every condition
 * row, refusals that change nothing, the capability it claims, bad input, and concurrent fenced writers.
 * A storage that answers `evaluatesWriteConditions()` false is held to refusing every condition but `any()`.
 */
export function describeCheckpointStorageConformance(
  name: string,
  factory: CheckpointStorageFactory,
  options: ConformanceSuiteOptions = {},
): void {
  const describe = options.describe ?? vitestDescribe;
  const it = options.it ?? vitestIt;
  const writers = options.concurrentWriters ?? 50;

  const test = (title: string, body: (storage: CheckpointStorage) => Promise<void>, timeoutMs?: number): void => {
    it(
      title,
      async () => {
        const storage = await factory();
        try {
          await body(storage);
        } finally {
          await options.teardown?.(storage);
        }
      },
      timeoutMs,
    );
  };

  const conditional = (
    title: string,
    body: (storage: CheckpointStorage) => Promise<void>,
    timeoutMs?: number,
  ): void => {
    test(
      title,
      async (storage) => {
        if (evaluatesWriteConditions(storage)) {
          await body(storage);
        } else {
          await expectConditionsRefused(storage);
        }
      },
      timeoutMs,
    );
  };

  describe(`${name}: CheckpointStorage conformance`, () => {
    describe('round trips', () => {
      test('reads nothing for an unknown subscription id', async (storage) => {
        expect(await storage.read('never-saved')).toBeUndefined();
        expect(await storage.writeVersion('never-saved')).toBeUndefined();
      });

      test('reads the last checkpoint saved', async (storage) => {
        await storage.save('orders', '1', any());
        await storage.save('orders', '2', any());
        expect(await storage.read('orders')).toBe('2');
      });

      test('resolves save to the checkpoint it was given', async (storage) => {
        expect(await storage.save('orders', 'position-17', any())).toBe('position-17');
      });

      test('keeps two subscription ids apart', async (storage) => {
        await storage.save('orders', 'o-1', any());
        await storage.save('payments', 'p-1', any());
        expect(await storage.read('orders')).toBe('o-1');
        expect(await storage.read('payments')).toBe('p-1');
      });

      for (const [label, id] of [
        ['unicode', 'заказы-🧾-注文'],
        ['long', `orders-${'x'.repeat(2_000)}`],
        ['brace-laden', '{tenant}-orders{v2}}{'],
      ] as const) {
        test(`round-trips a ${label} id`, async (storage) => {
          await storage.save(id, `cp-${label}-✓`, any());
          expect(await storage.read(id)).toBe(`cp-${label}-✓`);
        });
      }

      test('round-trips an empty checkpoint and one with newlines', async (storage) => {
        await storage.save('empty', '', any());
        await storage.save('multiline', 'a\nb\r\nc', any());
        expect(await storage.read('empty')).toBe('');
        expect(await storage.read('multiline')).toBe('a\nb\r\nc');
      });
    });

    describe('deleting', () => {
      test('a deleted checkpoint is gone', async (storage) => {
        await storage.save('orders', '5', any());
        await storage.delete('orders');
        expect(await storage.read('orders')).toBeUndefined();
      });

      conditional('deleting removes the stored version too', async (storage) => {
        await storage.save('orders', '5', notOlderThan(9));
        await storage.delete('orders');
        expect(await storage.writeVersion('orders')).toBeUndefined();
        await storage.save('orders', '6', notOlderThan(1));
        expect(await storage.writeVersion('orders')).toBe(1n);
      });

      test('deleting an unknown id, or deleting twice, does nothing', async (storage) => {
        await storage.delete('never-saved');
        await storage.save('orders', '5', any());
        await storage.delete('orders');
        await storage.delete('orders');
        expect(await storage.read('orders')).toBeUndefined();
        expect(await storage.read('never-saved')).toBeUndefined();
      });

      test('deleting one id leaves another alone', async (storage) => {
        await storage.save('orders', 'o', any());
        await storage.save('payments', 'p', any());
        await storage.delete('orders');
        expect(await storage.read('payments')).toBe('p');
      });

      test('saving after a delete works', async (storage) => {
        await storage.save('orders', 'before', any());
        await storage.delete('orders');
        await storage.save('orders', 'after', any());
        expect(await storage.read('orders')).toBe('after');
      });
    });

    describe('any()', () => {
      test('writes over whatever is stored', async (storage) => {
        await storage.save('orders', 'first', any());
        await storage.save('orders', 'second', any());
        expect(await storage.read('orders')).toBe('second');
      });

      test('creates no version on a fresh id', async (storage) => {
        await storage.save('orders', '1', any());
        expect(await storage.writeVersion('orders')).toBeUndefined();
      });

      conditional(
        'keeps a stored version exactly as it was, so a later older token is still refused',
        async (storage) => {
          await storage.save('orders', '10', notOlderThan(9));
          await storage.save('orders', '11', any());
          expect(await storage.writeVersion('orders')).toBe(9n);
          expect(await storage.read('orders')).toBe('11');
          await expectRefused(storage.save('orders', '3', notOlderThan(4)), 'orders', 9n);
          expect(await storage.read('orders')).toBe('11');
        },
      );
    });

    describe('notOlderThan(v)', () => {
      conditional('is accepted when nothing is stored, and stores v', async (storage) => {
        expect(await storage.save('orders', '1', notOlderThan(3))).toBe('1');
        expect(await storage.writeVersion('orders')).toBe(3n);
      });

      conditional('is accepted over a checkpoint stored without a version, and stores v', async (storage) => {
        await storage.save('orders', 'legacy', any());
        await storage.save('orders', 'fenced', notOlderThan(0));
        expect(await storage.read('orders')).toBe('fenced');
        expect(await storage.writeVersion('orders')).toBe(0n);
      });

      conditional('is accepted for a newer version', async (storage) => {
        await storage.save('orders', '1', notOlderThan(3));
        await storage.save('orders', '2', notOlderThan(4));
        expect(await storage.read('orders')).toBe('2');
        expect(await storage.writeVersion('orders')).toBe(4n);
      });

      conditional('is accepted for an equal version', async (storage) => {
        await storage.save('orders', '1', notOlderThan(3));
        await storage.save('orders', '2', notOlderThan(3));
        expect(await storage.read('orders')).toBe('2');
        expect(await storage.writeVersion('orders')).toBe(3n);
      });

      conditional('is refused for an older version, leaving checkpoint and version unchanged', async (storage) => {
        await storage.save('orders', 'new-owner', notOlderThan(8));
        await expectRefused(storage.save('orders', 'zombie', notOlderThan(7)), 'orders', 8n);
        expect(await storage.read('orders')).toBe('new-owner');
        expect(await storage.writeVersion('orders')).toBe(8n);
      });

      conditional('compares versions beyond 2**53 exactly', async (storage) => {
        const big = 2n ** 63n - 2n;
        await storage.save('orders', 'big', notOlderThan(big));
        await storage.save('orders', 'bigger', notOlderThan(big + 1n));
        expect(await storage.writeVersion('orders')).toBe(big + 1n);
        const nearSafeLimit = 2n ** 53n + 1n;
        await storage.save('near', 'a', notOlderThan(nearSafeLimit));
        await expectRefused(storage.save('near', 'b', notOlderThan(2n ** 53n)), 'near', nearSafeLimit);
        expect(await storage.read('near')).toBe('a');
      });
    });

    describe('ifAbsent()', () => {
      conditional('is accepted when nothing is stored and stores no version', async (storage) => {
        expect(await storage.save('orders', 'start', ifAbsent())).toBe('start');
        expect(await storage.read('orders')).toBe('start');
        expect(await storage.writeVersion('orders')).toBeUndefined();
      });

      conditional('is refused when a checkpoint is stored, even with the same value', async (storage) => {
        await storage.save('orders', 'start', ifAbsent());
        await expectRefused(storage.save('orders', 'start', ifAbsent()), 'orders', undefined);
        await expectRefused(storage.save('orders', 'other', ifAbsent()), 'orders', undefined);
        expect(await storage.read('orders')).toBe('start');
      });

      conditional('is refused over a versioned checkpoint, carrying the stored version', async (storage) => {
        await storage.save('orders', 'fenced', notOlderThan(5));
        await expectRefused(storage.save('orders', 'start', ifAbsent()), 'orders', 5n);
        expect(await storage.read('orders')).toBe('fenced');
        expect(await storage.writeVersion('orders')).toBe(5n);
      });

      conditional('is accepted again after a delete', async (storage) => {
        await storage.save('orders', 'start', ifAbsent());
        await storage.delete('orders');
        await storage.save('orders', 'restart', ifAbsent());
        expect(await storage.read('orders')).toBe('restart');
      });
    });

    describe('advanceWriteVersion', () => {
      /** Runs `body` when the storage has the optional method; a storage without it is required to have nothing here. */
      const advancing = (title: string, body: (storage: AdvancingStorage) => Promise<void>): void => {
        test(title, async (storage) => {
          if (hasAdvanceWriteVersion(storage)) {
            await body(storage);
          } else {
            expect(typeof storage.advanceWriteVersion).toBe('undefined');
          }
        });
      };

      advancing(
        'a stale notOlderThan after an advance is refused, and the checkpoint is untouched',
        async (storage) => {
          await storage.save('orders', 'old-owner', notOlderThan(3));
          await storage.advanceWriteVersion('orders', 4n);
          expect(await storage.read('orders')).toBe('old-owner');
          expect(await storage.writeVersion('orders')).toBe(4n);
          await expectRefused(storage.save('orders', 'zombie', notOlderThan(3)), 'orders', 4n);
          expect(await storage.read('orders')).toBe('old-owner');
          expect(await storage.save('orders', 'new-owner', notOlderThan(4))).toBe('new-owner');
        },
      );

      advancing(
        'advances over a checkpoint stored without a version, leaving the checkpoint as it was',
        async (storage) => {
          await storage.save('orders', 'legacy', any());
          await storage.advanceWriteVersion('orders', 0n);
          expect(await storage.read('orders')).toBe('legacy');
          expect(await storage.writeVersion('orders')).toBe(0n);
        },
      );

      advancing('an equal advance is accepted; a lower one is refused and changes nothing', async (storage) => {
        await storage.save('orders', 'kept', notOlderThan(8));
        await storage.advanceWriteVersion('orders', 8n);
        const error = await storage.advanceWriteVersion('orders', 7n).then(
          () => undefined,
          (reason: unknown) => reason,
        );
        expect(error).toBeInstanceOf(CheckpointWriteConditionNotFulfilledError);
        const refusal = error as CheckpointWriteConditionNotFulfilledError;
        expect(refusal.subscriptionId).toBe('orders');
        expect(refusal.storedVersion).toBe(8n);
        expect(String(refusal.condition)).toBe('notOlderThan(7)');
        expect(await storage.read('orders')).toBe('kept');
        expect(await storage.writeVersion('orders')).toBe(8n);
      });

      advancing(
        'on an empty id it records a version with no checkpoint, which ifAbsent() keeps and notOlderThan honours',
        async (storage) => {
          await storage.advanceWriteVersion('orders', 5n);
          expect(await storage.read('orders')).toBeUndefined();
          expect(await storage.writeVersion('orders')).toBe(5n);
          await expectRefused(storage.save('orders', 'zombie', notOlderThan(4)), 'orders', 5n);
          expect(await storage.read('orders')).toBeUndefined();
          expect(await storage.save('orders', 'start', ifAbsent())).toBe('start');
          expect(await storage.read('orders')).toBe('start');
          expect(await storage.writeVersion('orders')).toBe(5n);
          await storage.save('orders', 'unfenced', any());
          expect(await storage.writeVersion('orders')).toBe(5n);
          await expectRefused(storage.save('orders', 'zombie', notOlderThan(4)), 'orders', 5n);
        },
      );

      advancing('delete clears a version recorded with no checkpoint', async (storage) => {
        await storage.advanceWriteVersion('orders', 5n);
        await storage.delete('orders');
        expect(await storage.writeVersion('orders')).toBeUndefined();
        await storage.save('orders', 'after', notOlderThan(1));
        expect(await storage.writeVersion('orders')).toBe(1n);
      });

      advancing('compares versions beyond 2**53 exactly', async (storage) => {
        const nearSafeLimit = 2n ** 53n + 1n;
        await storage.advanceWriteVersion('near', nearSafeLimit);
        await expectRefused(storage.save('near', 'b', notOlderThan(2n ** 53n)), 'near', nearSafeLimit);
        await storage.advanceWriteVersion('near', 2n ** 63n - 1n);
        expect(await storage.writeVersion('near')).toBe(2n ** 63n - 1n);
      });

      if (options.validatesArguments !== false) {
        for (const [label, id, version] of [
          ['a number id', 42, 1n],
          ['a number version', 'victim', 1],
          ['a negative version', 'victim', -1n],
          ['a string version', 'victim', '1'],
        ] as const) {
          advancing(`rejects ${label} with a TypeError and writes nothing`, async (storage) => {
            await expect(storage.advanceWriteVersion(untyped(id), untyped(version))).rejects.toThrow(TypeError);
            expect(await storage.writeVersion('victim')).toBeUndefined();
            expect(await storage.writeVersion('42')).toBeUndefined();
          });
        }
      }
    });

    describe('capability', () => {
      test('a storage that cannot evaluate conditions refuses them and still accepts any()', async (storage) => {
        if (evaluatesWriteConditions(storage)) {
          await storage.save('capable', '1', notOlderThan(1));
          expect(await storage.writeVersion('capable')).toBe(1n);
        } else {
          await expectConditionsRefused(storage);
        }
      });
    });

    if (options.validatesArguments === false) {
      describe('pre-fencing argument handling', () => {
        test('accepts the two-argument save as any() and stores no version', async (storage) => {
          const legacySave = storage.save.bind(storage) as unknown as TwoArgumentSave;
          expect(await legacySave('legacy', 'cp-1')).toBe('cp-1');
          expect(await storage.read('legacy')).toBe('cp-1');
          expect(await storage.writeVersion('legacy')).toBeUndefined();
        });
      });
    } else {
      describe('bad input gets a TypeError and writes nothing', () => {
        const badCalls: readonly (readonly [string, (storage: CheckpointStorage) => Promise<unknown>])[] = [
          ['a number subscription id to save', (s) => s.save(untyped(42), 'cp', any())],
          ['an undefined subscription id to save', (s) => s.save(untyped(undefined), 'cp', any())],
          ['a number checkpoint', (s) => s.save('victim', untyped(42), any())],
          ['a null checkpoint', (s) => s.save('victim', untyped(null), any())],
          ['an object checkpoint', (s) => s.save('victim', untyped({ position: 1 }), any())],
          [
            'no condition (the pre-fencing two-argument call)',
            (s) => (s.save.bind(s) as unknown as TwoArgumentSave)('victim', 'cp'),
          ],
          ['an unknown condition kind', (s) => s.save('victim', 'cp', untyped({ kind: 'always' }))],
          [
            'notOlderThan with a number version',
            (s) => s.save('victim', 'cp', untyped({ kind: 'notOlderThan', version: 7 })),
          ],
          [
            'notOlderThan with a string version',
            (s) => s.save('victim', 'cp', untyped({ kind: 'notOlderThan', version: '7' })),
          ],
          [
            'notOlderThan with a negative version',
            (s) => s.save('victim', 'cp', untyped({ kind: 'notOlderThan', version: -1n })),
          ],
          ['notOlderThan without a version', (s) => s.save('victim', 'cp', untyped({ kind: 'notOlderThan' }))],
          ['a string condition', (s) => s.save('victim', 'cp', untyped('any()'))],
          [
            'an id with a lone surrogate, which Redis would store as U+FFFD',
            (s) => s.save('victim\uD800', 'cp', any()),
          ],
          ['a fenced write to an id with a lone surrogate', (s) => s.save('victim\uDC00', 'cp', notOlderThan(1))],
          ['a checkpoint with a lone surrogate', (s) => s.save('victim', 'cp\uDBFF', any())],
          ['an id with a lone surrogate to read', (s) => s.read('victim\uD800')],
          ['a number id to read', (s) => s.read(untyped(42))],
          ['a number id to writeVersion', (s) => s.writeVersion(untyped(42))],
          ['a null id to delete', (s) => s.delete(untyped(null))],
        ];
        for (const [label, call] of badCalls) {
          test(`rejects ${label}`, async (storage) => {
            await expect(call(storage)).rejects.toThrow(TypeError);
            expect(await storage.read('victim')).toBeUndefined();
            expect(await storage.writeVersion('victim')).toBeUndefined();
            expect(await storage.read('42')).toBeUndefined();
            expect(await storage.read('victim\uFFFD')).toBeUndefined();
          });
        }

        conditional(
          'a condition is read once: a version getter answering 10n, then -5n on every later read, is judged and stored as 10n',
          async (storage) => {
            let reads = 0;
            const shifty = {
              kind: 'notOlderThan',
              get version(): bigint {
                reads += 1;
                return reads === 1 ? 10n : -5n;
              },
            };
            await storage.save('victim', 'cp', untyped(shifty));
            expect(await storage.writeVersion('victim')).toBe(10n);
            await expectRefused(storage.save('victim', 'stale', notOlderThan(9)), 'victim', 10n);
          },
        );

        test('a rejected call leaves an existing checkpoint and version unchanged', async (storage) => {
          const fenced = evaluatesWriteConditions(storage);
          await storage.save('victim', 'kept', fenced ? notOlderThan(3) : any());
          await expect(storage.save('victim', untyped(1), any())).rejects.toThrow(TypeError);
          await expect(storage.save('victim', 'lost', untyped({ kind: 'notOlderThan', version: 99 }))).rejects.toThrow(
            TypeError,
          );
          expect(await storage.read('victim')).toBe('kept');
          expect(await storage.writeVersion('victim')).toBe(fenced ? 3n : undefined);
        });
      });
    }

    describe('concurrency', () => {
      conditional(
        `${writers} concurrent writers with shuffled tokens end with the highest token, and the version never goes down`,
        async (storage) => {
          const tokens = shuffled(Array.from({ length: writers }, (_, index) => BigInt(index + 1)));
          const observed: bigint[] = [];
          const run = { active: true };
          const watcher = (async () => {
            while (run.active) {
              const version = await storage.writeVersion('contended');
              if (version !== undefined) {
                observed.push(version);
              }
              await new Promise<void>((resolve) => setImmediate(resolve));
            }
          })();
          const outcomes = await Promise.allSettled(
            tokens.map((token) => storage.save('contended', `checkpoint-${token}`, notOlderThan(token))),
          );
          run.active = false;
          await watcher;

          for (const [index, outcome] of outcomes.entries()) {
            if (outcome.status === 'rejected') {
              const refusal: unknown = outcome.reason;
              expect(refusal).toBeInstanceOf(CheckpointWriteConditionNotFulfilledError);
              const { storedVersion } = refusal as CheckpointWriteConditionNotFulfilledError;
              expect(storedVersion).toBeDefined();
              expect((storedVersion ?? 0n) > (tokens[index] ?? 0n)).toBe(true);
            }
          }
          expect(outcomes.some((outcome) => outcome.status === 'fulfilled')).toBe(true);
          expect(await storage.read('contended')).toBe(`checkpoint-${writers}`);
          expect(await storage.writeVersion('contended')).toBe(BigInt(writers));
          for (let index = 1; index < observed.length; index += 1) {
            expect((observed[index] ?? 0n) >= (observed[index - 1] ?? 0n)).toBe(true);
          }
        },
        60_000,
      );
    });
  });
}

type AdvancingStorage = CheckpointStorage & Required<Pick<CheckpointStorage, 'advanceWriteVersion'>>;

function hasAdvanceWriteVersion(storage: CheckpointStorage): storage is AdvancingStorage {
  return typeof storage.advanceWriteVersion === 'function';
}

type TwoArgumentSave = (subscriptionId: string, checkpoint: string) => Promise<unknown>;

async function expectConditionsRefused(storage: CheckpointStorage): Promise<void> {
  await storage.save('incapable', 'kept', any());
  await expect(storage.save('incapable', 'fenced', notOlderThan(7))).rejects.toThrow(UnsupportedWriteConditionError);
  await expect(storage.save('incapable', 'pinned', ifAbsent())).rejects.toThrow(UnsupportedWriteConditionError);
  await expect(storage.save('fresh', 'pinned', ifAbsent())).rejects.toThrow(UnsupportedWriteConditionError);
  expect(await storage.read('incapable')).toBe('kept');
  expect(await storage.read('fresh')).toBeUndefined();
  expect(await storage.save('incapable', 'still-writable', any())).toBe('still-writable');
}
