import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import plugin from '../../eslint-plugin/index.js';

const repository = path.resolve(import.meta.dirname, '../..');

describe("the repository's eslint.config.js", () => {
  it.each([
    'runtime/fenced-checkpoint-writer.ts',
    'eslint-plugin/rules/no-unfenced-write.ts',
    'test/eslint-plugin/legacy-app.test.ts',
  ])('turns on every rule of configs.recommended for %s, from the built plugin', async (file) => {
    const config = (await new ESLint({ cwd: repository }).calculateConfigForFile(file)) as {
      rules: Record<string, unknown[]>;
    };
    const enabled = Object.fromEntries(
      Object.entries(config.rules).filter(([rule]) => rule.startsWith('checkpoint-fencing/')),
    );
    // ESLint normalises 'error' to [2] and fills in each rule's meta.defaultOptions.
    expect(Object.keys(enabled).sort()).toEqual(Object.keys(plugin.configs.recommended.rules ?? {}).sort());
    expect(Object.values(enabled).every((entry) => entry[0] === 2)).toBe(true);
  });
});
