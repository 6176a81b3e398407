import { requireUpsertInAnchorWrite } from '../../eslint-plugin/rules/require-upsert-in-anchor-write.js';
import { syntacticRuleTester, typeAwareRuleTester } from './rule-tester.js';

syntacticRuleTester().run('require-upsert-in-anchor-write', requireUpsertInAnchorWrite, {
  valid: [
    {
      name: "the reference's JDBC store: INSERT … ON CONFLICT DO UPDATE of the own columns, built by concatenation",
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
export class JdbcAnchors implements DualAnchorCheckpointStore {
  async saveHeartbeat(streamName, heartbeat) {
    await this.jdbc.update(
      'INSERT INTO fw_checkpoints (stream_name, last_heartbeat_ts) VALUES (?, ?) ' +
        'ON CONFLICT (stream_name) DO UPDATE SET last_heartbeat_ts = EXCLUDED.last_heartbeat_ts',
      streamName,
      heartbeat,
    );
  }
}
      `,
    },
    {
      name: 'Mongo updates with upsert: true, inline and in a const of the file',
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
const UPSERT = { upsert: true } as const;
export class MongoAnchors implements DualAnchorCheckpointStore {
  async saveSeen(streamName, token, timestamp) {
    await this.collection.updateOne({ _id: streamName }, { $set: { lastSeenToken: token } }, { upsert: true });
  }
  async saveProcessed(streamName, token, timestamp) {
    await this.collection.updateOne({ _id: streamName }, { $set: { lastProcessedToken: token } }, UPSERT);
  }
}
      `,
    },
    {
      name: 'MERGE, and an UPDATE with an INSERT fallback when no row matched',
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
export class SqlServerAnchors implements DualAnchorCheckpointStore {
  async saveSeen(streamName, token, timestamp) {
    await this.db.query(\`MERGE INTO anchors AS a USING (VALUES (@p1, @p2)) AS n (stream, token) ON a.stream = n.stream
      WHEN MATCHED THEN UPDATE SET last_seen_token = n.token WHEN NOT MATCHED THEN INSERT (stream, last_seen_token) VALUES (n.stream, n.token);\`);
  }
  async saveHeartbeat(streamName, heartbeat) {
    const { rowCount } = await this.db.query('UPDATE anchors SET last_heartbeat = $2 WHERE stream = $1', [streamName, heartbeat]);
    if (rowCount === 0) await this.db.query('INSERT INTO anchors (stream, last_heartbeat) VALUES ($1, $2)', [streamName, heartbeat]);
  }
}
      `,
    },
    {
      name: 'a query builder upsert, and HSET, which creates the hash',
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
export class Anchors implements DualAnchorCheckpointStore {
  async saveSeen(streamName, token, timestamp) {
    await this.knex('anchors').insert({ stream: streamName, last_seen_token: token }).onConflict('stream').merge();
  }
  async saveHeartbeat(streamName, heartbeat) {
    const key = createHash('sha256').update(streamName).digest('hex');
    await this.redis.hset(key, 'lastHeartbeatTimestamp', heartbeat.getTime());
  }
}
      `,
    },
    {
      name: 'options the rule cannot read, and statements whose text lives elsewhere',
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
export class Anchors implements DualAnchorCheckpointStore {
  async saveSeen(streamName, token, timestamp) {
    await this.collection.updateOne({ _id: streamName }, { $set: { lastSeenToken: token } }, this.writeOptions);
    await this.collection.updateOne({ _id: streamName }, { $set: { lastSeenToken: token } }, { upsert: this.upsert });
  }
  async saveProcessed(streamName, token, timestamp) {
    await this.runner.query(this.statements.saveProcessed, [streamName, token, timestamp]);
  }
}
      `,
    },
    {
      name: 'a reset that upserts the seen pair, then clears the processed pair under a guard in the filter',
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
export class MongoAnchors implements DualAnchorCheckpointStore {
  async resetAfterHistoryLost(streamName, fresh, expected, timestamp) {
    await this.collection.updateOne({ _id: streamName }, { $set: { lastSeenToken: fresh } }, { upsert: true });
    await this.collection.updateOne({ _id: streamName, lastProcessedToken: expected }, { $unset: { lastProcessedToken: '' } });
  }
}
      `,
    },
    {
      name: 'an existence test that creates the record when it is missing',
      code: `
import { DualAnchorCheckpointStoreBase } from 'checkpoint-fencing/dual-anchor';
export class MapAnchors extends DualAnchorCheckpointStoreBase {
  async writeFields(write) {
    if (!this.records.has(write.streamName)) this.records.set(write.streamName, { ...empty });
    this.records.set(write.streamName, { ...this.records.get(write.streamName), ...write.fields });
  }
}
      `,
    },
    {
      name: "an immutable map's update(key, fn), which takes a function as no query builder does (found in real samples)",
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
export class ImmutableAnchors implements DualAnchorCheckpointStore {
  saveHeartbeat(streamName, heartbeat) {
    return this.records.update(streamName, (record) => ({ ...record, lastHeartbeatTimestamp: heartbeat }));
  }
}
      `,
    },
    {
      name: 'a plain UPDATE outside a dual-anchor store, and in save, which is not a partial operation',
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
class Profiles {
  async saveSeen(id, seen) { await this.db.query('UPDATE profiles SET seen = $2 WHERE id = $1', [id, seen]); }
}
export class Anchors implements DualAnchorCheckpointStore {
  async delete(streamName) { await this.db.query('UPDATE anchors SET deleted = true WHERE stream = $1', [streamName]); }
}
      `,
    },
  ],
  invalid: [
    {
      name: 'JavaScript: a JSDoc @implements of the contract imported from checkpoint-fencing/dual-anchor',
      filename: 'pg-anchors.js',
      code: `
/** @import { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor' */
/** @implements {DualAnchorCheckpointStore} */
export class PgAnchors {
  async saveHeartbeat(streamName, heartbeat) {
    await this.pool.query('UPDATE anchors SET last_heartbeat_ts = $2 WHERE stream = $1', [streamName, heartbeat]);
  }
}
      `,
      errors: [{ messageId: 'plainUpdate', line: 6, column: 11, endLine: 6, endColumn: 114 }],
    },
    {
      name: 'a plain UPDATE in a partial operation (the first saveSeen of a new stream persists nothing)',
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
export class PgAnchors implements DualAnchorCheckpointStore {
  async saveSeen(streamName, token, timestamp) {
    await this.pool.query(
      'UPDATE fw_checkpoints SET last_seen_token = $2, last_seen_ts = $3 WHERE stream_name = $1',
      [streamName, JSON.stringify(token), timestamp],
    );
  }
}
      `,
      errors: [{ messageId: 'plainUpdate', line: 5, column: 11, endLine: 8, endColumn: 6 }],
    },
    {
      name: 'a tagged-template UPDATE (postgres.js) and an UPDATE kept in a const, the second in a helper',
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
const SAVE_PROCESSED = \`
  UPDATE fw_checkpoints SET last_processed_token = $2, last_processed_ts = $3 WHERE stream_name = $1\`;
export class Anchors implements DualAnchorCheckpointStore {
  async saveHeartbeat(streamName, heartbeat) {
    await this.sql\`update fw_checkpoints set last_heartbeat_ts = \${heartbeat} where stream_name = \${streamName}\`;
  }
  async saveProcessed(streamName, token, timestamp) {
    await this.#send(SAVE_PROCESSED, [streamName, token, timestamp]);
  }
  #send(text, values) {
    return this.client.query(text, values);
  }
}
      `,
      errors: [
        { messageId: 'plainUpdate', line: 7, column: 11, endLine: 7, endColumn: 113 },
        { messageId: 'plainUpdate', line: 10, column: 11, endLine: 10, endColumn: 69 },
      ],
    },
    {
      name: 'Mongo updates without upsert: true, each with the suggestion that adds it',
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
export class MongoAnchors implements DualAnchorCheckpointStore {
  async saveSeen(streamName, token, timestamp) {
    await this.collection.updateOne({ _id: streamName }, { $set: { lastSeenToken: token } });
  }
  async saveProcessed(streamName, token, timestamp) {
    await this.collection.updateOne({ _id: streamName }, { $set: { lastProcessedToken: token } }, { upsert: false });
  }
  async saveHeartbeat(streamName, heartbeat) {
    await this.collection.findOneAndUpdate({ _id: streamName }, { $set: { lastHeartbeatTimestamp: heartbeat } }, { returnDocument: 'after' });
  }
}
      `,
      errors: [
        {
          messageId: 'updateWithoutUpsertOption',
          data: { method: 'updateOne' },
          line: 5,
          column: 11,
          endLine: 5,
          endColumn: 93,
          suggestions: [
            {
              messageId: 'addUpsertOption',
              output: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
export class MongoAnchors implements DualAnchorCheckpointStore {
  async saveSeen(streamName, token, timestamp) {
    await this.collection.updateOne({ _id: streamName }, { $set: { lastSeenToken: token } }, { upsert: true });
  }
  async saveProcessed(streamName, token, timestamp) {
    await this.collection.updateOne({ _id: streamName }, { $set: { lastProcessedToken: token } }, { upsert: false });
  }
  async saveHeartbeat(streamName, heartbeat) {
    await this.collection.findOneAndUpdate({ _id: streamName }, { $set: { lastHeartbeatTimestamp: heartbeat } }, { returnDocument: 'after' });
  }
}
      `,
            },
          ],
        },
        {
          messageId: 'updateWithoutUpsertOption',
          data: { method: 'updateOne' },
          line: 8,
          column: 11,
          endLine: 8,
          endColumn: 117,
          suggestions: [
            {
              messageId: 'addUpsertOption',
              output: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
export class MongoAnchors implements DualAnchorCheckpointStore {
  async saveSeen(streamName, token, timestamp) {
    await this.collection.updateOne({ _id: streamName }, { $set: { lastSeenToken: token } });
  }
  async saveProcessed(streamName, token, timestamp) {
    await this.collection.updateOne({ _id: streamName }, { $set: { lastProcessedToken: token } }, { upsert: true });
  }
  async saveHeartbeat(streamName, heartbeat) {
    await this.collection.findOneAndUpdate({ _id: streamName }, { $set: { lastHeartbeatTimestamp: heartbeat } }, { returnDocument: 'after' });
  }
}
      `,
            },
          ],
        },
        {
          messageId: 'updateWithoutUpsertOption',
          data: { method: 'findOneAndUpdate' },
          line: 11,
          column: 11,
          endLine: 11,
          endColumn: 142,
          suggestions: [
            {
              messageId: 'addUpsertOption',
              output: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
export class MongoAnchors implements DualAnchorCheckpointStore {
  async saveSeen(streamName, token, timestamp) {
    await this.collection.updateOne({ _id: streamName }, { $set: { lastSeenToken: token } });
  }
  async saveProcessed(streamName, token, timestamp) {
    await this.collection.updateOne({ _id: streamName }, { $set: { lastProcessedToken: token } }, { upsert: false });
  }
  async saveHeartbeat(streamName, heartbeat) {
    await this.collection.findOneAndUpdate({ _id: streamName }, { $set: { lastHeartbeatTimestamp: heartbeat } }, { upsert: true, returnDocument: 'after' });
  }
}
      `,
            },
          ],
        },
      ],
    },
    {
      name: 'query-builder and ORM updates in operations that never insert (Drizzle, Prisma)',
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
export const anchors: DualAnchorCheckpointStore = {
  async saveSeen(streamName, token, timestamp) {
    await db.update(checkpoints).set({ lastSeenToken: token, lastSeenTimestamp: timestamp }).where(eq(checkpoints.streamName, streamName));
  },
  saveHeartbeat: (streamName, heartbeat) =>
    prisma.checkpoint.updateMany({ where: { streamName }, data: { lastHeartbeatTimestamp: heartbeat } }),
};
      `,
      errors: [
        { messageId: 'builderUpdate', data: { method: 'update' }, line: 5, column: 11, endLine: 5, endColumn: 33 },
        { messageId: 'builderUpdate', data: { method: 'updateMany' }, line: 8, column: 5, endLine: 8, endColumn: 105 },
      ],
    },
    {
      name: "the kit's UpdateWithoutUpsertStore: the base class's steps write only when the map has the stream",
      code: `
import { DualAnchorCheckpointStoreBase } from 'checkpoint-fencing/dual-anchor';
class TargetedMapStore extends DualAnchorCheckpointStoreBase {}
class UpdateWithoutUpsertStore extends TargetedMapStore {
  protected override async writeFields(write) {
    if (this.records.has(write.streamName)) {
      await super.writeFields(write);
    }
  }
  protected override async writeReset(reset) {
    if (this.records.has(reset.streamName)) {
      await super.writeReset(reset);
    }
  }
}
      `,
      errors: [
        {
          messageId: 'writeOnlyIfExists',
          data: { check: 'this.records.has' },
          line: 7,
          column: 13,
          endLine: 7,
          endColumn: 37,
        },
        {
          messageId: 'writeOnlyIfExists',
          data: { check: 'this.records.has' },
          line: 12,
          column: 13,
          endLine: 12,
          endColumn: 36,
        },
      ],
    },
    {
      name: 'a Redis store that leaves when the hash does not exist, and one that leaves when nothing was found',
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
export class RedisAnchors implements DualAnchorCheckpointStore {
  async saveHeartbeat(streamName, heartbeat) {
    if (!(await this.redis.exists(key(streamName)))) return;
    await this.redis.hset(key(streamName), 'lastHeartbeatTimestamp', heartbeat.getTime());
  }
  async saveSeen(streamName, token, timestamp) {
    const found = await this.findByStreamName(streamName);
    if (found === undefined) {
      return;
    }
    await this.redis.hset(key(streamName), 'lastSeenToken', JSON.stringify(token));
  }
}
      `,
      errors: [
        {
          messageId: 'writeOnlyIfExists',
          data: { check: 'this.redis.exists' },
          line: 6,
          column: 11,
          endLine: 6,
          endColumn: 90,
        },
        {
          messageId: 'writeOnlyIfExists',
          data: { check: 'found' },
          line: 13,
          column: 11,
          endLine: 13,
          endColumn: 83,
        },
      ],
    },
  ],
});

