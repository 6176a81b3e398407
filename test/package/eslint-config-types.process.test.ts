import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { installConsumer, type ConsumerProject } from './consumer-project.js';

const run = promisify(execFile);
const tsc = resolve(import.meta.dirname, '../../node_modules/typescript/bin/tsc');

/**
 * A user's config written against each config type there is: ESLint 10's and ESLint 9's (installed as `eslint9`)
 * `defineConfig` and `Linter.Config`, and typescript-eslint's `config()`. The default export is what ESLint 10 runs.
 */
const eslintConfig = `import { defineConfig } from 'eslint/config';
import type { Linter } from 'eslint';
import { defineConfig as defineConfig9 } from 'eslint9/config';
import type { Linter as Linter9 } from 'eslint9';
import tseslint from 'typescript-eslint';
import checkpointFencing from 'eslint-plugin-checkpoint-fencing';

export const registered = defineConfig({
  plugins: { 'checkpoint-fencing': checkpointFencing },
  rules: { 'checkpoint-fencing/no-unfenced-write': 'warn' },
});
export const recommended: Linter.Config[] = [checkpointFencing.configs.recommended];
export const onEslint9 = defineConfig9([checkpointFencing.configs['recommended-type-checked']], {
  plugins: { 'checkpoint-fencing': checkpointFencing },
});
export const recommendedOnEslint9: Linter9.Config[] = [checkpointFencing.configs.recommended];
export const throughTypescriptEslint = tseslint.config(checkpointFencing.configs.recommended);
export const javascriptFilesUntyped = defineConfig(checkpointFencing.configs['recommended-type-checked'], {
  files: ['**/*.js'],
  extends: [tseslint.configs.disableTypeChecked, checkpointFencing.configs['disable-type-checked']],
});
export const untypedOnEslint9: Linter9.Config[] = [checkpointFencing.configs['disable-type-checked']];
export const untypedThroughTypescriptEslint = tseslint.config({
  files: ['**/*.js'],
  extends: [checkpointFencing.configs['disable-type-checked']],
});
export const untyped: Linter.Config = checkpointFencing.configs['disable-type-checked'];

export default defineConfig(
  {
    files: ['src/**/*.ts'],
    languageOptions: { parser: tseslint.parser, parserOptions: { projectService: true } },
  },
  checkpointFencing.configs['recommended-type-checked'],
);
`;

/**
 * An eslintrc config in CommonJS TypeScript: `require` gives the plugin itself, typed by the `require` condition's
 * declarations, which carry the plugin's named types too (doc/adr/0316).
 */
const commonJsEslintrc = `import checkpointFencing = require('eslint-plugin-checkpoint-fencing');
import type { LegacyPluginConfig, RuleName } from 'eslint-plugin-checkpoint-fencing';

const warned: RuleName = 'no-token-without-write';
const legacy: LegacyPluginConfig = checkpointFencing.configs['legacy-recommended-type-checked'];
export = { ...legacy, rules: { ...legacy.rules, [\`checkpoint-fencing/\${warned}\`]: 'warn' } };
`;

/** The wrong example of doc/rules/no-ignored-write-condition.md: a storage whose save drops the condition. */
const storage = `import type { CheckpointStorage } from 'checkpoint-fencing';

export class MapCheckpointStorage implements CheckpointStorage {
  readonly #checkpoints = new Map<string, string>();
  async read(id: string) {
    return this.#checkpoints.get(id);
  }
  async save(id: string, checkpoint: string) {
    this.#checkpoints.set(id, checkpoint);
    return checkpoint;
  }
  async delete(id: string) {
    this.#checkpoints.delete(id);
  }
}
`;

/**
 * The lint plugin where users configure it: an `eslint.config.ts` type-checked against the config types of ESLint 9
 * and 10 and of typescript-eslint, then run by ESLint, in a project that installed the tarball and those packages
 * with a plain `npm install`.
 */
describe('the lint plugin in a TypeScript ESLint config', { timeout: 600_000 }, () => {
  let project: ConsumerProject;

  beforeAll(async () => {
    project = await installConsumer('eslint-config', {
      type: 'module',
      packages: ['checkpoint-fencing', 'eslint-plugin-checkpoint-fencing'],
      devDependencies: {
        eslint: '10.15.0',
        eslint9: 'npm:eslint@9.39.5',
        // Newer than the @typescript-eslint/types the package was built with: the two must share one copy.
        'typescript-eslint': '8.74.0',
        // What ESLint loads an eslint.config.ts with.
        jiti: '2.7.0',
      },
    });
    await writeFile(join(project.directory, 'eslint.config.ts'), eslintConfig);
    await writeFile(join(project.directory, 'legacy-eslintrc.cts'), commonJsEslintrc);
    await mkdir(join(project.directory, 'src'));
    await writeFile(join(project.directory, 'src/storage.ts'), storage);
    await writeFile(
      join(project.directory, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          target: 'es2022',
          strict: true,
          noEmit: true,
          types: [],
          skipLibCheck: false,
        },
        files: ['eslint.config.ts', 'legacy-eslintrc.cts'],
      }),
    );
    // The storage is pre-fencing on purpose, so it does not compile: it is only linted, with a project of its own.
    await writeFile(
      join(project.directory, 'src/tsconfig.json'),
      JSON.stringify({
        compilerOptions: { module: 'nodenext', strict: true, noEmit: true, types: [] },
        include: ['.'],
      }),
    );
  }, 600_000);

  it('type-checks configs built with defineConfig and Linter.Config of ESLint 10 and 9, typescript-eslint config(), and a CommonJS eslintrc', async () => {
    const errors = await run(process.execPath, [tsc, '-p', project.directory]).then(
      () => '',
      (error: unknown) => String((error as { stdout?: string }).stdout),
    );
    expect(errors).toBe('');
  });

  it('runs in ESLint 10 from that config, type-aware', async () => {
    const lint = await run(
      process.execPath,
      [join(project.directory, 'node_modules/eslint/bin/eslint.js'), '--format', 'json', 'src'],
      { cwd: project.directory },
    ).catch((error: unknown) => error as { stdout: string; stderr: string });
    const results = JSON.parse(lint.stdout) as {
      filePath: string;
      messages: { ruleId: string | null; line: number; column: number }[];
    }[];
    expect(
      results.flatMap((result) =>
        result.messages.map((message) => ({
          file: relative(project.directory, result.filePath),
          rule: message.ruleId,
          line: message.line,
          column: message.column,
        })),
      ),
    ).toEqual([
      // No writeVersion(), and a save() that never sees the condition.
      { file: 'src/storage.ts', rule: 'checkpoint-fencing/no-ignored-write-condition', line: 3, column: 14 },
      { file: 'src/storage.ts', rule: 'checkpoint-fencing/no-ignored-write-condition', line: 8, column: 9 },
    ]);
  });

  it("shares the project's @typescript-eslint/types instead of installing a second copy", async () => {
    const { stdout } = await run('npm', ['ls', '@typescript-eslint/types', '--all', '--parseable'], {
      cwd: project.directory,
    });
    expect(
      stdout
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => relative(project.directory, line)),
    ).toEqual(['node_modules/@typescript-eslint/types']);
  });
});
