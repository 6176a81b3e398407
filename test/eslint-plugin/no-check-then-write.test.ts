import { noCheckThenWrite } from '../../eslint-plugin/rules/no-check-then-write.js';
import { syntacticRuleTester } from './rule-tester.js';

const importStorage = "import type { CheckpointStorage } from 'checkpoint-fencing';\n";

syntacticRuleTester().run('no-check-then-write', noCheckThenWrite, {
  valid: [
    {
      name: 'an in-memory storage decides and writes between two awaits',
      code: `${importStorage}class S implements CheckpointStorage {\n  async save(id, cp, condition) {\n    const stored = this.entries.get(id);\n    if (stored !== undefined && stored.version > condition.version) throw refused();\n    this.entries.set(id, { cp, version: condition.version });\n  }\n}`,
    },
    {
      name: 'a Lua script judges the condition on the server',
      code: `${importStorage}class S implements CheckpointStorage {\n  async save(id, cp, condition) {\n    const version = await this.redis.get(versionKey(id));\n    if (version === null) log('first write');\n    return this.redis.eval(SCRIPT, 2, checkpointKey(id), versionKey(id), cp);\n  }\n}`,
    },
    {
      name: 'an optimistic WATCH/MULTI transaction',
      code: `${importStorage}class S implements CheckpointStorage {\n  async save(id, cp, condition) {\n    await this.redis.watch(key);\n    const stored = await this.redis.get(key);\n    if (BigInt(stored) > condition.version) throw refused();\n    await this.redis.multi().set(key, cp).exec();\n  }\n}`,
    },
    {
      name: 'a conditional UPDATE that judges the version itself',
      code: `${importStorage}const s: CheckpointStorage = {\n  async save(id, cp, condition) {\n    const { rows } = await db.query('SELECT version FROM checkpoints WHERE id = $1', [id]);\n    if (rows.length === 0) return insertFirst(id, cp);\n    await db.query('UPDATE checkpoints SET checkpoint = $2 WHERE id = $1 AND version <= $3', [id, cp, condition.version]);\n  },\n};`,
    },
    {
      name: 'a wrapper that forwards the condition to the storage it wraps',
      code: `${importStorage}class Logged implements CheckpointStorage {\n  async save(id, cp, condition) {\n    const before = await this.inner.writeVersion(id);\n    if (before !== undefined) log(before);\n    return this.inner.save(id, cp, condition);\n  }\n}`,
    },
    {
      name: 'a read that is never compared',
      code: `${importStorage}class S implements CheckpointStorage {\n  async save(id, cp, condition) {\n    const previous = await this.redis.get(id);\n    await this.redis.set(id, cp);\n    return previous;\n  }\n}`,
    },
    {
      name: 'read, compare, write outside a checkpoint storage',
      code: `class Cache {\n  async put(k, v) {\n    const old = await this.redis.get(k);\n    if (old !== v) await this.redis.set(k, v);\n  }\n}`,
    },
  ],
  invalid: [
    {
      name: 'the stored version is read, compared, and the checkpoint written in another step; aliased import',
      code: `import type { CheckpointStorage as Store } from 'checkpoint-fencing';\nexport class NaiveRedisStorage implements Store {\n  async save(id, cp, condition) {\n    const stored = await this.writeVersion(id);\n    if (stored !== undefined && stored > condition.version) throw refused();\n    await this.redis.set(key(id), cp);\n  }\n}`,
      errors: [
        {
          messageId: 'checkThenWrite',
          data: { read: 'this.writeVersion', line: 4 },
          line: 6,
          column: 11,
          endLine: 6,
          endColumn: 38,
        },
      ],
    },
    {
      name: 'an SQL SELECT then an UPDATE with no version guard in a satisfies-typed object',
      code: `${importStorage}export default {\n  async save(id, cp, condition) {\n    const { rows } = await db.query('SELECT version FROM checkpoints WHERE id = $1', [id]);\n    if (rows[0]?.version > condition.version) throw refused();\n    await db.query(\`UPDATE checkpoints SET checkpoint = $2 WHERE id = $1\`, [id, cp]);\n  },\n} satisfies CheckpointStorage;`,
      errors: [
        {
          messageId: 'checkThenWrite',
          data: { read: 'db.query', line: 4 },
          line: 6,
          column: 11,
          endLine: 6,
          endColumn: 85,
        },
      ],
    },
    {
      name: 'a read awaited inside the test, namespace import, optional chaining and a computed write',
      code: `import * as cf from 'checkpoint-fencing';\nconst S = class implements cf.CheckpointStorage {\n  async resolveFirstCheckpointRace(id, candidate) {\n    if ((await this.client?.hget(key, 'checkpoint')) > candidate) {\n      await this.client?.['hset'](key, 'checkpoint', candidate);\n    }\n  }\n};`,
      errors: [
        {
          messageId: 'checkThenWrite',
          data: { read: 'this.client?.hget', line: 4 },
          line: 5,
          column: 13,
          endLine: 5,
          endColumn: 64,
        },
      ],
    },
  ],
});
