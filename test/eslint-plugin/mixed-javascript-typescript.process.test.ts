import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { builtPackage } from '../support/built-package.js';
import { temporaryDirectory } from '../support/temporary-directory.js';
import { consumerWithStorageNamedCache } from './shared-fixtures.js';

const REPO = join(import.meta.dirname, '../..');
const ESLINT = join(REPO, 'node_modules/eslint/bin/eslint.js');

/** The shared consumer, and a `let` never reassigned, for a fix pass (`prefer-const`). */
const consumer = `${consumerWithStorageNamedCache}
export let attempts = 0;
`;

/** A JavaScript script no tsconfig covers, with the same mistake: the syntactic rules still catch it. */
const script = `export async function replay(storage, subscriptionId, fencingToken) {
  await storage.save(subscriptionId, 'position-7');
  console.log(fencingToken);
}

export let replays = 0;
`;

const configs = {
  // https://typescript-eslint.io/getting-started/typed-linting: disableTypeChecked for JavaScript files.
  documented: `import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';
import checkpointFencing from 'eslint-plugin-checkpoint-fencing';

export default defineConfig(
  tseslint.configs.recommendedTypeChecked,
  { languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } } },
  checkpointFencing.configs['recommended-type-checked'],
  { files: ['**/*.js'], extends: [tseslint.configs.disableTypeChecked] },
);
`,
  ours: `import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';
import checkpointFencing from 'eslint-plugin-checkpoint-fencing';

export default defineConfig(
  {
    files: ['**/*.{js,ts}'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
  },
  checkpointFencing.configs['recommended-type-checked'],
  { files: ['**/*.js'], extends: [checkpointFencing.configs['disable-type-checked']] },
);
`,
  // typescript-eslint's older way: a program per tsconfig, which a single run builds once, ahead of time.
  legacyProject: `import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';
import checkpointFencing from 'eslint-plugin-checkpoint-fencing';

export default defineConfig(
  {
    files: ['src/**/*.ts'],
    extends: [checkpointFencing.configs['recommended-type-checked']],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname },
    },
  },
);
`,
  // Types for src/** only; scripts and config files are parsed without them, and nothing says so.
  partiallyTyped: `import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';
import checkpointFencing from 'eslint-plugin-checkpoint-fencing';

export default defineConfig(
  { files: ['**/*.{js,ts}'], languageOptions: { parser: tseslint.parser } },
  {
    files: ['src/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
  },
  checkpointFencing.configs['recommended-type-checked'],
);
`,
  forgotProjectService: `import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';
import checkpointFencing from 'eslint-plugin-checkpoint-fencing';

export default defineConfig(
  { files: ['**/*.{js,ts}'], languageOptions: { parser: tseslint.parser } },
  checkpointFencing.configs['recommended-type-checked'],
);
`,
};

interface Lint {
  readonly status: number | null;
  readonly stderr: string;
  readonly messages: readonly { file: string; rule: string | null; line: number; fatal: boolean }[];
}

/**
 * A project with TypeScript sources under a tsconfig and JavaScript files beside them (a Babel config, a script), as
 * in a monorepo such as NiGhTTraX/ts-monorepo, with the package installed and the user's packages linked in.
 */
function mixedProject(): string {
  const root = temporaryDirectory('mixed-js-ts');
  mkdirSync(join(root, 'src'));
  mkdirSync(join(root, 'scripts'));
  mkdirSync(join(root, 'node_modules'));
  symlinkSync(builtPackage('runtime'), join(root, 'node_modules/checkpoint-fencing'), 'dir');
  symlinkSync(builtPackage('eslint-plugin'), join(root, 'node_modules/eslint-plugin-checkpoint-fencing'), 'dir');
  for (const name of ['eslint', 'typescript-eslint']) {
    symlinkSync(join(REPO, 'node_modules', name), join(root, 'node_modules', name), 'dir');
  }
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'mixed', private: true, type: 'module' }));
  writeFileSync(
    join(root, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { module: 'nodenext', target: 'es2022', strict: true, noEmit: true, types: [] },
      include: ['src'],
    }),
  );
  writeFileSync(join(root, 'src/consumer.ts'), consumer);
  writeFileSync(join(root, 'scripts/replay.js'), script);
  writeFileSync(join(root, 'babel.config.js'), "export default { presets: ['@babel/preset-env'] };\n");
  return root;
}

