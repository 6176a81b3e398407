import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CheckpointWriteCondition,
  CheckpointWriteConditionNotFulfilledError,
  PostgresCheckpointStorage,
} from '../../runtime/index.js';
import { checkLinearizability, HistoryRecorder, RecordingCheckpointStorage } from '../support/linearizability/index.js';
import { freshTableName, testPool, postgresForThisFile } from '../support/postgres/index.js';
import { concurrentModelProperty } from './model-based/run-concurrent-model.js';

const clientCount = 16;
const subscriptionIds = ['orders', 'payments', 'заказы-🧾'];

describe('model-based interleavings: PostgresCheckpointStorage on a real PostgreSQL server, 16 pool clients', () => {
  const postgres = postgresForThisFile();
  let pool: pg.Pool | undefined;
  /** Sixteen connections checked out of one pool for the whole suite; call n goes to connection n % 16. */
  const clients: pg.PoolClient[] = [];
  let table = '';

  beforeAll(async () => {
    pool = testPool(postgres.server(), { max: clientCount + 2 });
    table = freshTableName('model_based');
    await new PostgresCheckpointStorage(pool, { table }).createTable();
    for (let index = 0; index < clientCount; index += 1) {
      clients.push(await pool.connect());
    }
  });

  afterAll(async () => {
    for (const client of clients.splice(0)) {
      client.release();
    }
    await pool?.end();
  });

  const watcherClient = (): pg.Pool => {
    if (pool === undefined) {
      throw new Error('The PostgreSQL server of this suite did not start; see the beforeAll error.');
    }
    return pool;
  };

  const emptyStorages = async (): Promise<PostgresCheckpointStorage[]> => {
    await clients[0]?.query(`TRUNCATE "${table}"`);
    return clients.map((client) => new PostgresCheckpointStorage(client, { table }));
  };

  it('every scheduled interleaving over sixteen connections is linearizable', async () => {
    await fc.assert(concurrentModelProperty({ subscriptionIds, createStorages: emptyStorages }), { numRuns: 40 });
    // Real server and many runs: seconds alone, more on a loaded two-core machine.
  }, 120_000);

  it('shuffled tokens from sixteen connections at once: no accepted write lowers the version, the highest token wins', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: clientCount, max: 64 }).chain((writers) =>
          fc.shuffledSubarray(
            Array.from({ length: writers }, (_, index) => BigInt(index)),
            { minLength: writers, maxLength: writers },
          ),
        ),
        async (tokens) => {
          const storages = await emptyStorages();
          const recorder = new HistoryRecorder();
          const observed: bigint[] = [];
          const watching = { active: true };
          const watcher = (async () => {
            // On a connection of its own: a client runs one statement at a time.
            const reader = new RecordingCheckpointStorage(
              new PostgresCheckpointStorage(watcherClient(), { table }),
              recorder,
              'watcher',
            );
            while (watching.active) {
              const version = await reader.writeVersion('contended');
              if (version !== undefined) {
                observed.push(version);
              }
              // A read overlapping all sixteen writes multiplies the orders the checker must try; a few suffice.
              await new Promise((resolve) => setTimeout(resolve, 5));
            }
          })();
          // Sixteen writers, one per connection, each saving its share of the shuffled tokens one after another.
          const outcomes: { readonly token: bigint; readonly error?: unknown }[] = [];
          await Promise.all(
            Array.from({ length: clientCount }, async (_, writer) => {
              const storage = new RecordingCheckpointStorage(
                storages[writer] as PostgresCheckpointStorage,
                recorder,
                `writer-${writer}`,
              );
              for (let index = writer; index < tokens.length; index += clientCount) {
                const token = tokens[index] ?? 0n;
                try {
                  await storage.save('contended', `checkpoint-${token}`, CheckpointWriteCondition.notOlderThan(token));
                  outcomes.push({ token });
                } catch (error) {
                  outcomes.push({ token, error });
                }
              }
            }),
          );
          watching.active = false;
          await watcher;

          const highest = BigInt(tokens.length - 1);
          const [storage] = storages;
          await recorder.record('final', { kind: 'read', subscriptionId: 'contended' }, () =>
            (storage as PostgresCheckpointStorage).read('contended'),
          );
          expect(await storage?.read('contended')).toBe(`checkpoint-${highest}`);
          expect(await storage?.writeVersion('contended')).toBe(highest);
          for (const { token, error } of outcomes) {
            if (error !== undefined) {
              expect(error).toBeInstanceOf(CheckpointWriteConditionNotFulfilledError);
              const { storedVersion } = error as CheckpointWriteConditionNotFulfilledError;
              expect((storedVersion ?? -1n) > token).toBe(true);
            }
          }
          for (let index = 1; index < observed.length; index += 1) {
            expect((observed[index] ?? -1n) >= (observed[index - 1] ?? 0n)).toBe(true);
          }
          const report = checkLinearizability(recorder.history(), { maxStepsPerSubscription: 20_000_000 });
          expect(report.violations.map(({ explanation }) => explanation)).toEqual([]);
          expect(report.inconclusive).toEqual([]);
        },
      ),
      { numRuns: 25 },
    );
  }, 120_000);
});
