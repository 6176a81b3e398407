import { noCachedFencingToken } from '../../eslint-plugin/rules/no-cached-fencing-token.js';
import { syntacticRuleTester } from './rule-tester.js';

syntacticRuleTester().run('no-cached-fencing-token', noCachedFencingToken, {
  valid: [
    {
      name: 'the field is refreshed right before the write in the same method',
      code: `
import { CheckpointWriteCondition } from 'checkpoint-fencing';
class C {
  async commit(id, cp) {
    this.token = await this.lease.fencingToken(id);
    await this.storage.save(id, cp, CheckpointWriteCondition.notOlderThan(this.token));
  }
}
      `,
    },
    {
      name: 'a local token read before the write',
      code: `
import { CheckpointWriteCondition } from 'checkpoint-fencing';
async function commit(lease, id, cp) {
  const token = await lease.fencingToken(id);
  await storage.save(id, cp, CheckpointWriteCondition.notOlderThan(token));
}
      `,
    },
    {
      name: 'a field holding a token source, called before every write',
      code: `
import { CheckpointWriteCondition } from 'checkpoint-fencing';
class W {
  #fencingToken;
  constructor(options) { this.#fencingToken = options.fencingToken; }
  async save(id, cp) { return this.storage.save(id, cp, CheckpointWriteCondition.notOlderThan(await this.#fencingToken(id))); }
}
      `,
    },
    {
      name: 'a notOlderThan that is not the runtime one',
      code: `
const CheckpointWriteCondition = { notOlderThan: (v) => v };
class C { start() { this.token = lease.fencingToken(id); } commit() { CheckpointWriteCondition.notOlderThan(this.token); } }
      `,
    },
    {
      name: 'a field of the same name in another class',
      code: `
import { CheckpointWriteCondition } from 'checkpoint-fencing';
class A { start() { this.token = lease.fencingToken(id); } }
class B { constructor(token) { this.token = token; } commit() { return CheckpointWriteCondition.notOlderThan(this.token); } }
      `,
    },
    {
      name: 'a local token that shadows a cached module variable',
      code: `
import { CheckpointWriteCondition } from 'checkpoint-fencing';
let fencingToken;
export async function start(lease) { fencingToken = await lease.fencingToken('s'); }
export async function commit(lease, cp) {
  const fencingToken = await lease.fencingToken('s');
  await storage.save('s', cp, CheckpointWriteCondition.notOlderThan(fencingToken));
}
      `,
    },
    {
      name: 'a module-level token used by module-level code that read it',
      code: `
import { CheckpointWriteCondition } from 'checkpoint-fencing';
const token = await lease.fencingToken('s');
await storage.save('s', cp, CheckpointWriteCondition.notOlderThan(token));
      `,
    },
  ],
  invalid: [
    {
      name: 'a field read once on start and used on every commit',
      code: `
import { CheckpointWriteCondition } from 'checkpoint-fencing';
class Consumer {
  async start(id) {
    this.token = await this.lease.fencingToken(id);
  }
  async commit(id, cp) {
    await this.storage.save(id, cp, CheckpointWriteCondition.notOlderThan(this.token));
  }
}
      `,
      errors: [
        {
          messageId: 'cachedToken',
          data: { name: 'this.token', line: 5 },
          line: 8,
          column: 75,
          endLine: 8,
          endColumn: 85,
        },
      ],
    },
    {
      name: 'a private field assigned from a local token, aliased import, non-null assertion',
      code: `
import { CheckpointWriteCondition as WC } from 'checkpoint-fencing';
class Consumer {
  #fencingToken;
  async acquire(id) {
    const fencingToken = await this.lease.acquire(id);
    this.#fencingToken = fencingToken;
  }
  commit = (id, cp) => this.storage.save(id, cp, WC.notOlderThan(this.#fencingToken!));
}
      `,
      errors: [
        {
          messageId: 'cachedToken',
          data: { name: 'this.#fencingToken', line: 7 },
          line: 9,
          column: 66,
          endLine: 9,
          endColumn: 85,
        },
      ],
    },
    {
      name: 'a field written and read through computed keys',
      code: `
import { CheckpointWriteCondition } from 'checkpoint-fencing';
class Consumer {
  async start(id) { this['token'] = await this.lease.fencingToken(id); }
  commit(id, cp) { return this.storage.save(id, cp, CheckpointWriteCondition.notOlderThan(this[\`token\`])); }
}
      `,
      errors: [
        {
          messageId: 'cachedToken',
          data: { name: 'this[`token`]', line: 4 },
          line: 5,
          column: 91,
          endLine: 5,
          endColumn: 104,
        },
      ],
    },
    {
      name: 'a module variable set by one function and used by another, namespace import',
      code: `
import * as cf from 'checkpoint-fencing';
let fencingToken;
export async function start(lease) {
  fencingToken = await lease.fencingToken('s');
}
export async function commit(cp) {
  await storage.save('s', cp, cf.CheckpointWriteCondition.notOlderThan(fencingToken));
}
      `,
      errors: [
        {
          messageId: 'cachedToken',
          data: { name: 'fencingToken', line: 5 },
          line: 8,
          column: 72,
          endLine: 8,
          endColumn: 84,
        },
      ],
    },
    {
      name: "one partition's token kept for every partition: a handler context's token cached in a module variable",
      code: `
import { CheckpointWriteCondition, PartitionedSubscription } from 'checkpoint-fencing';
let firstToken;
function remember({ fencingToken }) { firstToken = fencingToken; }
export const orders = new PartitionedSubscription({
  name: 'orders', partitionKey: (event) => event.streamId, source, storage, strategy, membership,
  handler: async (event, position, context) => {
    remember(context);
    await projectionStorage.save(\`orders/\${context.partition}\`, position, CheckpointWriteCondition.notOlderThan(firstToken));
  },
});
      `,
      errors: [
        {
          messageId: 'cachedToken',
          data: { name: 'firstToken', line: 4 },
          line: 9,
          column: 113,
          endLine: 9,
          endColumn: 123,
        },
      ],
    },
    {
      name: 'a token read once by top-level await and used inside a function',
      code: `
import { CheckpointWriteCondition } from 'checkpoint-fencing';
const token = await lease.fencingToken('s');
export const commit = (cp) => storage.save('s', cp, CheckpointWriteCondition.notOlderThan(token));
      `,
      errors: [
        { messageId: 'cachedToken', data: { name: 'token', line: 3 }, line: 4, column: 91, endLine: 4, endColumn: 96 },
      ],
    },
  ],
});
