import { noTokenWithoutWrite } from '../../eslint-plugin/rules/no-token-without-write.js';
import { syntacticRuleTester, typeAwareRuleTester } from './rule-tester.js';

syntacticRuleTester().run('no-token-without-write', noTokenWithoutWrite, {
  valid: [
    {
      name: 'the token reaches the write condition',
      code: `async function f(lease) {\n  const token = await lease.fencingToken(id);\n  logger.info({ token });\n  await storage.save(id, cp, CheckpointWriteCondition.notOlderThan(token));\n}`,
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
      code: `const fencingToken = await lease.fencingToken(id);\nconsole.log(fencingToken);`,
    },
    {
      name: 'a token only tested for presence is left to no-unfenced-write',
      code: `async function f(lease) { const token = await lease.fencingToken(id); if (token === undefined) throw new Error('lost'); }`,
    },
    {
      name: 'a callback parameter that shadows the token is a different binding',
      code: `async function f(lease, items) {\n  const token = await lease.fencingToken(id);\n  items.forEach((token) => console.log(token));\n  await storage.save(id, cp, CheckpointWriteCondition.notOlderThan(token));\n}`,
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
      code: `async function consume(lease, id) {\n  const token = await lease?.fencingToken(id);\n  logger.info(\`holding \${token}\`, { fencingToken: String(token) });\n  await storage.save(id, cp);\n}`,
      errors: [
        {
          messageId: 'tokenNeverFences',
          data: { token: 'token', uses: 'logged' },
          line: 2,
          column: 9,
          endLine: 2,
          endColumn: 14,
        },
      ],
    },
    {
      name: 'a destructured token stored in a field and put on a span, inside a nested arrow function',
      code: `class Worker {\n  start() {\n    return async (id) => {\n      const { fencingToken: held } = await this.lease.acquire(id);\n      this.lastToken = held;\n      span.setAttribute('fencing.token', held.toString());\n    };\n  }\n}`,
      errors: [
        {
          messageId: 'tokenNeverFences',
          data: { token: 'held', uses: 'logged and stored in a field' },
          line: 4,
          column: 29,
          endLine: 4,
          endColumn: 33,
        },
      ],
    },
    {
      name: 'a token carried by a lease object and only logged',
      code: `class Consumer {\n  async run(id, cp) {\n    const lease = await this.leases.acquire(id);\n    this.log(\`token \${lease.fencingToken}\`);\n    await this.storage.save(id, cp);\n  }\n}`,
      errors: [
        {
          messageId: 'tokenNeverFences',
          data: { token: 'lease.fencingToken', uses: 'logged' },
          line: 3,
          column: 11,
          endLine: 3,
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
      code: `declare const lease: { fencingTokenLabel(id: string): string };\nexport function f() { const fencingToken = lease.fencingTokenLabel('s'); console.log(fencingToken); }`,
      options: [{ useTypeInformation: true }],
    },
  ],
  invalid: [
    {
      name: 'a bigint token from a strategy, only logged',
      code: `declare const strategy: { fencingToken(id: string): bigint | undefined };\nexport function f() {\n  const current = strategy.fencingToken('s');\n  console.info('token', current);\n}`,
      options: [{ useTypeInformation: true }],
      errors: [
        {
          messageId: 'tokenNeverFences',
          data: { token: 'current', uses: 'logged' },
          line: 3,
          column: 9,
          endLine: 3,
          endColumn: 16,
        },
      ],
    },
  ],
});
