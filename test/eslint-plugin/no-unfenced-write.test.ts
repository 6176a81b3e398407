import { noUnfencedWrite } from '../../eslint-plugin/rules/no-unfenced-write.js';
import { syntacticRuleTester, typeAwareRuleTester } from './rule-tester.js';

syntacticRuleTester().run('no-unfenced-write', noUnfencedWrite, {
  valid: [
    {
      name: 'a fenced write',
      code: `
import { CheckpointWriteCondition } from 'checkpoint-fencing';
async function f(storage, fencingToken) { await storage.save('s', 'cp', CheckpointWriteCondition.notOlderThan(fencingToken)); }
      `,
    },
    {
      name: 'an ifAbsent() write pins a start position',
      code: `
import { CheckpointWriteCondition } from 'checkpoint-fencing';
async function f(storage, fencingToken) { await storage.save('s', 'cp', CheckpointWriteCondition.ifAbsent()); }
      `,
    },
    { name: 'no token in scope', code: `async function f(storage) { await storage.save('s', 'cp'); }` },
    {
      name: 'a token in another function does not count',
      code: `
async function a(fencingToken) { return fencingToken; }
async function b(storage) { await storage.save('s', 'cp'); }
      `,
    },
    {
      name: 'a shadowing binding hides the outer token',
      code: `async function f(storage, lease) { const token = await lease.fencingToken('s'); items.map((token) => storage.save('s', token.position)); }`,
    },
    {
      name: 'a token declared after the write',
      code: `async function f(storage, lease) { await storage.save('s', 'cp'); const token = await lease.fencingToken('s'); use(token); }`,
    },
    {
      name: 'a FencedCheckpointWriter stamps the token itself',
      code: `
import { FencedCheckpointWriter } from 'checkpoint-fencing';
async function f(storage, fencingToken) { const store = new FencedCheckpointWriter(storage, { fencingToken: () => fencingToken }); await store.save('s', 'cp'); }
      `,
    },
    { name: 'save on an unrelated object', code: `function f(fencingToken) { repository.save(user, fencingToken); }` },
    {
      name: 'a token source is not a token',
      code: `async function f(storage, fencingToken: (id: string) => bigint) { await storage.save('s', 'cp'); return fencingToken('s'); }`,
    },
    {
      name: 'nothing is written where no token is held',
      code: `
import { CheckpointWriteCondition } from 'checkpoint-fencing';
async function f(storage, lease) {
  const token = await lease.fencingToken('s');
  if (token === undefined) throw new Error('no lease');
  await storage.save('s', 'cp', CheckpointWriteCondition.notOlderThan(token));
}
      `,
    },
    {
      name: 'a choice between fences only',
      code: `
import { CheckpointWriteCondition } from 'checkpoint-fencing';
async function f(storage, fencingToken, first) {
  const condition = first ? CheckpointWriteCondition.ifAbsent() : CheckpointWriteCondition.notOlderThan(fencingToken);
  await storage.save('s', 'cp', condition ?? CheckpointWriteCondition.notOlderThan(fencingToken));
}
      `,
    },
    {
      name: 'a downgrade with no token in scope: a write without leases',
      code: `
import { CheckpointWriteCondition } from 'checkpoint-fencing';
async function f(storage, version) { await storage.save('s', 'cp', version === undefined ? CheckpointWriteCondition.any() : CheckpointWriteCondition.notOlderThan(version)); }
      `,
    },
    {
      name: 'a condition held in a let binding is not followed',
      code: `
import { CheckpointWriteCondition } from 'checkpoint-fencing';
async function f(storage, fencingToken) { let c = CheckpointWriteCondition.any(); c = CheckpointWriteCondition.notOlderThan(fencingToken); await storage.save('s', 'cp', c); }
      `,
    },
    {
      name: 'any() of an unrelated CheckpointWriteCondition is not the runtime one',
      code: `
const CheckpointWriteCondition = { any: () => 1 };
function f(storage, fencingToken) { storage.save('s', 'cp', CheckpointWriteCondition.any(), fencingToken); }
      `,
    },
    {
      name: 'a name that merely contains the token pattern',
      code: `function f(storage, config) { const fencingTokenTtl = config.fencingTokenTtl; storage.save('s', 'cp'); }`,
    },
    {
      name: "a PartitionedSubscription handler that stamps its write with its context's token",
      code: `
import { CheckpointWriteCondition, PartitionedSubscription } from 'checkpoint-fencing';
export const orders = new PartitionedSubscription({
  name: 'orders', partitionKey: (event) => event.streamId, source, storage, strategy, membership,
  handler: async (event, position, context) => {
    await projectionStorage.save(\`orders/\${context.partition}\`, position, CheckpointWriteCondition.notOlderThan(context.fencingToken));
  },
});
      `,
    },
    {
      name: 'a partition handler whose context it never reads the token of holds none in scope, as a DurableSubscription handler',
      code: `
import { PartitionedSubscription } from 'checkpoint-fencing';
export const orders = new PartitionedSubscription({
  name: 'orders', partitionKey: (event) => event.streamId, source, storage, strategy, membership,
  handler: async (event, position, context) => { await projectionStorage.save(\`orders/\${context.partition}\`, position); },
});
      `,
    },
    { name: 'spread arguments', code: `function f(storage, fencingToken, args) { storage.save(...args); }` },
    {
      name: 'a computed key that is not a literal',
      code: `function f(storage, fencingToken, m) { storage[m]('s', 'cp'); }`,
    },
  ],
  invalid: [
    {
      name: 'two-argument save with a token parameter; the import is added',
      code: `
async function f(storage, fencingToken: bigint) {
  await storage.save('s', 'cp');
}
      `,
      errors: [
        {
          messageId: 'unfencedWrite',
          data: { token: 'fencingToken' },
          line: 3,
          column: 9,
          endLine: 3,
          endColumn: 32,
          suggestions: [
            {
              messageId: 'stampWithToken',
              data: { token: 'fencingToken' },
              output: `
import { CheckpointWriteCondition } from 'checkpoint-fencing';

async function f(storage, fencingToken: bigint) {
  await storage.save('s', 'cp', CheckpointWriteCondition.notOlderThan(fencingToken));
}
      `,
            },
          ],
        },
      ],
    },
    {
      name: 'any() through an aliased import, token from a fencingToken() call, optional chaining',
      code: `
import { CheckpointWriteCondition as WC } from 'checkpoint-fencing';
async function f(storage, lease) {
  const t = await lease.fencingToken('s');
  await storage?.save('s', 'cp', WC.any());
}
      `,
      errors: [
        {
          messageId: 'unfencedWrite',
          data: { token: 't' },
          line: 5,
          column: 9,
          endLine: 5,
          endColumn: 43,
          suggestions: [
            {
              messageId: 'stampWithToken',
              data: { token: 't' },
              output: `
import { CheckpointWriteCondition as WC } from 'checkpoint-fencing';
async function f(storage, lease) {
  const t = await lease.fencingToken('s');
  await storage?.save('s', 'cp', WC.notOlderThan(t));
}
      `,
            },
          ],
        },
      ],
    },
    {
      name: 'namespace import, computed member, destructured token, token captured by a nested callback',
      code: `
import * as cf from 'checkpoint-fencing';
async function f(checkpointStorage: cf.CheckpointStorage, lease) {
  const { fencingToken: held } = await lease.acquire('s');
  events.forEach((e) => checkpointStorage['save']('s', e.position, cf.CheckpointWriteCondition.any()));
}
      `,
      errors: [
        {
          messageId: 'unfencedWrite',
          data: { token: 'held' },
          line: 5,
          column: 25,
          endLine: 5,
          endColumn: 102,
          suggestions: [
            {
              messageId: 'stampWithToken',
              data: { token: 'held' },
              output: `
import * as cf from 'checkpoint-fencing';
async function f(checkpointStorage: cf.CheckpointStorage, lease) {
  const { fencingToken: held } = await lease.acquire('s');
  events.forEach((e) => checkpointStorage['save']('s', e.position, cf.CheckpointWriteCondition.notOlderThan(held)));
}
      `,
            },
          ],
        },
      ],
    },
    {
      name: 'a field declared as a CheckpointStorage, a token named by the FencingToken type; added to an existing import',
      code: `
import { type CheckpointStorage, type FencingToken } from 'checkpoint-fencing';
class Consumer {
  constructor(private readonly target: CheckpointStorage) {}
  async commit(position: string, current: FencingToken) {
    await this.target.save('s', position);
  }
}
      `,
      errors: [
        {
          messageId: 'unfencedWrite',
          data: { token: 'current' },
          line: 6,
          column: 11,
          endLine: 6,
          endColumn: 42,
          suggestions: [
            {
              messageId: 'stampWithToken',
              data: { token: 'current' },
              output: `
import { type CheckpointStorage, type FencingToken, CheckpointWriteCondition } from 'checkpoint-fencing';
class Consumer {
  constructor(private readonly target: CheckpointStorage) {}
  async commit(position: string, current: FencingToken) {
    await this.target.save('s', position, CheckpointWriteCondition.notOlderThan(current));
  }
}
      `,
            },
          ],
        },
      ],
    },
    {
      name: 'a token carried by a lease object, read in a log line',
      code: `
class Consumer {
  async run(id, cp) {
    const lease = await this.leases.acquire(id);
    this.log(\`token \${lease.fencingToken}\`);
    await this.storage.save(id, cp);
  }
}
      `,
      errors: [
        {
          messageId: 'unfencedWrite',
          data: { token: 'lease.fencingToken' },
          line: 6,
          column: 11,
          endLine: 6,
          endColumn: 36,
          suggestions: [
            {
              messageId: 'stampWithToken',
              data: { token: 'lease.fencingToken' },
              output: `
import { CheckpointWriteCondition } from 'checkpoint-fencing';

class Consumer {
  async run(id, cp) {
    const lease = await this.leases.acquire(id);
    this.log(\`token \${lease.fencingToken}\`);
    await this.storage.save(id, cp, CheckpointWriteCondition.notOlderThan(lease.fencingToken));
  }
}
      `,
            },
          ],
        },
      ],
    },
    {
      name: "a PartitionedSubscription handler given in its options: its context's token is in scope",
      code: `
import { PartitionedSubscription } from 'checkpoint-fencing';
export const orders = new PartitionedSubscription({
  name: 'orders', partitionKey: (event) => event.streamId, source, storage, strategy, membership,
  handler: async (event, position, context) => {
    await projectionStorage.save(\`orders/\${context.partition}\`, position);
    audit(event, context.fencingToken);
  },
});
      `,
      errors: [
        {
          messageId: 'unfencedWrite',
          data: { token: 'context.fencingToken' },
          line: 6,
          column: 11,
          endLine: 6,
          endColumn: 74,
          suggestions: [
            {
              messageId: 'stampWithToken',
              data: { token: 'context.fencingToken' },
              output: `
import { PartitionedSubscription, CheckpointWriteCondition } from 'checkpoint-fencing';
export const orders = new PartitionedSubscription({
  name: 'orders', partitionKey: (event) => event.streamId, source, storage, strategy, membership,
  handler: async (event, position, context) => {
    await projectionStorage.save(\`orders/\${context.partition}\`, position, CheckpointWriteCondition.notOlderThan(context.fencingToken));
    audit(event, context.fencingToken);
  },
});
      `,
            },
          ],
        },
      ],
    },
    {
      name: 'a partition handler defined as a named function and passed as handler, writing with any()',
      code: `
import { CheckpointWriteCondition, PartitionedSubscription } from 'checkpoint-fencing';
async function handleOrder(event, position, context) {
  log.info({ partition: context.partition, token: context.fencingToken });
  await projectionStorage.save(\`orders/\${context.partition}\`, position, CheckpointWriteCondition.any());
}
export const orders = new PartitionedSubscription({
  name: 'orders', partitionKey: (event) => event.streamId, source, storage, strategy, membership, handler: handleOrder,
});
      `,
      errors: [
        {
          messageId: 'unfencedWrite',
          data: { token: 'context.fencingToken' },
          line: 5,
          column: 9,
          endLine: 5,
          endColumn: 104,
          suggestions: [
            {
              messageId: 'stampWithToken',
              data: { token: 'context.fencingToken' },
              output: `
import { CheckpointWriteCondition, PartitionedSubscription } from 'checkpoint-fencing';
async function handleOrder(event, position, context) {
  log.info({ partition: context.partition, token: context.fencingToken });
  await projectionStorage.save(\`orders/\${context.partition}\`, position, CheckpointWriteCondition.notOlderThan(context.fencingToken));
}
export const orders = new PartitionedSubscription({
  name: 'orders', partitionKey: (event) => event.streamId, source, storage, strategy, membership, handler: handleOrder,
});
      `,
            },
          ],
        },
      ],
    },
    {
      name: "a partition handler that destructures its context's token and partition",
      code: `
import { PartitionedSubscription } from 'checkpoint-fencing';
export const orders = new PartitionedSubscription({
  name: 'orders', partitionKey: (event) => event.streamId, source, storage, strategy, membership,
  handler: async (event, position, { fencingToken, partition }) => { await projectionStorage.save(\`orders/\${partition}\`, position); },
});
      `,
      errors: [
        {
          messageId: 'unfencedWrite',
          data: { token: 'fencingToken' },
          line: 5,
          column: 76,
          endLine: 5,
          endColumn: 131,
          suggestions: [
            {
              messageId: 'stampWithToken',
              data: { token: 'fencingToken' },
              output: `
import { PartitionedSubscription, CheckpointWriteCondition } from 'checkpoint-fencing';
export const orders = new PartitionedSubscription({
  name: 'orders', partitionKey: (event) => event.streamId, source, storage, strategy, membership,
  handler: async (event, position, { fencingToken, partition }) => { await projectionStorage.save(\`orders/\${partition}\`, position, CheckpointWriteCondition.notOlderThan(fencingToken)); },
});
      `,
            },
          ],
        },
      ],
    },
    {
      name: 'the token === undefined ? any() : notOlderThan(token) downgrade',
      code: `
import { CheckpointWriteCondition } from 'checkpoint-fencing';
async function f(storage, lease) {
  const token = await lease.fencingToken('s');
  await storage.save('s', 'cp', token === undefined ? CheckpointWriteCondition.any() : CheckpointWriteCondition.notOlderThan(token));
}
      `,
      errors: [
        {
          messageId: 'unfencedFallback',
          data: { token: 'token' },
          line: 5,
          column: 9,
          endLine: 5,
          endColumn: 133,
          suggestions: [],
        },
      ],
    },
    {
      name: 'the downgrade the other way round, on a truthiness test, through a const condition',
      code: `
import { CheckpointWriteCondition as WC } from 'checkpoint-fencing';
async function f(storage, fencingToken) {
  const condition = fencingToken ? WC.notOlderThan(fencingToken) : WC.any();
  await storage.save('s', 'cp', condition);
}
      `,
      errors: [
        {
          messageId: 'unfencedFallback',
          data: { token: 'fencingToken' },
          line: 5,
          column: 9,
          endLine: 5,
          endColumn: 43,
          suggestions: [],
        },
      ],
    },
    {
      name: 'a ?? fallback to any()',
      code: `
import { CheckpointWriteCondition } from 'checkpoint-fencing';
async function f(storage, lease) {
  const token = await lease.fencingToken('s');
  const fenced = token === undefined ? undefined : CheckpointWriteCondition.notOlderThan(token);
  await storage.save('s', 'cp', fenced ?? CheckpointWriteCondition.any());
}
      `,
      errors: [
        {
          messageId: 'unfencedFallback',
          data: { token: 'token' },
          line: 6,
          column: 9,
          endLine: 6,
          endColumn: 74,
          suggestions: [],
        },
      ],
    },
    {
      name: 'the write in the branch where no token is held',
      code: `
import { CheckpointWriteCondition } from 'checkpoint-fencing';
async function f(storage, lease) { const fencingToken = await lease.fencingToken('s'); if (fencingToken === undefined) { await storage.save('s', 'cp', CheckpointWriteCondition.any()); } }
      `,
      errors: [
        {
          messageId: 'unfencedFallback',
          data: { token: 'fencingToken' },
          line: 3,
          column: 128,
          endLine: 3,
          endColumn: 183,
          suggestions: [],
        },
      ],
    },
    {
      name: 'the write after the token branch returned',
      code: `
import { CheckpointWriteCondition } from 'checkpoint-fencing';
async function f(storage, lease) {
  const token = await lease.fencingToken('s');
  if (token !== undefined) return storage.save('s', 'cp', CheckpointWriteCondition.notOlderThan(token));
  return storage.save('s', 'cp');
}
      `,
      errors: [
        {
          messageId: 'unfencedFallback',
          data: { token: 'token' },
          line: 6,
          column: 10,
          endLine: 6,
          endColumn: 33,
          suggestions: [],
        },
      ],
    },
    {
      name: 'any() kept in a module constant, written where a token is in scope',
      code: `
import { CheckpointWriteCondition } from 'checkpoint-fencing';
const unconditional = CheckpointWriteCondition.any();
async function f(storage, fencingToken: bigint) { await storage.save('s', 'cp', unconditional); }
      `,
      errors: [
        {
          messageId: 'unfencedWrite',
          data: { token: 'fencingToken' },
          line: 4,
          column: 57,
          endLine: 4,
          endColumn: 95,
          suggestions: [
            {
              messageId: 'stampWithToken',
              data: { token: 'fencingToken' },
              output: `
import { CheckpointWriteCondition } from 'checkpoint-fencing';
const unconditional = CheckpointWriteCondition.any();
async function f(storage, fencingToken: bigint) { await storage.save('s', 'cp', CheckpointWriteCondition.notOlderThan(fencingToken)); }
      `,
            },
          ],
        },
      ],
    },
    {
      name: 'plain JavaScript-shaped code with a custom tokenPattern; no suggestion when the name is taken',
      code: `
const CheckpointWriteCondition = 1;
function f(storage, leaseEpoch) { return storage.save('s', 'cp'); }
      `,
      options: [{ tokenPattern: '^leaseEpoch$' }],
      errors: [
        {
          messageId: 'unfencedWrite',
          data: { token: 'leaseEpoch' },
          line: 3,
          column: 42,
          endLine: 3,
          endColumn: 65,
          suggestions: [],
        },
      ],
    },
    {
      name: "the import follows the file's style: no semicolons and double quotes, after the file's last import",
      code: `
import { Lease } from "./lease"

export async function commit(storage, lease: Lease, position: string) {
  const fencingToken = await lease.fencingToken("projection")
  await storage.save("projection", position)
}
      `,
      errors: [
        {
          messageId: 'unfencedWrite',
          data: { token: 'fencingToken' },
          line: 6,
          column: 9,
          endLine: 6,
          endColumn: 45,
          suggestions: [
            {
              messageId: 'stampWithToken',
              data: { token: 'fencingToken' },
              output: `
import { Lease } from "./lease"
import { CheckpointWriteCondition } from "checkpoint-fencing"

export async function commit(storage, lease: Lease, position: string) {
  const fencingToken = await lease.fencingToken("projection")
  await storage.save("projection", position, CheckpointWriteCondition.notOlderThan(fencingToken))
}
      `,
            },
          ],
        },
      ],
    },
    {
      name: "the import follows the file's style: merged into the package's import, broken one name a line past the width",
      code: `
import { type CheckpointStorage, type FencingToken, UnsupportedWriteConditionError } from "checkpoint-fencing"

export async function commit(storage: CheckpointStorage, fencingToken: FencingToken, position: string) {
  await storage.save("projection", position)
}
      `,
      errors: [
        {
          messageId: 'unfencedWrite',
          data: { token: 'fencingToken' },
          line: 5,
          column: 9,
          endLine: 5,
          endColumn: 45,
          suggestions: [
            {
              messageId: 'stampWithToken',
              data: { token: 'fencingToken' },
              output: `
import {
  type CheckpointStorage,
  type FencingToken,
  UnsupportedWriteConditionError,
  CheckpointWriteCondition,
} from "checkpoint-fencing"

export async function commit(storage: CheckpointStorage, fencingToken: FencingToken, position: string) {
  await storage.save("projection", position, CheckpointWriteCondition.notOlderThan(fencingToken))
}
      `,
            },
          ],
        },
      ],
    },
    {
      name: 'the import in a TypeScript file in CommonJS syntax: `import x = require`, the names through it',
      code: `
import type { FencingToken } from 'checkpoint-fencing'
export = async function commit(storage, fencingToken: FencingToken, position: string) {
  await storage.save('projection', position)
}
      `,
      errors: [
        {
          messageId: 'unfencedWrite',
          data: { token: 'fencingToken' },
          line: 4,
          column: 9,
          endLine: 4,
          endColumn: 45,
          suggestions: [
            {
              messageId: 'stampWithToken',
              data: { token: 'fencingToken' },
              output: `
import type { FencingToken } from 'checkpoint-fencing'
import checkpointFencing = require('checkpoint-fencing')
export = async function commit(storage, fencingToken: FencingToken, position: string) {
  await storage.save('projection', position, checkpointFencing.CheckpointWriteCondition.notOlderThan(fencingToken))
}
      `,
            },
          ],
        },
      ],
    },
    {
      name: 'the import in a CommonJS JavaScript file: a require, after the directive prologue',
      filename: 'commit.cjs',
      code: `
'use strict';
module.exports = async function commit(storage, fencingToken, position) {
  await storage.save('projection', position);
};
      `,
      errors: [
        {
          messageId: 'unfencedWrite',
          data: { token: 'fencingToken' },
          line: 4,
          column: 9,
          endLine: 4,
          endColumn: 45,
          suggestions: [
            {
              messageId: 'stampWithToken',
              data: { token: 'fencingToken' },
              output: `
'use strict';

const { CheckpointWriteCondition } = require('checkpoint-fencing');
module.exports = async function commit(storage, fencingToken, position) {
  await storage.save('projection', position, CheckpointWriteCondition.notOlderThan(fencingToken));
};
      `,
            },
          ],
        },
      ],
    },
  ],
});