typeAwareRuleTester().run('require-upsert-in-anchor-write (useTypeInformation)', requireUpsertInAnchorWrite, {
  valid: [
    {
      name: "a project's own interface that happens to be named DualAnchorCheckpointStore is not checkpoint-fencing's",
      code: `
interface DualAnchorCheckpointStore { saveSeen(name: string, token: string): Promise<void> }
declare const db: { query(text: string, values: unknown[]): Promise<void> };
export class Own implements DualAnchorCheckpointStore {
  async saveSeen(name: string, token: string) {
    await db.query('UPDATE own SET token = $2 WHERE name = $1', [name, token]);
  }
}
      `,
      options: [{ useTypeInformation: true }],
    },
  ],
  invalid: [
    {
      name: 'a store implementing an import type, which only types resolve',
      code: `
declare const db: { query(text: string, values: unknown[]): Promise<void> };
type Anchors = import('checkpoint-fencing/dual-anchor').DualAnchorCheckpointStore;
export class PgAnchors implements Anchors {
  async saveHeartbeat(streamName: string, heartbeat: Date) {
    await db.query('UPDATE anchors SET last_heartbeat_ts = $2 WHERE stream = $1', [streamName, heartbeat]);
  }
}
      `,
      options: [{ useTypeInformation: true }],
      errors: [{ messageId: 'plainUpdate', line: 6, column: 11, endLine: 6, endColumn: 107 }],
    },
  ],
});
