import tsParser from '@typescript-eslint/parser';
import { Linter, type ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import plugin, { rules, type RuleName } from '../../eslint-plugin/index.js';
import { codeBlocks, docSections, ruleDoc } from './rule-docs.js';

const ruleNames = Object.keys(rules).sort() as RuleName[];
// typescript-eslint's RuleModule typings are not ESLint's RuleDefinition; the plugin object is the same at runtime.
const eslintPlugin = plugin as unknown as ESLint.Plugin;

/** The rule's messages on `code`, run alone on the syntactic config; a parse error fails the test. */
function lint(name: RuleName, code: string): string[] {
  const messages = new Linter().verify(
    code,
    [
      {
        files: ['**/*.ts'],
        languageOptions: { parser: tsParser },
        plugins: { 'checkpoint-fencing': eslintPlugin },
        rules: { [`checkpoint-fencing/${name}`]: 'error' },
      },
    ],
    'example.ts',
  );
  expect(messages.filter((message) => message.fatal === true)).toEqual([]);
  return messages.map((message) => message.ruleId ?? message.message);
}

describe('rule docs: the wrong examples are reported and the right ones are not', () => {
  it.each(ruleNames)('%s', (name) => {
    const sections = docSections(ruleDoc(name));
    const wrong = codeBlocks(sections.get('Wrong') ?? '');
    const right = codeBlocks(sections.get('Right') ?? '');
    expect(wrong.length).toBeGreaterThan(0);
    expect(right.length).toBeGreaterThan(0);
    for (const example of wrong) {
      expect(lint(name, example)).toContain(`checkpoint-fencing/${name}`);
    }
    for (const example of right) {
      expect(lint(name, example)).toEqual([]);
    }
  });
});
