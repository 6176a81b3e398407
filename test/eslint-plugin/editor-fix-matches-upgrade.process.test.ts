import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import tsParser from '@typescript-eslint/parser';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';
import plugin from '../../eslint-plugin/index.js';
import { upgrade } from '../../recipes/index.js';
import { copyRecipeCases, makeTempProject, RECIPE_FIXTURES } from '../recipes/support/fixture-project.js';
import { copyProjectCase, projectCases, projectFiles } from '../recipes/support/project-case.js';

// The editor fix of no-ignored-write-condition promises the codemod's edit, byte for byte. Each recipe fixture and
// project case is upgraded twice, side by side: once by `upgrade()`, once by applying the rule's suggestions as an
// editor would, one storage at a time; every file that got a suggestion must come out exactly as the codemod wrote it.

const RULE = 'checkpoint-fencing/no-ignored-write-condition';
const BOM = '\uFEFF';
const TYPESCRIPT_SOURCES = ['**/*.ts', '**/*.tsx', '**/*.mts', '**/*.cts'];

/**
 * The TypeScript fixtures the codemod changes but the fix leaves alone, with why: it would skip them or decide them
 * with another class (doc/rules/no-ignored-write-condition.md).
 */
const WITHOUT_FIX: Readonly<Record<string, string>> = {
  'abstract-base': 'an abstract class, decided with its subclasses',
  'abstract-save-subclasses': 'an abstract class, decided with its subclasses',
  'constructor-assigned-arrow': 'a save assigned in the constructor',
  'constructor-assigned-function': 'a save assigned in the constructor',
  'constructor-assigned-undeclared': 'a save assigned in the constructor',
  'constructor-bound-method': 'a method bound to save in the constructor',
  'field-bound-method': 'a method bound to save in a field initialiser',
  inherited: 'a class with a base class',
};

/**
 * The files of each project case the fix upgrades: not an abstract base, nor a base whose subclass is in another file
 * (of another workspace package), nor that subclass; the codemod decides those together.
 */
const FIXED_PROJECT_FILES: Readonly<Record<string, readonly string[]>> = {
  'abstract-base-subclass-in-another-file': [],
  'commonjs-node10': ['src/billing-checkpoint.repository.ts'],
  'nx-integrated': ['apps/projector/src/app/file-checkpoint-storage.ts'],
  'pnpm-turborepo-biome': ['apps/worker/src/ledger-checkpoint-storage.ts'],
  'prettier-80-columns': ['src/ledger-checkpoint-storage.ts'],
  'solution-style-tsconfig': [
    'packages/core/src/memory-checkpoint-store.ts',
    'packages/projections/src/projection-checkpoints.ts',
  ],
  'workspace-packages': ['packages/app/src/port-storage.ts'],
};

/** The TypeScript fixtures the codemod leaves as they are, where the rule reports nothing. */
const UNCHANGED = ['already-upgraded', 'unrelated-interface', 'untouched-crlf-bom-no-final-newline'];

/** A linter of `root` with the rule alone, with types (as `recommended-type-checked` runs it) or without. */
function linter(root: string, useTypeInformation: boolean): ESLint {
  return new ESLint({
    cwd: root,
    overrideConfigFile: true,
    overrideConfig: [
      {
        files: TYPESCRIPT_SOURCES,
        languageOptions: {
          parser: tsParser,
          parserOptions: useTypeInformation ? { projectService: true, tsconfigRootDir: root } : {},
        },
        plugins: { 'checkpoint-fencing': plugin },
        rules: { [RULE]: ['error', { useTypeInformation }] },
      },
    ],
  });
}

/**
 * `file`'s text after applying the rule's upgrade suggestion to each storage it reports, one at a time and linting
 * again after each, as a user clicking through them would; and how many were applied.
 */
async function applySuggestions(eslint: ESLint, file: string): Promise<{ text: string; applied: number }> {
  const original = readFileSync(file, 'utf8');
  // ESLint reads a file without its byte order mark, and its fixes' offsets count from there.
  const bom = original.startsWith(BOM) ? BOM : '';
  let text = original.slice(bom.length);
  for (let applied = 0; ; applied += 1) {
    const [result] = await eslint.lintText(bom + text, { filePath: file });
    const fatal = result?.messages.find((message) => message.ruleId !== RULE);
    if (fatal !== undefined) {
      throw new Error(`${file}:${fatal.line}: ${fatal.message}`);
    }
    const fix = result?.messages
      .flatMap((message) => message.suggestions ?? [])
      .find((suggestion) => suggestion.messageId === 'upgradeStorage')?.fix;
    if (fix === undefined) {
      return { text: bom + text, applied };
    }
    expect(applied, `${file}: a suggestion still offered after every storage was upgraded`).toBeLessThan(5);
    text = text.slice(0, fix.range[0]) + fix.text + text.slice(fix.range[1]);
  }
}

function inputOf(name: string): string | undefined {
  return readdirSync(join(RECIPE_FIXTURES, name)).find((file) => /^input\.[cm]?tsx?$/u.test(file));
}

