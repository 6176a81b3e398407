import { noCachedFencingToken } from '../../eslint-plugin/rules/no-cached-fencing-token.js';
import { syntacticRuleTester } from './rule-tester.js';

const importCondition = "import { CheckpointWriteCondition } from 'checkpoint-fencing';\n";

syntacticRuleTester().run('no-cached-fencing-token', noCachedFencingToken, {
  valid: [
    {
      name: 'the field is refreshed right before the write in the same method',
      code: `${importCondition}class C {\n  async commit(id, cp) {\n    this.token = await this.lease.fencingToken(id);\n    await this.storage.save(id, cp, CheckpointWriteCondition.notOlderThan(this.token));\n  }\n}`,
    },
    {
      name: 'a local token read before the write',
      code: `${importCondition}async function commit(lease, id, cp) {\n  const token = await lease.fencingToken(id);\n  await storage.save(id, cp, CheckpointWriteCondition.notOlderThan(token));\n}`,
    },
    {
      name: 'a field holding a token source, called before every write',
      code: `${importCondition}class W {\n  #fencingToken;\n  constructor(options) { this.#fencingToken = options.fencingToken; }\n  async save(id, cp) { return this.storage.save(id, cp, CheckpointWriteCondition.notOlderThan(await this.#fencingToken(id))); }\n}`,
    },
    {
      name: 'a notOlderThan that is not the runtime one',
      code: `const CheckpointWriteCondition = { notOlderThan: (v) => v };\nclass C { start() { this.token = lease.fencingToken(id); } commit() { CheckpointWriteCondition.notOlderThan(this.token); } }`,
    },
    {
      name: 'a field of the same name in another class',
      code: `${importCondition}class A { start() { this.token = lease.fencingToken(id); } }\nclass B { constructor(token) { this.token = token; } commit() { return CheckpointWriteCondition.notOlderThan(this.token); } }`,
    },
    {
      name: 'a local token that shadows a cached module variable',
      code: `${importCondition}let fencingToken;\nexport async function start(lease) { fencingToken = await lease.fencingToken('s'); }\nexport async function commit(lease, cp) {\n  const fencingToken = await lease.fencingToken('s');\n  await storage.save('s', cp, CheckpointWriteCondition.notOlderThan(fencingToken));\n}`,
    },
    {
      name: 'a module-level token used by module-level code that read it',
      code: `${importCondition}const token = await lease.fencingToken('s');\nawait storage.save('s', cp, CheckpointWriteCondition.notOlderThan(token));`,
    },
  ],
  invalid: [
    {
      name: 'a field read once on start and used on every commit',
      code: `${importCondition}class Consumer {\n  async start(id) {\n    this.token = await this.lease.fencingToken(id);\n  }\n  async commit(id, cp) {\n    await this.storage.save(id, cp, CheckpointWriteCondition.notOlderThan(this.token));\n  }\n}`,
      errors: [
        {
          messageId: 'cachedToken',
          data: { name: 'this.token', line: 4 },
          line: 7,
          column: 75,
          endLine: 7,
          endColumn: 85,
        },
      ],
    },
    {
      name: 'a private field assigned from a local token, aliased import, non-null assertion',
      code: `import { CheckpointWriteCondition as WC } from 'checkpoint-fencing';\nclass Consumer {\n  #fencingToken;\n  async acquire(id) {\n    const fencingToken = await this.lease.acquire(id);\n    this.#fencingToken = fencingToken;\n  }\n  commit = (id, cp) => this.storage.save(id, cp, WC.notOlderThan(this.#fencingToken!));\n}`,
      errors: [
        {
          messageId: 'cachedToken',
          data: { name: 'this.#fencingToken', line: 6 },
          line: 8,
          column: 66,
          endLine: 8,
          endColumn: 85,
        },
      ],
    },
    {
      name: 'a field written and read through computed keys',
      code: `${importCondition}class Consumer {\n  async start(id) { this['token'] = await this.lease.fencingToken(id); }\n  commit(id, cp) { return this.storage.save(id, cp, CheckpointWriteCondition.notOlderThan(this[\`token\`])); }\n}`,
      errors: [
        {
          messageId: 'cachedToken',
          data: { name: 'this[`token`]', line: 3 },
          line: 4,
          column: 91,
          endLine: 4,
          endColumn: 104,
        },
      ],
    },
    {
      name: 'a module variable set by one function and used by another, namespace import',
      code: `import * as cf from 'checkpoint-fencing';\nlet fencingToken;\nexport async function start(lease) {\n  fencingToken = await lease.fencingToken('s');\n}\nexport async function commit(cp) {\n  await storage.save('s', cp, cf.CheckpointWriteCondition.notOlderThan(fencingToken));\n}`,
      errors: [
        {
          messageId: 'cachedToken',
          data: { name: 'fencingToken', line: 4 },
          line: 7,
          column: 72,
          endLine: 7,
          endColumn: 84,
        },
      ],
    },
    {
      name: 'a token read once by top-level await and used inside a function',
      code: `${importCondition}const token = await lease.fencingToken('s');\nexport const commit = (cp) => storage.save('s', cp, CheckpointWriteCondition.notOlderThan(token));`,
      errors: [
        { messageId: 'cachedToken', data: { name: 'token', line: 2 }, line: 3, column: 91, endLine: 3, endColumn: 96 },
      ],
    },
  ],
});
