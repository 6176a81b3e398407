import { noReadModifyWriteAnchor } from '../../eslint-plugin/rules/no-read-modify-write-anchor.js';
import { syntacticRuleTester, typeAwareRuleTester } from './rule-tester.js';

syntacticRuleTester().run('no-read-modify-write-anchor', noReadModifyWriteAnchor, {
  valid: [
    {
      name: "the reference's Mongo store: a partial $set with upsert, no read",
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
export class MongoAnchors implements DualAnchorCheckpointStore {
  async saveSeen(streamName, token, timestamp, heartbeat) {
    await this.collection.updateOne(
      { _id: streamName },
      { $set: { lastSeenToken: token, lastSeenTimestamp: timestamp, ...(heartbeat ? { lastHeartbeatTimestamp: heartbeat } : {}) } },
      { upsert: true },
    );
  }
}
      `,
    },
    {
      name: 'an in-memory store reads and writes its map between two awaits (one step)',
      code: `
import { DualAnchorCheckpointStoreBase } from 'checkpoint-fencing/dual-anchor';
export class MapAnchors extends DualAnchorCheckpointStoreBase {
  async writeFields(write) {
    const stored = this.records.get(write.streamName);
    this.records.set(write.streamName, { ...(stored ?? empty), ...write.fields });
  }
}
      `,
    },
    {
      name: 'a read that only decides, then a targeted write of the own fields',
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
export class RedisAnchors implements DualAnchorCheckpointStore {
  async saveHeartbeat(streamName, heartbeat) {
    const hash = await this.redis.hgetall(key(streamName));
    if (Object.keys(hash).length === 0) log('first write of', streamName);
    await this.redis.hset(key(streamName), 'lastHeartbeatTimestamp', String(heartbeat.getTime()));
  }
}
      `,
    },
    {
      name: 'an id looked up, then an upsert of the own columns under it',
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
export class SqlAnchors implements DualAnchorCheckpointStore {
  async saveProcessed(streamName, token, timestamp) {
    const { rows } = await this.db.query('SELECT id FROM streams WHERE name = $1', [streamName]);
    await this.db.query(
      'INSERT INTO anchors (stream_id, last_processed_token, last_processed_ts) VALUES ($1, $2, $3) ' +
        'ON CONFLICT (stream_id) DO UPDATE SET last_processed_token = EXCLUDED.last_processed_token, last_processed_ts = EXCLUDED.last_processed_ts',
      [rows[0].id, JSON.stringify(token), timestamp],
    );
  }
}
      `,
    },
    {
      name: 'read and write inside one optimistic WATCH/MULTI transaction',
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
export class WatchedAnchors implements DualAnchorCheckpointStore {
  async saveSeen(streamName, token, timestamp) {
    await this.redis.watch(key(streamName));
    const record = JSON.parse((await this.redis.get(key(streamName))) ?? '{}');
    await this.redis.multi().set(key(streamName), JSON.stringify({ ...record, lastSeenToken: token })).exec();
  }
}
      `,
    },
    {
      name: 'SELECT … FOR UPDATE: the row stays locked until the write',
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
export class LockedAnchors implements DualAnchorCheckpointStore {
  async saveSeen(streamName, token, timestamp) {
    const { rows } = await this.tx.query('SELECT * FROM anchors WHERE stream = $1 FOR UPDATE', [streamName]);
    await this.tx.query('UPDATE anchors SET doc = $2 WHERE stream = $1', [streamName, { ...rows[0], token }]);
  }
}
      `,
    },
    {
      name: 'a version read back for a compare-and-set UPDATE that judges it in its WHERE',
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
export class CasAnchors implements DualAnchorCheckpointStore {
  async saveSeen(streamName, token, timestamp) {
    const found = await this.findByStreamName(streamName);
    await this.db.query('UPDATE anchors SET doc = $2 WHERE stream = $1 AND version = $3', [streamName, { ...found, token }, found.version]);
  }
}
      `,
    },
    {
      name: 'compare-and-set: the document replaced with its expected version, or updated under a filter on its version',
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
export class VersionedAnchors implements DualAnchorCheckpointStore {
  async saveSeen(streamName, token, timestamp) {
    const existing = await this.collection.findOne({ _id: streamName });
    const changed = { ...existing, lastSeenToken: token };
    await this.collection.replaceOne({ _id: streamName }, changed, { ...this.options, expectedVersion: existing._version });
  }
  async saveProcessed(streamName, token, timestamp) {
    const existing = await this.collection.findOne({ _id: streamName });
    await this.collection.updateOne({ _id: streamName, _version: existing._version }, { $set: { ...existing, lastProcessedToken: token } });
  }
}
      `,
    },
    {
      name: 'a cached value handed to an async call, whose result goes back into the cache (found in a real checkpointer)',
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
export class CachedAnchors implements DualAnchorCheckpointStore {
  async saveProcessed(streamName, token, timestamp) {
    const previous = this.cache.get(streamName);
    const result = await appendCheckpoint(this.client, { streamName, token, previous });
    this.cache.set(streamName, { token: result.token, revision: result.revision });
  }
}
      `,
    },
    {
      name: 'an insert that fails when the record exists, after a read that found none (found in a real in-memory database)',
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
export class CreatingAnchors implements DualAnchorCheckpointStore {
  async saveSeen(streamName, token, timestamp) {
    const existing = await this.collection.findOne({ _id: streamName });
    const next = apply(existing, token);
    if (!existing) await this.collection.insertOne({ ...next, _id: streamName });
  }
  async saveHeartbeat(streamName, heartbeat) {
    const { rows } = await this.pool.query('SELECT * FROM anchors WHERE stream = $1', [streamName]);
    if (rows.length === 0) {
      await this.pool.query('INSERT INTO anchors (stream, doc) VALUES ($1, $2) ON CONFLICT DO NOTHING', [streamName, { ...rows[0], heartbeat }]);
    }
  }
}
      `,
    },
    {
      name: 'save, find and delete may read whole records: only partial operations are checked',
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
export class Anchors implements DualAnchorCheckpointStore {
  async save(checkpoint) {
    const previous = await this.findByStreamName(checkpoint.streamName);
    await this.redis.set(key(checkpoint.streamName), JSON.stringify({ ...previous, ...checkpoint }));
  }
}
      `,
    },
    {
      name: 'read-modify-write outside a dual-anchor store',
      code: `
class Profiles {
  async saveSeen(id, seen) {
    const profile = await this.findByStreamName(id);
    await this.save({ ...profile, seen });
  }
}
      `,
    },
    {
      name: "a project's own interface named DualAnchorCheckpointStore is not checkpoint-fencing's",
      code: `
interface DualAnchorCheckpointStore { saveSeen(name: string, token: unknown): Promise<void> }
export class Own implements DualAnchorCheckpointStore {
  async saveSeen(name: string, token: unknown) {
    const current = await this.findByStreamName(name);
    await this.save({ ...current, lastSeenToken: token });
  }
}
      `,
    },
  ],
  invalid: [
    {
      name: "the reference's default: read the record, change the own pair, save the whole record back",
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
export class JdbcAnchors implements DualAnchorCheckpointStore {
  async saveSeen(streamName, token, timestamp) {
    const current = await this.findByStreamName(streamName);
    await this.save({ ...(current ?? emptyCheckpoint(streamName)), lastSeenToken: token, lastSeenTimestamp: timestamp });
  }
}
      `,
      errors: [
        {
          messageId: 'readModifyWrite',
          data: { read: 'this.findByStreamName', line: 5 },
          line: 6,
          column: 11,
          endLine: 6,
          endColumn: 121,
        },
      ],
    },
    {
      name: 'withReadModifyWriteDefaults: the base class steps read and save back in a private helper, reported once',
      code: `
import { DualAnchorCheckpointStoreBase, encodeDualAnchorCheckpoint, decodeDualAnchorCheckpoint, storedFieldsAfterReset } from 'checkpoint-fencing/dual-anchor';
class ReadModifyWriteStore extends DualAnchorCheckpointStoreBase {
  async writeFields(write) {
    await this.#readModifyWrite(write.streamName, (stored) => ({ ...stored, ...write.fields }), write.condition);
  }
  async writeReset(reset) {
    await this.#readModifyWrite(reset.streamName, (stored) => storedFieldsAfterReset(stored, reset), reset.condition);
  }
  async #readModifyWrite(streamName, change, condition) {
    const current = await this.#minimal.findByStreamName(streamName);
    const stored = current === undefined ? emptyStoredDualAnchorFields : encodeDualAnchorCheckpoint(current).fields;
    await this.#minimal.save(decodeDualAnchorCheckpoint(streamName, change(stored)), condition);
  }
}
      `,
      errors: [
        {
          messageId: 'readModifyWrite',
          data: { read: 'this.#minimal.findByStreamName', line: 11 },
          line: 13,
          column: 11,
          endLine: 13,
          endColumn: 96,
        },
      ],
    },
    {
      name: 'a Redis JSON document: GET, parse, change the own field, SET the whole document',
      code: `
import type { DualAnchorCheckpointStore as Store } from 'checkpoint-fencing/dual-anchor';
export const store: Store = {
  saveProcessed: async (streamName, token, timestamp) => {
    const raw = await redis.get(\`anchors:\${streamName}\`);
    const record = raw === null ? {} : JSON.parse(raw);
    record.lastProcessedToken = token;
    record.lastProcessedTimestamp = timestamp.toISOString();
    await redis.set(\`anchors:\${streamName}\`, JSON.stringify(record));
  },
};
      `,
      errors: [
        {
          messageId: 'readModifyWrite',
          data: { read: 'redis.get', line: 5 },
          line: 9,
          column: 11,
          endLine: 9,
          endColumn: 69,
        },
      ],
    },
    {
      name: 'a Redis hash: HGETALL, then HSET of every field read',
      code: `
import * as cf from 'checkpoint-fencing/dual-anchor';
export class HashAnchors implements cf.DualAnchorCheckpointStore {
  async saveHeartbeat(streamName, heartbeat) {
    const hash = await this.redis.hgetall(key(streamName));
    await this.redis.hset(key(streamName), { ...hash, lastHeartbeatTimestamp: heartbeat.getTime() });
  }
}
      `,
      errors: [
        {
          messageId: 'readModifyWrite',
          data: { read: 'this.redis.hgetall', line: 5 },
          line: 6,
          column: 11,
          endLine: 6,
          endColumn: 101,
        },
      ],
    },
    {
      name: "SQL: SELECT the row, then an upsert of every column carrying the other anchor's stored values",
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
export class PgAnchors implements DualAnchorCheckpointStore {
  async saveSeen(streamName, token, timestamp) {
    const {
      rows: [row],
    } = await this.pool.query(\`SELECT * FROM fw_checkpoints WHERE stream_name = $1\`, [streamName]);
    await this.pool.query(
      \`INSERT INTO fw_checkpoints (stream_name, last_seen_token, last_seen_ts, last_processed_token, last_processed_ts)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (stream_name) DO UPDATE SET last_seen_token = $2, last_seen_ts = $3, last_processed_token = $4, last_processed_ts = $5\`,
      [streamName, token, timestamp, row?.last_processed_token, row?.last_processed_ts],
    );
  }
}
      `,
      errors: [
        {
          messageId: 'readModifyWrite',
          data: { read: 'this.pool.query', line: 7 },
          line: 8,
          column: 11,
          endLine: 13,
          endColumn: 6,
        },
      ],
    },
    {
      name: 'Mongo: findOne, then replaceOne of the whole document (upserting does not help)',
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
export function mongoAnchors(collection): DualAnchorCheckpointStore {
  return {
    async saveProcessed(streamName, token, timestamp) {
      const document = await collection.findOne({ _id: streamName });
      await collection.replaceOne({ _id: streamName }, { ...document, lastProcessedToken: token }, { upsert: true });
    },
  };
}
      `,
      errors: [
        {
          messageId: 'readModifyWrite',
          data: { read: 'collection.findOne', line: 6 },
          line: 7,
          column: 13,
          endLine: 7,
          endColumn: 117,
        },
      ],
    },
    {
      name: 'the read awaited inside the write, in a subclass of a same-file store',
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
abstract class Base implements DualAnchorCheckpointStore {}
export class Inline extends Base {
  async resetAfterHistoryLost(streamName, fresh, expected, timestamp) {
    await this.redis.set(
      streamName,
      JSON.stringify({ ...JSON.parse((await this.redis.get(streamName)) ?? '{}'), lastSeenToken: fresh }),
    );
  }
}
      `,
      errors: [
        {
          messageId: 'readModifyWrite',
          data: { read: 'this.redis.get', line: 8 },
          line: 6,
          column: 11,
          endLine: 9,
          endColumn: 6,
        },
      ],
    },
    {
      name: 'an insert made an upsert by its chain (Knex) carries the read record back',
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
export class KnexAnchors implements DualAnchorCheckpointStore {
  async saveSeen(streamName, token, timestamp) {
    const current = await this.knex('anchors').where({ stream: streamName }).findOne();
    await this.knex('anchors').insert({ ...current, stream: streamName, last_seen_token: token }).onConflict('stream').merge();
  }
}
      `,
      errors: [
        {
          messageId: 'readModifyWrite',
          data: { read: "this.knex('anchors').where({ stream: streamName }).findOne", line: 5 },
          line: 6,
          column: 11,
          endLine: 6,
          endColumn: 98,
        },
      ],
    },
  ],
});

typeAwareRuleTester().run('no-read-modify-write-anchor (useTypeInformation)', noReadModifyWriteAnchor, {
  valid: [
    {
      name: "a project's own interface that happens to be named DualAnchorCheckpointStore is not checkpoint-fencing's",
      code: `
interface DualAnchorCheckpointStore { saveSeen(name: string, token: string): Promise<void> }
declare const db: { find(name: string): Promise<object>; save(record: object): Promise<void> };
export class Own implements DualAnchorCheckpointStore {
  async saveSeen(name: string, token: string) {
    const current = await db.find(name);
    await db.save({ ...current, token });
  }
}
      `,
      options: [{ useTypeInformation: true }],
    },
  ],
  invalid: [
    {
      name: 'a class extending the base class through a local alias, which only types can see through',
      code: `
import { DualAnchorCheckpointStoreBase, type DualAnchorCheckpoint, type DualAnchorFieldWrite, type DualAnchorResetWrite } from 'checkpoint-fencing/dual-anchor';
declare const kv: { get(key: string): Promise<string | null>; set(key: string, value: string): Promise<void> };
const Base = DualAnchorCheckpointStoreBase;
export class KvAnchors extends Base {
  evaluatesWriteConditions() { return false; }
  protected async writeFields(write: DualAnchorFieldWrite) {
    const stored = JSON.parse((await kv.get(write.streamName)) ?? '{}') as object;
    await kv.set(write.streamName, JSON.stringify({ ...stored, ...write.fields }));
  }
  protected async writeReset(reset: DualAnchorResetWrite) {}
  protected async readRecord(): Promise<DualAnchorCheckpoint | undefined> { return undefined; }
  protected async removeRecord() {}
}
      `,
      options: [{ useTypeInformation: true }],
      errors: [
        {
          messageId: 'readModifyWrite',
          data: { read: 'kv.get', line: 8 },
          line: 9,
          column: 11,
          endLine: 9,
          endColumn: 83,
        },
      ],
    },
    {
      name: 'an object literal typed only by the parameter it is passed to',
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
declare function register(store: DualAnchorCheckpointStore): void;
declare const db: { findOne(query: object): Promise<object | null>; replaceOne(query: object, doc: object, options: object): Promise<void> };
register({
  async saveSeen(streamName, token, timestamp) {
    const found = await db.findOne({ _id: streamName });
    await db.replaceOne({ _id: streamName }, { ...found, lastSeenToken: token, lastSeenTimestamp: timestamp }, { upsert: true });
  },
} as DualAnchorCheckpointStore);
      `,
      options: [{ useTypeInformation: true }],
      errors: [
        {
          messageId: 'readModifyWrite',
          data: { read: 'db.findOne', line: 7 },
          line: 8,
          column: 11,
          endLine: 8,
          endColumn: 129,
        },
      ],
    },
  ],
});