typeAwareRuleTester().run('no-unfenced-write (useTypeInformation)', noUnfencedWrite, {
  valid: [
    {
      name: 'a receiver named like a storage that is not one',
      code: `
const store = new Map<string, string>() as unknown as { save(a: string, b: string): void };
export function f(fencingToken: bigint) { store.save('s', 'cp'); }
      `,
      options: [{ useTypeInformation: true }],
    },
    {
      name: 'a binding named like a token that is not a number',
      code: `
import type { CheckpointStorage } from 'checkpoint-fencing';
export async function f(storage: CheckpointStorage, fencingToken: string) { await storage.save('s', fencingToken, undefined as never); }
      `,
      options: [{ useTypeInformation: true }],
    },
  ],
  invalid: [
    {
      name: 'the downgrade of a token from a FencingTokenSource, which may answer undefined',
      code: `
import { CheckpointWriteCondition, type CheckpointStorage, type FencingTokenSource } from 'checkpoint-fencing';
export async function f(s: CheckpointStorage, source: FencingTokenSource) {
  const t = await source('s');
  await s.save('s', 'cp', t === undefined ? CheckpointWriteCondition.any() : CheckpointWriteCondition.notOlderThan(t));
}
      `,
      options: [{ useTypeInformation: true }],
      errors: [
        {
          messageId: 'unfencedFallback',
          data: { token: 't' },
          line: 5,
          column: 9,
          endLine: 5,
          endColumn: 119,
          suggestions: [],
        },
      ],
    },
    {
      name: 'a write in the branch where a typed token is undefined',
      code: `
import { CheckpointWriteCondition, type CheckpointStorage } from 'checkpoint-fencing';
export async function f(s: CheckpointStorage, lease: { fencingToken(id: string): bigint | undefined }) {
  const fencingToken = lease.fencingToken('s');
  if (fencingToken === undefined) {
    return s.save('s', 'cp', CheckpointWriteCondition.any());
  }
  return s.save('s', 'cp', CheckpointWriteCondition.notOlderThan(fencingToken));
}
      `,
      options: [{ useTypeInformation: true }],
      errors: [
        {
          messageId: 'unfencedFallback',
          data: { token: 'fencingToken' },
          line: 6,
          column: 12,
          endLine: 6,
          endColumn: 61,
          suggestions: [],
        },
      ],
    },
    {
      name: 'a receiver typed as a storage or undefined, written through optional chaining',
      code: `
import { CheckpointWriteCondition, type CheckpointStorage } from 'checkpoint-fencing';
declare const found: CheckpointStorage | undefined;
const s = found;
export async function f(fencingToken: bigint) {
  await s?.save('s', 'cp');
}
      `,
      options: [{ useTypeInformation: true }],
      errors: [
        {
          messageId: 'unfencedWrite',
          data: { token: 'fencingToken' },
          line: 6,
          column: 9,
          endLine: 6,
          endColumn: 27,
          suggestions: [
            {
              messageId: 'stampWithToken',
              data: { token: 'fencingToken' },
              output: `
import { CheckpointWriteCondition, type CheckpointStorage } from 'checkpoint-fencing';
declare const found: CheckpointStorage | undefined;
const s = found;
export async function f(fencingToken: bigint) {
  await s?.save('s', 'cp', CheckpointWriteCondition.notOlderThan(fencingToken));
}
      `,
            },
          ],
        },
      ],
    },
    {
      name: 'a typed partition handler: its PartitionHandlerContext token, read by the write it should stamp',
      code: `
import {
  CheckpointWriteCondition,
  type CheckpointStorage,
  type PartitionHandlerContext,
} from 'checkpoint-fencing';
declare const projections: CheckpointStorage;
export async function handleOrder(event: { streamId: string }, position: string, context: PartitionHandlerContext) {
  if (context.fencingToken === undefined) throw new Error('unfenced');
  await projections.save(\`orders/\${context.partition}\`, position, CheckpointWriteCondition.any());
}
      `,
      options: [{ useTypeInformation: true }],
      errors: [
        {
          messageId: 'unfencedWrite',
          data: { token: 'context.fencingToken' },
          line: 10,
          column: 9,
          endLine: 10,
          endColumn: 98,
          suggestions: [
            {
              messageId: 'stampWithToken',
              data: { token: 'context.fencingToken' },
              output: `
import {
  CheckpointWriteCondition,
  type CheckpointStorage,
  type PartitionHandlerContext,
} from 'checkpoint-fencing';
declare const projections: CheckpointStorage;
export async function handleOrder(event: { streamId: string }, position: string, context: PartitionHandlerContext) {
  if (context.fencingToken === undefined) throw new Error('unfenced');
  await projections.save(\`orders/\${context.partition}\`, position, CheckpointWriteCondition.notOlderThan(context.fencingToken));
}
      `,
            },
          ],
        },
      ],
    },
    {
      name: 'a storage known by its type only, a token from a FencingTokenSource',
      code: `
import { InMemoryCheckpointStorage, CheckpointWriteCondition, type FencingTokenSource } from 'checkpoint-fencing';
const make = () => new InMemoryCheckpointStorage();
export async function f(source: FencingTokenSource) {
  const s = make();
  const t = await source('s');
  await s.save('s', 'cp', CheckpointWriteCondition.any());
}
      `,
      options: [{ useTypeInformation: true }],
      errors: [
        {
          messageId: 'unfencedWrite',
          data: { token: 't' },
          line: 7,
          column: 9,
          endLine: 7,
          endColumn: 58,
          suggestions: [
            {
              messageId: 'stampWithToken',
              data: { token: 't' },
              output: `
import { InMemoryCheckpointStorage, CheckpointWriteCondition, type FencingTokenSource } from 'checkpoint-fencing';
const make = () => new InMemoryCheckpointStorage();
export async function f(source: FencingTokenSource) {
  const s = make();
  const t = await source('s');
  await s.save('s', 'cp', CheckpointWriteCondition.notOlderThan(t));
}
      `,
            },
          ],
        },
      ],
    },
  ],
});
