import { noSplitAnchorHeartbeat } from '../../eslint-plugin/rules/no-split-anchor-heartbeat.js';
import { syntacticRuleTester, typeAwareRuleTester } from './rule-tester.js';

syntacticRuleTester().run('no-split-anchor-heartbeat', noSplitAnchorHeartbeat, {
  valid: [
    {
      name: "the reference's Mongo store: the anchor and its heartbeat in one $set",
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
export class MongoAnchors implements DualAnchorCheckpointStore {
  async saveSeen(streamName, token, timestamp, heartbeatTimestamp) {
    await this.collection.updateOne(
      { _id: streamName },
      { $set: { lastSeenToken: token, lastSeenTimestamp: timestamp, ...(heartbeatTimestamp ? { lastHeartbeatTimestamp: heartbeatTimestamp } : {}) } },
      { upsert: true },
    );
  }
}
      `,
    },
    {
      name: "the reference's JDBC saveProcessed: one upsert of the pair and the heartbeat",
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
export class JdbcAnchors implements DualAnchorCheckpointStore {
  async saveProcessed(streamName, token, timestamp, heartbeatTimestamp) {
    await this.jdbc.update(
      'INSERT INTO fw_checkpoints (stream_name, last_processed_token, last_processed_ts, last_heartbeat_ts) VALUES (?, ?, ?, ?) ' +
        'ON CONFLICT (stream_name) DO UPDATE SET last_processed_token = EXCLUDED.last_processed_token, ' +
        'last_processed_ts = EXCLUDED.last_processed_ts, last_heartbeat_ts = EXCLUDED.last_heartbeat_ts',
      streamName,
      token,
      timestamp,
      heartbeatTimestamp,
    );
  }
}
      `,
    },
    {
      name: 'one write or the other, on two branches; an early return before the combined write',
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
export class RedisAnchors implements DualAnchorCheckpointStore {
  async saveSeen(streamName, token, timestamp, heartbeat) {
    if (heartbeat === undefined) {
      await this.redis.hset(key(streamName), { lastSeenToken: token, lastSeenTimestamp: timestamp });
    } else {
      await this.redis.hset(key(streamName), { lastSeenToken: token, lastSeenTimestamp: timestamp, lastHeartbeatTimestamp: heartbeat });
    }
  }
  async saveProcessed(streamName, token, timestamp, heartbeat) {
    if (!heartbeat) {
      await this.redis.hset(key(streamName), { lastProcessedToken: token, lastProcessedTimestamp: timestamp });
      return;
    }
    await this.redis.hset(key(streamName), { lastProcessedToken: token, lastProcessedTimestamp: timestamp, lastHeartbeatTimestamp: heartbeat });
  }
}
      `,
    },
    {
      name: 'two HSETs inside one MULTI/EXEC transaction',
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
export class RedisAnchors implements DualAnchorCheckpointStore {
  async saveSeen(streamName, token, timestamp, heartbeat) {
    const transaction = this.redis.multi();
    transaction.hset(key(streamName), 'lastSeenToken', token);
    transaction.hset(key(streamName), 'lastHeartbeatTimestamp', heartbeat);
    await transaction.exec();
  }
}
      `,
    },
    {
      name: 'a three-argument anchor write, and a write followed by a wait that writes nothing',
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
export class Anchors implements DualAnchorCheckpointStore {
  async saveSeen(streamName, token, timestamp) {
    await this.redis.hset(key(streamName), 'lastSeenToken', token);
    await this.redis.hset(key(streamName), 'lastSeenTimestamp', timestamp);
  }
  async saveProcessed(streamName, token, timestamp, heartbeat) {
    await this.redis.hset(key(streamName), { lastProcessedToken: token, lastHeartbeatTimestamp: heartbeat });
    await this.metrics.flush();
  }
}
      `,
    },
    {
      name: "the base class's writeFields with one write a condition kind, as the built-in Redis store has",
      code: `
import { DualAnchorCheckpointStoreBase } from 'checkpoint-fencing/dual-anchor';
export class RedisAnchors extends DualAnchorCheckpointStoreBase {
  writeFields(write) {
    const key = this.prefix + write.streamName;
    switch (write.condition.kind) {
      case 'any':
        return this.client.hset(key, ...hashArguments(write.fields));
      case 'notOlderThan':
        return this.scripts.run(NOT_OLDER_THAN, [key], [String(write.condition.version), ...hashArguments(write.fields)]);
      default:
        return this.scripts.run(IF_ABSENT, [key], hashArguments(write.fields));
    }
  }
}
      `,
    },
  ],
  invalid: [
    {
      name: "the reference's default: the anchor through the three-argument write, then the heartbeat",
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
export class Anchors implements DualAnchorCheckpointStore {
  async saveSeen(streamName, token, timestamp, heartbeatTimestamp) {
    await this.saveSeen(streamName, token, timestamp);
    if (heartbeatTimestamp !== undefined) {
      await this.saveHeartbeat(streamName, heartbeatTimestamp);
    }
  }
}
      `,
      errors: [
        { messageId: 'splitAnchorHeartbeat', data: { line: 5 }, line: 7, column: 13, endLine: 7, endColumn: 63 },
      ],
    },
    {
      name: 'the operation keyed by a string with an escape, which the text search keeps in (ADR 0309)',
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
export class Anchors implements DualAnchorCheckpointStore {
  async 'save\\u0053een'(streamName, token, timestamp, heartbeatTimestamp) {
    await this.redis.hset(key(streamName), { lastSeenToken: token, lastSeenTimestamp: timestamp });
    await this.redis.hset(key(streamName), 'lastHeartbeatTimestamp', heartbeatTimestamp);
  }
}
      `,
      errors: [
        { messageId: 'splitAnchorHeartbeat', data: { line: 5 }, line: 6, column: 11, endLine: 6, endColumn: 89 },
      ],
    },
    {
      name: "the kit's TwoStepHeartbeatStore: the base class's writeFields split in two",
      code: `
import { DualAnchorCheckpointStoreBase } from 'checkpoint-fencing/dual-anchor';
class TargetedMapStore extends DualAnchorCheckpointStoreBase {}
class TwoStepHeartbeatStore extends TargetedMapStore {
  protected override async writeFields(write) {
    const { lastHeartbeatTimestamp, ...anchor } = write.fields;
    const anchorWithHeartbeat =
      lastHeartbeatTimestamp !== undefined && ('lastSeenToken' in anchor || 'lastProcessedToken' in anchor);
    if (!anchorWithHeartbeat || 'metadata' in anchor) {
      await super.writeFields(write);
      return;
    }
    await super.writeFields({ ...write, fields: anchor });
    await roundTrip();
    await super.writeFields({ ...write, fields: { lastHeartbeatTimestamp } });
  }
}
      `,
      errors: [
        { messageId: 'splitAnchorHeartbeat', data: { line: 13 }, line: 15, column: 11, endLine: 15, endColumn: 78 },
      ],
    },
    {
      name: 'Redis: two HSETs; SQL: two upserts, the heartbeat first',
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
export class RedisAnchors implements DualAnchorCheckpointStore {
  async saveProcessed(streamName, token, timestamp, heartbeat) {
    await this.redis.hset(key(streamName), 'lastProcessedToken', JSON.stringify(token), 'lastProcessedTimestamp', timestamp.getTime());
    if (heartbeat) await this.redis.hset(key(streamName), 'lastHeartbeatTimestamp', heartbeat.getTime());
  }
}
export class PgAnchors implements DualAnchorCheckpointStore {
  async saveSeen(streamName, token, timestamp, heartbeat) {
    await this.pool.query(
      'INSERT INTO anchors (stream, last_heartbeat_ts) VALUES ($1, $2) ON CONFLICT (stream) DO UPDATE SET last_heartbeat_ts = EXCLUDED.last_heartbeat_ts',
      [streamName, heartbeat],
    );
    await this.pool.query(
      'INSERT INTO anchors (stream, last_seen_token, last_seen_ts) VALUES ($1, $2, $3) ON CONFLICT (stream) DO UPDATE SET last_seen_token = EXCLUDED.last_seen_token, last_seen_ts = EXCLUDED.last_seen_ts',
      [streamName, token, timestamp],
    );
  }
}
      `,
      errors: [
        { messageId: 'splitAnchorHeartbeat', data: { line: 5 }, line: 6, column: 26, endLine: 6, endColumn: 105 },
        { messageId: 'splitAnchorHeartbeat', data: { line: 11 }, line: 15, column: 11, endLine: 18, endColumn: 6 },
      ],
    },
    {
      name: 'two writes at once in a Promise.all, in an object literal',
      code: `
import type { DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
export const anchors: DualAnchorCheckpointStore = {
  saveSeen: async (streamName, token, timestamp, heartbeat) => {
    await Promise.all([
      collection.updateOne({ _id: streamName }, { $set: { lastSeenToken: token, lastSeenTimestamp: timestamp } }, { upsert: true }),
      collection.updateOne({ _id: streamName }, { $set: { lastHeartbeatTimestamp: heartbeat } }, { upsert: true }),
    ]);
  },
};
      `,
      errors: [
        { messageId: 'splitAnchorHeartbeat', data: { line: 6 }, line: 7, column: 7, endLine: 7, endColumn: 115 },
      ],
    },
  ],
});

