import { noTokenWithoutWrite } from '../../eslint-plugin/rules/no-token-without-write.js';
import { syntacticRuleTester, typeAwareRuleTester } from './rule-tester.js';

syntacticRuleTester().run('no-token-without-write', noTokenWithoutWrite, {
  valid: [
    {
      name: 'the token reaches the write condition',
      code: `
async function f(lease) {
  const token = await lease.fencingToken(id);
  logger.info({ token });
  await storage.save(id, cp, CheckpointWriteCondition.notOlderThan(token));
}
      `,
    },
    {
      name: 'the token is handed to a helper that may write with it',
      code: `async function f(lease) { const fencingToken = await lease.acquire(id); log.debug(\`token \${fencingToken}\`); await commit(fencingToken); }`,
    },
    {
      name: 'the token is returned to the caller',
      code: `async function f(lease) { const token = lease.fencingToken(id); console.log(token); return token; }`,
    },
    {
      name: 'a token passed in as a parameter is not obtained here',
      code: `function f(fencingToken) { console.log(fencingToken); }`,
    },
    {
      name: 'a token read at module level is a cache, not this rule',
      code: `
const fencingToken = await lease.fencingToken(id);
console.log(fencingToken);
      `,
    },
    {
      name: 'a token only tested for presence is left to no-unfenced-write',
      code: `async function f(lease) { const token = await lease.fencingToken(id); if (token === undefined) throw new Error('lost'); }`,
    },
    {
      name: 'a callback parameter that shadows the token is a different binding',
      code: `
async function f(lease, items) {
  const token = await lease.fencingToken(id);
  items.forEach((token) => console.log(token));
  await storage.save(id, cp, CheckpointWriteCondition.notOlderThan(token));
}
      `,
    },
    {
      name: 'a token-source function is not a token',
      code: `function f(options) { const fencingToken = options.makeFencingToken(); console.log(fencingToken(id)); }`,
    },
    {
      name: 'an unrelated value named token by a call that is not a token source',
      code: `async function f(auth) { const token = await auth.login(); console.log(token); }`,
    },
  ],
  invalid: [
    {
      name: 'a token only logged, including in a template and an object field',
      code: `
async function consume(lease, id) {
  const token = await lease?.fencingToken(id);
  logger.info(\`holding \${token}\`, { fencingToken: String(token) });
  await storage.save(id, cp);
}
      `,
      errors: [
        {
          messageId: 'tokenNeverFences',
          data: { token: 'token', uses: 'logged' },
          line: 3,
          column: 9,
          endLine: 3,
          endColumn: 14,
        },
      ],
    },
    {
      name: 'a destructured token stored in a field and put on a span, inside a nested arrow function',
      code: `
class Worker {
  start() {
    return async (id) => {
      const { fencingToken: held } = await this.lease.acquire(id);
      this.lastToken = held;
      span.setAttribute('fencing.token', held.toString());
    };
  }
}
      `,
      errors: [
        {
          messageId: 'tokenNeverFences',
          data: { token: 'held', uses: 'logged and stored in a field' },
          line: 5,
          column: 29,
          endLine: 5,
          endColumn: 33,
        },
      ],
    },
    {
      name: 'a token carried by a lease object and only logged',
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
          messageId: 'tokenNeverFences',
          data: { token: 'lease.fencingToken', uses: 'logged' },
          line: 4,
          column: 11,
          endLine: 4,
          endColumn: 16,
        },
      ],
    },
  ],
});

typeAwareRuleTester().run('no-token-without-write (useTypeInformation)', noTokenWithoutWrite, {
  valid: [
    {
      name: 'a binding named like a token whose type is not a number',
      code: `
declare const lease: { fencingTokenLabel(id: string): string };
export function f() { const fencingToken = lease.fencingTokenLabel('s'); console.log(fencingToken); }
      `,
      options: [{ useTypeInformation: true }],
    },
  ],
  invalid: [
    {
      name: 'a bigint token from a strategy, only logged',
      code: `
declare const strategy: { fencingToken(id: string): bigint | undefined };
export function f() {
  const current = strategy.fencingToken('s');
  console.info('token', current);
}
      `,
      options: [{ useTypeInformation: true }],
      errors: [
        {
          messageId: 'tokenNeverFences',
          data: { token: 'current', uses: 'logged' },
          line: 4,
          column: 9,
          endLine: 4,
          endColumn: 16,
        },
      ],
    },
  ],
});
