import path from 'node:path';
import tsParser from '@typescript-eslint/parser';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import plugin from '../../eslint-plugin/index.js';
import { legacyAppFindings } from './shared-fixtures.js';

const repository = path.resolve(import.meta.dirname, '../..');
const legacyApp = path.join(repository, 'fixtures/legacy-app');

/** `file:line rule` for every message, sorted, so a change in what is reported shows as a readable diff. */
async function reportsOf(config: 'recommended' | 'recommended-type-checked'): Promise<string[]> {
  const eslint = new ESLint({
    cwd: legacyApp,
    overrideConfigFile: true,
    overrideConfig: [
      {
        files: ['**/*.ts'],
        languageOptions: {
          parser: tsParser,
          parserOptions: { projectService: config === 'recommended-type-checked', tsconfigRootDir: legacyApp },
        },
      },
      plugin.configs[config],
    ],
  });
  const results = await eslint.lintFiles(['src/**/*.ts']);
  return results
    .flatMap((result) =>
      result.messages.map(
        (message) =>
          `${path.relative(legacyApp, result.filePath)}:${message.line} ${message.ruleId ?? message.message}`,
      ),
    )
    .sort();
}

describe('fixtures/legacy-app linted with the plugin', () => {
  it('configs.recommended reports the unfenced loop, the logged-only token and every storage that drops the condition', async () => {
    expect(await reportsOf('recommended')).toEqual(legacyAppFindings.recommended);
  });

  it("configs['recommended-type-checked'] also reports the Postgres subclass, which only inherits the interface", async () => {
    expect(await reportsOf('recommended-type-checked')).toEqual(legacyAppFindings['recommended-type-checked']);
    // Building the type-checked program for the app takes seconds on a busy two-core machine.
  }, 60_000);
});