describe('the no-ignored-write-condition suggestion is the codemod’s edit', { timeout: 240_000 }, () => {
  const ruleRoot = makeTempProject('editor-fix-rule');
  const codemodRoot = makeTempProject('editor-fix-codemod');
  const cases = copyRecipeCases(ruleRoot).filter((name) => inputOf(name) !== undefined);
  copyRecipeCases(codemodRoot);
  beforeAll(async () => {
    await upgrade({ cwd: codemodRoot });
  }, 120_000);

  it('with types, on every TypeScript recipe fixture: the codemod’s file byte for byte, or no suggestion', async () => {
    const eslint = linter(ruleRoot, true);
    const fixed: string[] = [];
    for (const name of cases) {
      const input = inputOf(name) ?? '';
      const { text, applied } = await applySuggestions(eslint, join(ruleRoot, name, input));
      const before = readFileSync(join(RECIPE_FIXTURES, name, input), 'utf8');
      const codemod = readFileSync(join(codemodRoot, name, input), 'utf8');
      if (name in WITHOUT_FIX || UNCHANGED.includes(name)) {
        expect({ name, applied }).toEqual({ name, applied: 0 });
        expect(codemod !== before, `${name}: the codemod changes it`).toBe(name in WITHOUT_FIX);
        continue;
      }
      expect(applied, name).toBeGreaterThan(0);
      expect(text, name).toBe(codemod);
      expect(text, name).toBe(readFileSync(join(RECIPE_FIXTURES, name, input.replace('input.', 'output.')), 'utf8'));
      fixed.push(name);
    }
    console.log(
      `editor fix = codemod, byte for byte, with types: ${fixed.length} of ${cases.length} TypeScript fixtures`,
    );
    expect(fixed.length).toBe(cases.length - Object.keys(WITHOUT_FIX).length - UNCHANGED.length);
  });

  it('without types: the same text wherever the rule reports the storage', async () => {
    const eslint = linter(ruleRoot, false);
    const unfixed: string[] = [];
    for (const name of cases) {
      const input = inputOf(name) ?? '';
      const { text, applied } = await applySuggestions(eslint, join(ruleRoot, name, input));
      expect(applied === 0 || text === readFileSync(join(codemodRoot, name, input), 'utf8'), name).toBe(true);
      unfixed.push(...(applied === 0 ? [name] : []));
    }
    const fixed = cases.length - unfixed.length;
    console.log(`editor fix = codemod, byte for byte, without types: ${fixed} of ${cases.length} TypeScript fixtures`);
    // Only types show that a class implementing an interface re-exported through a barrel is a storage.
    expect(unfixed.filter((name) => !(name in WITHOUT_FIX))).toEqual([...UNCHANGED, 'barrel-reexport'].sort());
  });

  for (const projectCase of projectCases()) {
    it(`project case ${projectCase.name}, with types: every file it suggests for is the codemod’s`, async () => {
      const [ruleCopy, codemodCopy] = [0, 1].map(() => copyProjectCase(projectCase, { link: false }));
      // Without the project's Prettier: the codemod's own text, which is what the suggestion writes.
      await upgrade({ cwd: codemodCopy ?? '' });
      const eslint = linter(ruleCopy ?? '', true);
      const upgraded = projectFiles(codemodCopy ?? '');
      const fixedFiles: string[] = [];
      for (const [path, original] of projectFiles(ruleCopy ?? '')) {
        if (!/\.[cm]?tsx?$/u.test(path) || path.endsWith('.d.ts')) {
          continue;
        }
        const { text, applied } = await applySuggestions(eslint, join(ruleCopy ?? '', path));
        if (applied > 0) {
          expect(text, path).toBe(upgraded.get(path)?.toString('utf8'));
          fixedFiles.push(path);
        } else {
          expect(text === original.toString('utf8')).toBe(true);
        }
      }
      expect(fixedFiles.sort()).toEqual(FIXED_PROJECT_FILES[projectCase.name]);
    });
  }

  it('no suggestion for a class another file extends, with types or without; alone, the codemod’s edit', async () => {
    const root = makeTempProject('editor-fix-subclass');
    const base = `import type { CheckpointStorage } from 'checkpoint-fencing';

export class MapStorage implements CheckpointStorage {
  async save(id: string, cp: string): Promise<string> {
    return cp;
  }

  async writeVersion(): Promise<bigint | undefined> {
    return undefined;
  }
}
`;
    writeFileSync(join(root, 'map-storage.ts'), base);
    writeFileSync(
      join(root, 'audited-storage.ts'),
      `import { MapStorage } from './map-storage.js';

export class AuditedStorage extends MapStorage {
  override async save(id: string, cp: string): Promise<string> {
    return super.save(id, cp);
  }
}
`,
    );
    for (const useTypeInformation of [true, false]) {
      expect((await applySuggestions(linter(root, useTypeInformation), join(root, 'map-storage.ts'))).applied).toBe(0);
    }
    const alone = makeTempProject('editor-fix-alone');
    writeFileSync(join(alone, 'map-storage.ts'), base);
    const fixed = await applySuggestions(linter(alone, true), join(alone, 'map-storage.ts'));
    await upgrade({ cwd: alone });
    expect(fixed.applied).toBe(1);
    expect(fixed.text).toBe(readFileSync(join(alone, 'map-storage.ts'), 'utf8'));
  });
});