/**
 * ESLint's JSON report on the project under `config`. A single run (CI=true) is what CI and the eslint binary get from
 * typescript-eslint: a program built once, ahead of time, and an isolated program for a file parsed again.
 */
function lint(root: string, config: string, extraArguments: readonly string[] = []): Lint {
  writeFileSync(join(root, 'eslint.config.js'), config);
  const result = spawnSync(process.execPath, [ESLINT, '--format', 'json', ...extraArguments, '.'], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, CI: 'true', TSESTREE_SINGLE_RUN: undefined },
  });
  const results =
    result.status === 2
      ? []
      : (JSON.parse(result.stdout) as {
          filePath: string;
          messages: { ruleId: string | null; line: number; fatal?: boolean }[];
        }[]);
  return {
    status: result.status,
    stderr: result.stderr,
    messages: results.flatMap((file) =>
      file.messages
        .filter((message) => message.ruleId === null || message.ruleId.startsWith('checkpoint-fencing/'))
        .map((message) => ({
          file: relative(root, file.filePath),
          rule: message.ruleId,
          line: message.line,
          fatal: message.fatal === true,
        })),
    ),
  };
}

const bothUnfencedWrites = [
  { file: 'scripts/replay.js', rule: 'checkpoint-fencing/no-unfenced-write', line: 2, fatal: false },
  { file: 'src/consumer.ts', rule: 'checkpoint-fencing/no-unfenced-write', line: 4, fatal: false },
];

describe('a project of TypeScript and JavaScript files under the type-checked config', { timeout: 180_000 }, () => {
  let root: string;

  beforeAll(() => {
    root = mixedProject();
  }, 180_000);

  it("with typescript-eslint's documented disableTypeChecked for *.js: lints both, the JavaScript syntactically", () => {
    const result = lint(root, configs.documented);
    expect(result.stderr).toBe('');
    expect(result.messages).toEqual(bothUnfencedWrites);
    expect(result.status).toBe(1);
  });

  it("with checkpointFencing.configs['disable-type-checked'] for *.js: the same", () => {
    const result = lint(root, configs.ours);
    expect(result.stderr).toBe('');
    expect(result.messages).toEqual(bothUnfencedWrites);
    expect(result.status).toBe(1);
  });

  describe('under --fix-dry-run, where a file with a fix is parsed again and given an isolated program', () => {
    /** The config with a fixable core rule, so that files with a `let` never reassigned get a second pass. */
    const withFixes = (config: string): string =>
      config.replace(/\);\n$/u, "  { rules: { 'prefer-const': 'error' } },\n);\n");

    it('with the documented config: lints both as without fixes', () => {
      const result = lint(root, withFixes(configs.documented), ['--fix-dry-run']);
      expect(result.stderr).toBe('');
      expect(result.messages).toEqual(bothUnfencedWrites);
      expect(result.status).toBe(1);
    });

    it('with the project option: the pass after the fix runs syntactically, so the Cache write is reported too', () => {
      expect(lint(root, configs.legacyProject).messages).toEqual([bothUnfencedWrites[1]]);
      const result = lint(root, withFixes(configs.legacyProject), ['--fix-dry-run']);
      expect(result.stderr).toBe('');
      expect(result.messages).toEqual([
        bothUnfencedWrites[1],
        { file: 'src/consumer.ts', rule: 'checkpoint-fencing/no-unfenced-write', line: 11, fatal: false },
      ]);
      expect(result.status).toBe(1);
    });
  });

  it('with types for src/** only: lints src type-aware and the rest syntactically, without a warning', () => {
    const result = lint(root, configs.partiallyTyped);
    expect(result.stderr).toBe('');
    expect(result.messages).toEqual(bothUnfencedWrites);
    expect(result.status).toBe(1);
  });

  it('without projectService anywhere: lints every file syntactically and warns once that no file had types', () => {
    const result = lint(root, configs.forgotProjectService);
    expect(result.messages).toEqual([
      bothUnfencedWrites[0],
      bothUnfencedWrites[1],
      { file: 'src/consumer.ts', rule: 'checkpoint-fencing/no-unfenced-write', line: 11, fatal: false },
    ]);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(
      /^eslint-plugin-checkpoint-fencing: no file in this run had type information, so checkpoint-fencing\/[a-z-]+ and the other rules set to useTypeInformation linted syntactically\. Set languageOptions\.parserOptions\.projectService: true .*\n$/u,
    );
  });
});
