import { describe, expect, it } from 'vitest';
import { rules, type RuleName } from '../../eslint-plugin/index.js';

/** Values like those rules put in their messages' placeholders. */
const sampleData: Readonly<Record<string, string>> = {
  token: 'lease.fencingToken',
  count: '2',
  name: 'this.token',
  line: '12',
  read: 'this.writeVersion',
  uses: 'logged',
  base: 'KeyValueTable',
  method: 'updateOne',
  check: 'this.records.has',
  outcome: 'is refused again, since a checkpoint is stored now',
  change: 'add a writeVersion() that reports no version',
};

describe('every message of every rule', () => {
  for (const name of Object.keys(rules).sort() as RuleName[]) {
    it(`${name}: sentences that end in one period, every placeholder filled`, () => {
      for (const [id, template] of Object.entries(rules[name].meta.messages)) {
        const message = template.replace(/\{\{\s*(\w+)\s*\}\}/g, (_, key: string) => {
          const value = sampleData[key];
          if (value === undefined) {
            throw new Error(`${name}/${id}: no sample value for {{${key}}}; add one to sampleData.`);
          }
          return value;
        });
        expect(message, `${name}/${id}`).not.toMatch(/\.\s*\./);
        expect(message, `${name}/${id}`).toMatch(/[^.]\.$/);
      }
    });
  }
});
