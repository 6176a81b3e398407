import { noCheckThenWrite } from '../../eslint-plugin/rules/no-check-then-write.js';
import { syntacticRuleTester } from './rule-tester.js';

syntacticRuleTester().run('no-check-then-write', noCheckThenWrite, {
  valid: [
    {
      name: 'an in-memory storage decides and writes between two awaits',
      code: `
import type { CheckpointStorage } from 'checkpoint-fencing';
class S implements CheckpointStorage {
  async save(id, cp, condition) {
    const stored = this.entries.get(id);
    if (stored !== undefined && stored.version > condition.version) throw refused();
    this.entries.set(id, { cp, version: condition.version });
  }
}
      `,
    },
    {
      name: 'a Lua script judges the condition on the server',
      code: `
import type { CheckpointStorage } from 'checkpoint-fencing';
class S implements CheckpointStorage {
  async save(id, cp, condition) {
    const version = await this.redis.get(versionKey(id));
    if (version === null) log('first write');
    return this.redis.eval(SCRIPT, 2, checkpointKey(id), versionKey(id), cp);
  }
}
      `,
    },
    {
      name: 'an optimistic WATCH/MULTI transaction',
      code: `
import type { CheckpointStorage } from 'checkpoint-fencing';
class S implements CheckpointStorage {
  async save(id, cp, condition) {
    await this.redis.watch(key);
    const stored = await this.redis.get(key);
    if (BigInt(stored) > condition.version) throw refused();
    await this.redis.multi().set(key, cp).exec();
  }
}
      `,
    },
    {
      name: 'a conditional UPDATE that judges the version itself',
      code: `
import type { CheckpointStorage } from 'checkpoint-fencing';
const s: CheckpointStorage = {
  async save(id, cp, condition) {
    const { rows } = await db.query('SELECT version FROM checkpoints WHERE id = $1', [id]);
    if (rows.length === 0) return insertFirst(id, cp);
    await db.query('UPDATE checkpoints SET checkpoint = $2 WHERE id = $1 AND version <= $3', [id, cp, condition.version]);
  },
};
      `,
    },
    {
      name: 'a wrapper that forwards the condition to the storage it wraps',
      code: `
import type { CheckpointStorage } from 'checkpoint-fencing';
class Logged implements CheckpointStorage {
  async save(id, cp, condition) {
    const before = await this.inner.writeVersion(id);
    if (before !== undefined) log(before);
    return this.inner.save(id, cp, condition);
  }
}
      `,
    },
    {
      name: 'a read that is never compared',
      code: `
import type { CheckpointStorage } from 'checkpoint-fencing';
class S implements CheckpointStorage {
  async save(id, cp, condition) {
    const previous = await this.redis.get(id);
    await this.redis.set(id, cp);
    return previous;
  }
}
      `,
    },
    {
      name: 'a .then chain that forwards the condition, and a callback that is not chained',
      code: `
import type { CheckpointStorage } from 'checkpoint-fencing';
class S implements CheckpointStorage {
  save(id, cp, condition) {
    return this.inner.writeVersion(id).then((stored) => {
      if (stored !== undefined) log(stored);
      return this.inner.save(id, cp, condition);
    });
  }
  watchLater(id, cp) {
    setTimeout(() => this.redis.get(id).then((v) => v !== cp && this.redis.set(id, cp)), 10);
  }
}
      `,
    },
    {
      name: 'a .then chain whose read is never compared, and one in a Lua-scripted save',
      code: `
import type { CheckpointStorage } from 'checkpoint-fencing';
const s: CheckpointStorage = {
  save: (id, cp, condition) => redis.get(id).then((previous) => redis.set(id, cp).then(() => previous)),
  writeVersion: (id) => redis.get(id).then((v) => (v === null ? undefined : BigInt(v)) && redis.eval(SCRIPT, 1, id)),
};
      `,
    },
    {
      name: 'read, compare, write outside a checkpoint storage',
      code: `
class Cache {
  async put(k, v) {
    const old = await this.redis.get(k);
    if (old !== v) await this.redis.set(k, v);
  }
}
      `,
    },
  ],
  invalid: [
    {
      name: "a storage on checkpoint-fencing's CheckpointStorageBase whose backend write reads, compares and writes",
      code: `
import { CheckpointStorageBase } from 'checkpoint-fencing';
export class KvStorage extends CheckpointStorageBase {
  protected async write(id, cp, condition) {
    const stored = await this.writeVersion(id);
    if (stored !== undefined && stored > condition.version) throw refused();
    await this.kv.set(id, cp);
    return cp;
  }
}
      `,
      errors: [
        {
          messageId: 'checkThenWrite',
          data: { read: 'this.writeVersion', line: 5 },
          line: 7,
          column: 11,
          endLine: 7,
          endColumn: 30,
        },
      ],
    },
    {
      name: 'a non-async save that reads, compares and writes through a .then chain',
      code: `
import type { CheckpointStorage } from 'checkpoint-fencing';
export class ChainedRedisStorage implements CheckpointStorage {
  save(id, cp, condition) {
    return this.writeVersion(id).then((stored) => {
      if (stored !== undefined && stored > condition.version) throw refused();
      return this.redis.set(key(id), cp);
    });
  }
}
      `,
      errors: [
        {
          messageId: 'checkThenWrite',
          data: { read: 'this.writeVersion', line: 5 },
          line: 7,
          column: 14,
          endLine: 7,
          endColumn: 41,
        },
      ],
    },
    {
      name: 'an arrow save whose compared read and write sit in successive .then callbacks',
      code: `
import type { CheckpointStorage } from 'checkpoint-fencing';
const s: CheckpointStorage = {
  save: (id, cp, condition) =>
    redis
      .get(versionKey(id))
      .then((v) => (v !== null && BigInt(v) > condition.version ? Promise.reject(refused()) : undefined))
      .then(() => redis.set(checkpointKey(id), cp)),
};
      `,
      errors: [
        {
          messageId: 'checkThenWrite',
          data: { read: 'redis.get', line: 5 },
          line: 8,
          column: 19,
          endLine: 8,
          endColumn: 51,
        },
      ],
    },
    {
      name: 'JavaScript: a JSDoc @implements class whose save compares in a .then callback and writes',
      filename: 'storage.js',
      code: `
/** @import { CheckpointStorage } from 'checkpoint-fencing' */
/** @implements {CheckpointStorage} */
export class HashStorage {
  save(id, cp, condition) {
    return this.redis.hget(id, 'version').then((v) => {
      if (v !== null && BigInt(v) > condition.version) throw refused();
      return this.redis.hset(id, 'checkpoint', cp);
    });
  }
}
      `,
      errors: [
        {
          messageId: 'checkThenWrite',
          data: { read: 'this.redis.hget', line: 6 },
          line: 8,
          column: 14,
          endLine: 8,
          endColumn: 51,
        },
      ],
    },
    {
      name: 'a subclass whose base class in the same file declares implements',
      code: `
import type { CheckpointStorage } from 'checkpoint-fencing';
abstract class BaseStorage implements CheckpointStorage {}
export class NaiveStorage extends BaseStorage {
  async save(id, cp, condition) {
    const stored = await this.writeVersion(id);
    if (stored !== undefined && stored > condition.version) throw refused();
    await this.redis.set(key(id), cp);
  }
}
      `,
      errors: [
        {
          messageId: 'checkThenWrite',
          data: { read: 'this.writeVersion', line: 6 },
          line: 8,
          column: 11,
          endLine: 8,
          endColumn: 38,
        },
      ],
    },
    {
      name: 'the stored version is read, compared, and the checkpoint written in another step; aliased import',
      code: `
import type { CheckpointStorage as Store } from 'checkpoint-fencing';
export class NaiveRedisStorage implements Store {
  async save(id, cp, condition) {
    const stored = await this.writeVersion(id);
    if (stored !== undefined && stored > condition.version) throw refused();
    await this.redis.set(key(id), cp);
  }
}
      `,
      errors: [
        {
          messageId: 'checkThenWrite',
          data: { read: 'this.writeVersion', line: 5 },
          line: 7,
          column: 11,
          endLine: 7,
          endColumn: 38,
        },
      ],
    },
    {
      name: 'an SQL SELECT then an UPDATE with no version guard in a satisfies-typed object',
      code: `
import type { CheckpointStorage } from 'checkpoint-fencing';
export default {
  async save(id, cp, condition) {
    const { rows } = await db.query('SELECT version FROM checkpoints WHERE id = $1', [id]);
    if (rows[0]?.version > condition.version) throw refused();
    await db.query(\`UPDATE checkpoints SET checkpoint = $2 WHERE id = $1\`, [id, cp]);
  },
} satisfies CheckpointStorage;
      `,
      errors: [
        {
          messageId: 'checkThenWrite',
          data: { read: 'db.query', line: 5 },
          line: 7,
          column: 11,
          endLine: 7,
          endColumn: 85,
        },
      ],
    },
    {
      name: 'a read awaited inside the test, namespace import, optional chaining and a computed write',
      code: `
import * as cf from 'checkpoint-fencing';
const S = class implements cf.CheckpointStorage {
  async resolveFirstCheckpointRace(id, candidate) {
    if ((await this.client?.hget(key, 'checkpoint')) > candidate) {
      await this.client?.['hset'](key, 'checkpoint', candidate);
    }
  }
};
      `,
      errors: [
        {
          messageId: 'checkThenWrite',
          data: { read: 'this.client?.hget', line: 5 },
          line: 6,
          column: 13,
          endLine: 6,
          endColumn: 64,
        },
      ],
    },
  ],
});
