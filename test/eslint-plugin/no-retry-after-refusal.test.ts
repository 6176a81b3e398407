import { noRetryAfterRefusal } from '../../eslint-plugin/rules/no-retry-after-refusal.js';
import { syntacticRuleTester } from './rule-tester.js';

const importError = "import { CheckpointWriteConditionNotFulfilledError } from 'checkpoint-fencing';\n";

syntacticRuleTester().run('no-retry-after-refusal', noRetryAfterRefusal, {
  valid: [
    {
      name: 'a refusal is rethrown',
      code: `${importError}async function f() {\n  try { await storage.save(id, cp, c); } catch (e) {\n    if (e instanceof CheckpointWriteConditionNotFulfilledError) { stop(); throw e; }\n  }\n}`,
    },
    {
      name: 'another error is retried',
      code: `${importError}async function f() {\n  try { await storage.save(id, cp, c); } catch (e) {\n    if (e instanceof TimeoutError) { await storage.save(id, cp, c); }\n  }\n}`,
    },
    {
      name: 'a refusal is followed by a write of another checkpoint',
      code: `${importError}async function f() {\n  try { await storage.save(id, cp, c); } catch (e) {\n    if (e instanceof CheckpointWriteConditionNotFulfilledError) { await audit.save(id, 'refused'); }\n  }\n}`,
    },
    {
      name: 'a shadowed error class is not the runtime one',
      code: `${importError}function g(CheckpointWriteConditionNotFulfilledError) {\n  try { storage.save(id, cp); } catch (e) {\n    if (e instanceof CheckpointWriteConditionNotFulfilledError) storage.save(id, cp);\n  }\n}`,
    },
    {
      name: 'a for-of loop moves on to other items, not the same checkpoint',
      code: `${importError}async function f(events) {\n  for (const event of events) {\n    try { await storage.save(id, event.position, c); } catch (e) {\n      if (e instanceof CheckpointWriteConditionNotFulfilledError) continue;\n      throw e;\n    }\n  }\n}`,
    },
    {
      name: 'a retry loop that leaves on a refusal',
      code: `${importError}async function f() {\n  while (true) {\n    try { await storage.save(id, cp, c); return; } catch (e) {\n      if (e instanceof CheckpointWriteConditionNotFulfilledError) break;\n      await sleep(10);\n    }\n  }\n}`,
    },
    {
      name: 'a loop body that ends after one pass unless something else continues it',
      code: `${importError}async function f() {\n  while (true) {\n    try { await storage.save(id, cp, c); } catch (e) {\n      if (e instanceof CheckpointWriteConditionNotFulfilledError) log(e);\n      else throw e;\n    }\n    break;\n  }\n}`,
    },
    {
      name: 'a counting loop writing a different checkpoint each pass',
      code: `${importError}async function f(cps) {\n  for (let i = 0; i < cps.length; i++) {\n    try { await storage.save(id, cps[i], c); } catch (e) {\n      if (e instanceof CheckpointWriteConditionNotFulfilledError) log(e);\n    }\n  }\n}`,
    },
    { name: 'a catch without a binding', code: `try { storage.save(id, cp); } catch { storage.save(id, cp); }` },
  ],
  invalid: [
    {
      name: 'the same write again in the refusal branch, aliased import and optional chaining',
      code: `import { CheckpointWriteConditionNotFulfilledError as Refused } from 'checkpoint-fencing';\nasync function f() {\n  try {\n    await storage?.save(id, cp, c);\n  } catch (error) {\n    if (error instanceof Refused) {\n      await storage?.save(id, cp, c);\n    }\n  }\n}`,
      errors: [{ messageId: 'retryInCatch', line: 7, column: 13, endLine: 7, endColumn: 37 }],
    },
    {
      name: 'matched by name, after a guard that rethrows other errors, with a computed member',
      code: `async function f() {\n  try {\n    await writer['save'](id, cp);\n  } catch (e) {\n    if (e.name !== 'CheckpointWriteConditionNotFulfilledError') throw e;\n    await sleep(100);\n    return writer['save'](id, cp);\n  }\n}`,
      errors: [{ messageId: 'retryInCatch', line: 7, column: 12, endLine: 7, endColumn: 34 }],
    },
    {
      name: 'a retry scheduled in a nested callback',
      code: `${importError}async function f() {\n  try { await storage.save(id, cp, c); } catch (e) {\n    if (e instanceof CheckpointWriteConditionNotFulfilledError) setTimeout(() => storage.save(id, cp, c), 100);\n  }\n}`,
      errors: [{ messageId: 'retryInCatch', line: 4, column: 82, endLine: 4, endColumn: 105 }],
    },
    {
      name: 'a while loop that continues after a refusal, namespace import',
      code: `import * as cf from 'checkpoint-fencing';\nasync function f() {\n  while (true) {\n    try {\n      await this.storage.save(id, cp, condition);\n      break;\n    } catch (e) {\n      if (e instanceof cf.CheckpointWriteConditionNotFulfilledError) { await sleep(10); continue; }\n      throw e;\n    }\n  }\n}`,
      errors: [{ messageId: 'retryByLoop', line: 5, column: 13, endLine: 5, endColumn: 49 }],
    },
    {
      name: 'a counting retry loop that swallows the refusal',
      code: `${importError}async function f() {\n  for (let attempt = 0; attempt < 3; attempt++) {\n    try {\n      return await storage.save(id, cp, condition);\n    } catch (e) {\n      if (e instanceof CheckpointWriteConditionNotFulfilledError && attempt < 2) log.warn('refused, retrying');\n    }\n  }\n}`,
      errors: [{ messageId: 'retryByLoop', line: 5, column: 20, endLine: 5, endColumn: 51 }],
    },
  ],
});
