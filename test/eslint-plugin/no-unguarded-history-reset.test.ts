import { noUnguardedHistoryReset } from '../../eslint-plugin/rules/no-unguarded-history-reset.js';
import { syntacticRuleTester, typeAwareRuleTester } from './rule-tester.js';

syntacticRuleTester().run('no-unguarded-history-reset', noUnguardedHistoryReset, {
  valid: [
    {
      name: "the reference's JDBC reset: the guard is a CASE inside the one upsert",
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
export class JdbcAnchors implements DualAnchorCheckpointStore {
  async resetAfterHistoryLost(streamName, freshSeenToken, expectedDeadProcessed, timestamp) {
    const hasFresh = freshSeenToken !== null;
    await this.jdbc.update(
      'INSERT INTO fw_checkpoints (stream_name, last_seen_token, last_seen_ts, last_heartbeat_ts) VALUES (?, ?, ?, ?) ' +
        'ON CONFLICT (stream_name) DO UPDATE SET last_seen_token = EXCLUDED.last_seen_token, ' +
        'last_processed_token = CASE WHEN fw_checkpoints.last_processed_token IS NOT DISTINCT FROM ? THEN NULL ELSE fw_checkpoints.last_processed_token END',
      streamName,
      hasFresh ? JSON.stringify(freshSeenToken) : null,
      expectedDeadProcessed === null ? null : JSON.stringify(expectedDeadProcessed),
    );
  }
}
      `,
    },
    {
      name: 'Mongo: the guard in the update filter, and a Redis Lua script with the guard inside',
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
export class MongoAnchors implements DualAnchorCheckpointStore {
  async resetAfterHistoryLost(streamName, fresh, expected, timestamp) {
    await this.collection.updateOne({ _id: streamName }, { $set: { lastSeenToken: fresh } }, { upsert: true });
    await this.collection.updateOne({ _id: streamName, lastProcessedToken: expected }, { $unset: { lastProcessedToken: '' } });
  }
}
export const redisAnchors: DualAnchorCheckpointStore = {
  async resetAfterHistoryLost(streamName, fresh, expected, timestamp) {
    await redis.evalsha(RESET_SHA, 1, streamName, expected === null ? '' : JSON.stringify(expected), JSON.stringify(fresh));
  },
};
      `,
    },
    {
      name: "an in-memory store compares and writes in one synchronous step; the base class's plan argument is compared",
      code: `
import { DualAnchorCheckpointStoreBase } from 'checkpoint-fencing/dual-anchor';
export class MapAnchors extends DualAnchorCheckpointStoreBase {
  async writeReset(reset) {
    const stored = this.records.get(reset.streamName) ?? empty;
    const dead = stored.lastProcessedToken === reset.expectedDeadProcessed;
    this.records.set(reset.streamName, { ...stored, ...reset.fields, ...(dead ? cleared : {}) });
  }
}
export class ScriptAnchors extends DualAnchorCheckpointStoreBase {
  async writeReset(reset) {
    const { expectedDeadProcessed } = reset;
    await this.scripts.run(RESET, [key(reset.streamName)], [expectedDeadProcessed === null ? '0' : '1', expectedDeadProcessed ?? '']);
  }
}
      `,
    },
    {
      name: 'a comparison after the write, for the log, and one inside a transaction that locks the row',
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
export class Anchors implements DualAnchorCheckpointStore {
  async resetAfterHistoryLost(streamName, fresh, expected, timestamp) {
    await this.redis.fcall('reset_after_history_lost', 1, streamName, JSON.stringify(expected));
    const after = await this.findByStreamName(streamName);
    if (after?.lastProcessedToken === expected) log('the processed anchor survived');
  }
}
export class PgAnchors implements DualAnchorCheckpointStore {
  async resetAfterHistoryLost(streamName, fresh, expected, timestamp) {
    const { rows } = await this.tx.query('SELECT last_processed_token FROM anchors WHERE stream = $1 FOR UPDATE', [streamName]);
    const dead = rows[0]?.last_processed_token === JSON.stringify(expected);
    await this.tx.query('UPDATE anchors SET last_processed_token = CASE WHEN $2 THEN NULL ELSE last_processed_token END WHERE stream = $1', [streamName, dead]);
  }
}
      `,
    },
    {
      name: 'a check in Node that only saves a round trip, the guard repeated in the write (found in a real checkpointer)',
      code: `
import { isDeepStrictEqual } from 'node:util';
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
export class MongoAnchors implements DualAnchorCheckpointStore {
  async resetAfterHistoryLost(streamName, fresh, expected, timestamp) {
    const current = await this.checkpoints.findOne({ _id: streamName });
    if (current !== null && !isDeepStrictEqual(current.lastProcessedToken, expected)) return;
    await this.checkpoints.updateOne({ _id: streamName, lastProcessedToken: expected }, { $unset: { lastProcessedToken: '' } });
  }
}
export class PgAnchors implements DualAnchorCheckpointStore {
  async resetAfterHistoryLost(streamName, fresh, expected, timestamp) {
    const { rows } = await this.pool.query('SELECT last_processed_token FROM anchors WHERE stream = $1', [streamName]);
    if (rows[0]?.last_processed_token !== JSON.stringify(expected)) return;
    await this.pool.query('UPDATE anchors SET last_processed_token = NULL WHERE stream = $1 AND last_processed_token = $2', [streamName, JSON.stringify(expected)]);
  }
}
      `,
    },
    {
      name: 'a comparison in an operation that is not the reset',
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
export class Anchors implements DualAnchorCheckpointStore {
  async saveProcessed(streamName, token, timestamp) {
    const found = await this.findByStreamName(streamName);
    if (found?.lastProcessedToken === token) return;
    await this.redis.hset(key(streamName), 'lastProcessedToken', JSON.stringify(token));
  }
}
      `,
    },
  ],
  invalid: [
    {
      name: "the kit's ReadThenWriteGuardStore: the guard decided in Node, a round trip, then the write",
      code: `
import { DualAnchorCheckpointStoreBase } from 'checkpoint-fencing/dual-anchor';
class TargetedMapStore extends DualAnchorCheckpointStoreBase {}
class ReadThenWriteGuardStore extends TargetedMapStore {
  protected override async writeReset(reset) {
    this.refuseConditions(reset);
    const dead = this.current(reset.streamName).lastProcessedToken === reset.expectedDeadProcessed;
    await roundTrip();
    this.put(reset.streamName, {
      ...this.current(reset.streamName),
      ...reset.fields,
      ...(dead ? { lastProcessedToken: null, lastProcessedTimestamp: null } : {}),
    });
  }
}
      `,
      errors: [{ messageId: 'guardInNode', data: { line: 9 }, line: 7, column: 18, endLine: 7, endColumn: 99 }],
    },
    {
      name: "the reference's default: findByStreamName, a deep comparison in Node, then save",
      code: `
import { isDeepStrictEqual } from 'node:util';
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
export class Anchors implements DualAnchorCheckpointStore {
  async resetAfterHistoryLost(streamName, freshSeenToken, expectedDeadProcessed, timestamp) {
    const current = await this.findByStreamName(streamName);
    const dead = isDeepStrictEqual(current?.lastProcessedToken ?? null, expectedDeadProcessed);
    await this.save({
      ...current,
      lastSeenToken: freshSeenToken,
      ...(dead ? { lastProcessedToken: null, lastProcessedTimestamp: null } : {}),
    });
  }
}
      `,
      errors: [{ messageId: 'guardInNode', data: { line: 8 }, line: 7, column: 18, endLine: 7, endColumn: 95 }],
    },
    {
      name: 'Redis: HGET of the processed field, compared, then HSET; SQL: SELECT, compared in an if, then an upsert',
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
export class RedisAnchors implements DualAnchorCheckpointStore {
  async resetAfterHistoryLost(streamName, fresh, expected, timestamp) {
    const processed = await this.redis.hget(key(streamName), 'lastProcessedToken');
    if (processed === JSON.stringify(expected)) {
      await this.redis.hdel(key(streamName), 'lastProcessedToken', 'lastProcessedTimestamp');
    }
    await this.redis.hset(key(streamName), { lastSeenToken: JSON.stringify(fresh) });
  }
}
export const pgAnchors: DualAnchorCheckpointStore = {
  async resetAfterHistoryLost(streamName, fresh, expected, timestamp) {
    const { rows } = await pool.query('SELECT * FROM fw_checkpoints WHERE stream_name = $1', [streamName]);
    const clear = rows[0]?.last_processed_token === canonical(expected);
    await pool.query(clear ? CLEAR_AND_RESET : RESET, [streamName, fresh, timestamp]);
  },
};
      `,
      errors: [
        { messageId: 'guardInNode', data: { line: 7 }, line: 6, column: 9, endLine: 6, endColumn: 47 },
        { messageId: 'guardInNode', data: { line: 16 }, line: 15, column: 19, endLine: 15, endColumn: 72 },
      ],
    },
    {
      name: "checkpoint-fencing's storedFieldsAfterReset applied in Node to a record read from the store",
      code: `
import { DualAnchorCheckpointStoreBase, storedFieldsAfterReset as afterReset } from 'checkpoint-fencing/dual-anchor';
export class KvAnchors extends DualAnchorCheckpointStoreBase {
  async writeReset(reset) {
    const stored = JSON.parse((await this.kv.get(reset.streamName)) ?? '{}');
    await this.kv.set(reset.streamName, JSON.stringify(afterReset(stored, reset)));
  }
}
      `,
      errors: [{ messageId: 'guardInNode', data: { line: 6 }, line: 6, column: 56, endLine: 6, endColumn: 81 }],
    },
  ],
});

typeAwareRuleTester().run('no-unguarded-history-reset (useTypeInformation)', noUnguardedHistoryReset, {
  valid: [
    {
      name: "a project's own interface that happens to be named DualAnchorCheckpointStore is not checkpoint-fencing's",
      code: `
interface DualAnchorCheckpointStore { resetAfterHistoryLost(name: string, expected: string): Promise<void> }
declare const db: { find(name: string): Promise<{ lastProcessedToken: string }>; clear(name: string): Promise<void> };
export class Own implements DualAnchorCheckpointStore {
  async resetAfterHistoryLost(name: string, expected: string) {
    if ((await db.find(name)).lastProcessedToken === expected) await db.clear(name);
  }
}
      `,
      options: [{ useTypeInformation: true }],
    },
  ],
  invalid: [
    {
      name: 'an object literal typed only by the parameter it is passed to',
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
declare function register(store: DualAnchorCheckpointStore): void;
declare const redis: { hget(key: string, field: string): Promise<string | null>; hdel(key: string, ...fields: string[]): Promise<number> };
register({
  async resetAfterHistoryLost(streamName, fresh, expected) {
    if ((await redis.hget(streamName, 'lastProcessedToken')) === JSON.stringify(expected)) {
      await redis.hdel(streamName, 'lastProcessedToken');
    }
  },
} as DualAnchorCheckpointStore);
      `,
      options: [{ useTypeInformation: true }],
      errors: [{ messageId: 'guardInNode', data: { line: 8 }, line: 7, column: 9, endLine: 7, endColumn: 90 }],
    },
  ],
});