typeAwareRuleTester().run('no-split-anchor-heartbeat (useTypeInformation)', noSplitAnchorHeartbeat, {
  valid: [
    {
      name: "a project's own interface that happens to be named DualAnchorCheckpointStore is not checkpoint-fencing's",
      code: `
interface DualAnchorCheckpointStore { saveSeen(name: string, token: string, at: Date, heartbeat: Date): Promise<void> }
declare const kv: { set(key: string, value: unknown): Promise<void> };
export class Own implements DualAnchorCheckpointStore {
  async saveSeen(name: string, token: string, at: Date, heartbeat: Date) {
    await kv.set(name, token);
    await kv.set(\`\${name}:heartbeat\`, heartbeat);
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
declare const kv: { set(key: string, value: unknown): Promise<void> };
register({
  async saveProcessed(streamName, token, timestamp, heartbeat) {
    await kv.set(\`\${streamName}:processed\`, { token, timestamp });
    await kv.set(\`\${streamName}:heartbeat\`, heartbeat);
  },
} as DualAnchorCheckpointStore);
      `,
      options: [{ useTypeInformation: true }],
      errors: [
        { messageId: 'splitAnchorHeartbeat', data: { line: 7 }, line: 8, column: 11, endLine: 8, endColumn: 55 },
      ],
    },
  ],
});
