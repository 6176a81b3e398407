import path from 'node:path';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';
import plugin from '../../eslint-plugin/index.js';

const repository = path.resolve(import.meta.dirname, '../..');

let eslint: ESLint;

/** The checkpoint-fencing rules the repository's config turns on for `file`, with their options as ESLint resolved them. */
async function pluginRulesFor(file: string): Promise<Record<string, unknown[]>> {
  const config = (await eslint.calculateConfigForFile(file)) as {
    rules: Record<string, unknown[]>;
  };
  return Object.fromEntries(Object.entries(config.rules).filter(([rule]) => rule.startsWith('checkpoint-fencing/')));
}

describe("the repository's eslint.config.js", () => {
  // The first load compiles the plugin's sources (eslint.config.js loads them through Vite's module runner): seconds
  // on a fresh clone, so it happens in the hook, under the hook's timeout, rather than in whichever test comes first.
  beforeAll(async () => {
    eslint = new ESLint({ cwd: repository });
    await eslint.calculateConfigForFile('eslint-plugin/index.ts');
  });

  it.each(['runtime/dual-anchor/read-modify-write-defaults.ts', 'eslint-plugin/rules/no-unfenced-write.ts'])(
    "turns on every rule of configs['recommended-type-checked'] for %s, from the plugin's sources",
    async (file) => {
      const enabled = await pluginRulesFor(file);
      const typeChecked = plugin.configs['recommended-type-checked'].rules;
      expect(Object.keys(enabled).sort()).toEqual(Object.keys(typeChecked).sort());
      // ESLint normalises 'error' to [2] and fills in each rule's meta.defaultOptions.
      for (const [rule, entry] of Object.entries(typeChecked)) {
        const asked = Array.isArray(entry) ? (entry[1] as { useTypeInformation?: boolean }).useTypeInformation : false;
        expect(enabled[rule]?.[0], rule).toBe(2);
        expect(
          (enabled[rule]?.[1] as { useTypeInformation?: boolean } | undefined)?.useTypeInformation ?? false,
          rule,
        ).toBe(asked === true);
      }
    },
  );

  it('turns on every rule of configs.recommended, syntactically, for the tests and their deliberately broken stores', async () => {
    const enabled = await pluginRulesFor('test/runtime/dual-anchor/dual-anchor-conformance-kit.test.ts');
    expect(Object.keys(enabled).sort()).toEqual(Object.keys(plugin.configs.recommended.rules).sort());
    for (const [rule, entry] of Object.entries(enabled)) {
      expect(entry[0], rule).toBe(2);
      expect((entry[1] as { useTypeInformation?: boolean } | undefined)?.useTypeInformation ?? false, rule).toBe(false);
    }
  });
});
