import { noRetryAfterRefusal } from '../../eslint-plugin/rules/no-retry-after-refusal.js';
import { describe, expect, it } from 'vitest';
import { syntacticRuleTester } from './rule-tester.js';

syntacticRuleTester().run('no-retry-after-refusal', noRetryAfterRefusal, {
  valid: [
    {
      name: 'a refusal is rethrown',
      code: `
import { CheckpointWriteConditionNotFulfilledError } from 'checkpoint-fencing';
async function f() {
  try { await storage.save(id, cp, c); } catch (e) {
    if (e instanceof CheckpointWriteConditionNotFulfilledError) { stop(); throw e; }
  }
}
      `,
    },
    {
      name: 'another error is retried',
      code: `
import { CheckpointWriteConditionNotFulfilledError } from 'checkpoint-fencing';
async function f() {
  try { await storage.save(id, cp, c); } catch (e) {
    if (e instanceof TimeoutError) { await storage.save(id, cp, c); }
  }
}
      `,
    },
    {
      name: 'a refusal is followed by a write of another checkpoint',
      code: `
import { CheckpointWriteConditionNotFulfilledError } from 'checkpoint-fencing';
async function f() {
  try { await storage.save(id, cp, c); } catch (e) {
    if (e instanceof CheckpointWriteConditionNotFulfilledError) { await audit.save(id, 'refused'); }
  }
}
      `,
    },
    {
      name: 'a shadowed error class is not the runtime one',
      code: `
import { CheckpointWriteConditionNotFulfilledError } from 'checkpoint-fencing';
function g(CheckpointWriteConditionNotFulfilledError) {
  try { storage.save(id, cp); } catch (e) {
    if (e instanceof CheckpointWriteConditionNotFulfilledError) storage.save(id, cp);
  }
}
      `,
    },
    {
      name: 'a for-of loop moves on to other items, not the same checkpoint',
      code: `
import { CheckpointWriteConditionNotFulfilledError } from 'checkpoint-fencing';
async function f(events) {
  for (const event of events) {
    try { await storage.save(id, event.position, c); } catch (e) {
      if (e instanceof CheckpointWriteConditionNotFulfilledError) continue;
      throw e;
    }
  }
}
      `,
    },
    {
      name: 'a retry loop whose catch logs a refusal and then rethrows every error',
      code: `
import { CheckpointWriteConditionNotFulfilledError } from 'checkpoint-fencing';
async function f() {
  for (let attempt = 0; attempt < 3; attempt++) {
    try { await storage.save(id, cp, c); return; } catch (e) {
      if (e instanceof CheckpointWriteConditionNotFulfilledError) { log('refused'); }
      throw e;
    }
  }
}
      `,
    },
    {
      name: 'a retry loop that leaves on a refusal',
      code: `
import { CheckpointWriteConditionNotFulfilledError } from 'checkpoint-fencing';
async function f() {
  while (true) {
    try { await storage.save(id, cp, c); return; } catch (e) {
      if (e instanceof CheckpointWriteConditionNotFulfilledError) break;
      await sleep(10);
    }
  }
}
      `,
    },
    {
      name: 'a loop body that ends after one pass unless something else continues it',
      code: `
import { CheckpointWriteConditionNotFulfilledError } from 'checkpoint-fencing';
async function f() {
  while (true) {
    try { await storage.save(id, cp, c); } catch (e) {
      if (e instanceof CheckpointWriteConditionNotFulfilledError) log(e);
      else throw e;
    }
    break;
  }
}
      `,
    },
    {
      name: 'a counting loop writing a different checkpoint each pass',
      code: `
import { CheckpointWriteConditionNotFulfilledError } from 'checkpoint-fencing';
async function f(cps) {
  for (let i = 0; i < cps.length; i++) {
    try { await storage.save(id, cps[i], c); } catch (e) {
      if (e instanceof CheckpointWriteConditionNotFulfilledError) log(e);
    }
  }
}
      `,
    },
    { name: 'a catch without a binding', code: `try { storage.save(id, cp); } catch { storage.save(id, cp); }` },
  ],
  invalid: [
    {
      name: 'a write after a refusal branch that falls through runs after the refusal',
      code: `
import { CheckpointWriteConditionNotFulfilledError } from 'checkpoint-fencing';
async function f() {
  try { await storage.save(id, cp, c); } catch (e) {
    if (e instanceof CheckpointWriteConditionNotFulfilledError) { log('refused'); }
    await storage.save(id, cp, c);
  }
}
      `,
      errors: [{ messageId: 'retryInCatch', line: 6, column: 11, endLine: 6, endColumn: 34 }],
    },
    {
      name: 'the message says what a retry with any() does',
      code: `
import { CheckpointWriteCondition, CheckpointWriteConditionNotFulfilledError } from 'checkpoint-fencing';
async function f(condition, token) {
  try { await storage.save(id, cp, CheckpointWriteCondition.any()); } catch (e) {
    if (e instanceof CheckpointWriteConditionNotFulfilledError) await storage.save(id, cp, CheckpointWriteCondition.any());
    else throw e;
  }
}
      `,
      errors: [
        {
          messageId: 'retryInCatch',
          data: {
            outcome:
              "writes unconditionally: it overwrites the new holder's newer checkpoint and moves the subscription backward",
          },
          line: 5,
          column: 71,
          endLine: 5,
          endColumn: 123,
        },
      ],
    },
    {
      name: 'the message says what a retry with no condition does',
      code: `
import { CheckpointWriteCondition, CheckpointWriteConditionNotFulfilledError } from 'checkpoint-fencing';
async function f(condition, token) {
  try { await storage.save(id, cp); } catch (e) {
    if (e instanceof CheckpointWriteConditionNotFulfilledError) await storage.save(id, cp);
    else throw e;
  }
}
      `,
      errors: [
        {
          messageId: 'retryInCatch',
          data: {
            outcome:
              "writes unconditionally: it overwrites the new holder's newer checkpoint and moves the subscription backward",
          },
          line: 5,
          column: 71,
          endLine: 5,
          endColumn: 91,
        },
      ],
    },
    {
      name: 'the message says what a retry with notOlderThan(token) does',
      code: `
import { CheckpointWriteCondition, CheckpointWriteConditionNotFulfilledError } from 'checkpoint-fencing';
async function f(condition, token) {
  try { await storage.save(id, cp, CheckpointWriteCondition.notOlderThan(token)); } catch (e) {
    if (e instanceof CheckpointWriteConditionNotFulfilledError) await storage.save(id, cp, CheckpointWriteCondition.notOlderThan(token));
    else throw e;
  }
}
      `,
      errors: [
        {
          messageId: 'retryInCatch',
          data: { outcome: 'is refused again with the same token, since the stored version is newer than the token' },
          line: 5,
          column: 71,
          endLine: 5,
          endColumn: 137,
        },
      ],
    },
    {
      name: 'the message says what a retry with ifAbsent() does',
      code: `
import { CheckpointWriteCondition, CheckpointWriteConditionNotFulfilledError } from 'checkpoint-fencing';
async function f(condition, token) {
  try { await storage.save(id, cp, CheckpointWriteCondition.ifAbsent()); } catch (e) {
    if (e instanceof CheckpointWriteConditionNotFulfilledError) await storage.save(id, cp, CheckpointWriteCondition.ifAbsent());
    else throw e;
  }
}
      `,
      errors: [
        {
          messageId: 'retryInCatch',
          data: { outcome: 'is refused again, since a checkpoint is stored now' },
          line: 5,
          column: 71,
          endLine: 5,
          endColumn: 128,
        },
      ],
    },
    {
      name: 'the message says what a retry with a condition held in a variable does',
      code: `
import { CheckpointWriteCondition, CheckpointWriteConditionNotFulfilledError } from 'checkpoint-fencing';
async function f(condition, token) {
  try { await storage.save(id, cp, condition); } catch (e) {
    if (e instanceof CheckpointWriteConditionNotFulfilledError) await storage.save(id, cp, condition);
    else throw e;
  }
}
      `,
      errors: [
        {
          messageId: 'retryInCatch',
          data: {
            outcome:
              "is refused again under notOlderThan() or ifAbsent(), and under any() overwrites the new holder's newer checkpoint",
          },
          line: 5,
          column: 71,
          endLine: 5,
          endColumn: 102,
        },
      ],
    },
    {
      name: 'the same write again in the refusal branch, aliased import and optional chaining',
      code: `
import { CheckpointWriteConditionNotFulfilledError as Refused } from 'checkpoint-fencing';
async function f() {
  try {
    await storage?.save(id, cp, c);
  } catch (error) {
    if (error instanceof Refused) {
      await storage?.save(id, cp, c);
    }
  }
}
      `,
      errors: [{ messageId: 'retryInCatch', line: 8, column: 13, endLine: 8, endColumn: 37 }],
    },
    {
      name: 'matched by name, after a guard that rethrows other errors, with a computed member',
      code: `
async function f() {
  try {
    await writer['save'](id, cp);
  } catch (e) {
    if (e.name !== 'CheckpointWriteConditionNotFulfilledError') throw e;
    await sleep(100);
    return writer['save'](id, cp);
  }
}
      `,
      errors: [{ messageId: 'retryInCatch', line: 8, column: 12, endLine: 8, endColumn: 34 }],
    },
    {
      name: 'matched by a name written with an escape, which the text search keeps in (ADR 0309)',
      code: `
async function f() {
  try {
    await storage.save(id, cp);
  } catch (e) {
    if (e.name === 'CheckpointWriteCondition\\u004EotFulfilledError') await storage.save(id, cp);
    else throw e;
  }
}
      `,
      errors: [{ messageId: 'retryInCatch', line: 6, column: 76, endLine: 6, endColumn: 96 }],
    },
    {
      name: 'a retry scheduled in a nested callback',
      code: `
import { CheckpointWriteConditionNotFulfilledError } from 'checkpoint-fencing';
async function f() {
  try { await storage.save(id, cp, c); } catch (e) {
    if (e instanceof CheckpointWriteConditionNotFulfilledError) setTimeout(() => storage.save(id, cp, c), 100);
  }
}
      `,
      errors: [{ messageId: 'retryInCatch', line: 5, column: 82, endLine: 5, endColumn: 105 }],
    },
    {
      name: 'a while loop that continues after a refusal, namespace import',
      code: `
import * as cf from 'checkpoint-fencing';
async function f() {
  while (true) {
    try {
      await this.storage.save(id, cp, condition);
      break;
    } catch (e) {
      if (e instanceof cf.CheckpointWriteConditionNotFulfilledError) { await sleep(10); continue; }
      throw e;
    }
  }
}
      `,
      errors: [{ messageId: 'retryByLoop', line: 6, column: 13, endLine: 6, endColumn: 49 }],
    },
    {
      name: 'a counting retry loop that swallows the refusal',
      code: `
import { CheckpointWriteConditionNotFulfilledError } from 'checkpoint-fencing';
async function f() {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await storage.save(id, cp, condition);
    } catch (e) {
      if (e instanceof CheckpointWriteConditionNotFulfilledError && attempt < 2) log.warn('refused, retrying');
    }
  }
}
      `,
      errors: [{ messageId: 'retryByLoop', line: 6, column: 20, endLine: 6, endColumn: 51 }],
    },
  ],
});

// RuleTester compares `data` only through the message's placeholders, so the tables above pin the outcomes only
// while both messages put them in.
describe('no-retry-after-refusal messages', () => {
  it('say what the retry does under its condition', () => {
    for (const template of Object.values(noRetryAfterRefusal.meta.messages)) {
      expect(template).toContain('the lease has moved on, and the retry {{outcome}}.');
    }
  });
});
