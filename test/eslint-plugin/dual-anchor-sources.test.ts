import { readFileSync } from 'node:fs';
import path from 'node:path';
import tsParser from '@typescript-eslint/parser';
import { ESLint, Linter } from 'eslint';
import { describe, expect, it } from 'vitest';
import plugin from '../../eslint-plugin/index.js';

// The four dual-anchor rules on the repository's own dual-anchor code: the three stores must be clean, the
// read-modify-write fallback is reported where it writes back (the repository's lint disables that one line), and
// the conformance kit's deliberately broken stores are reported exactly where they fall into the traps the rules are
// about, and nowhere else.

const repository = path.resolve(import.meta.dirname, '../..');
const DUAL_ANCHOR_RULES = [
  'no-read-modify-write-anchor',
  'require-upsert-in-anchor-write',
  'no-unguarded-history-reset',
  'no-split-anchor-heartbeat',
] as const;
const STORES = [
  'runtime/in-memory/in-memory-dual-anchor-checkpoint-store.ts',
  'runtime/redis/redis-dual-anchor-checkpoint-store.ts',
  'runtime/postgres/postgres-dual-anchor-checkpoint-store.ts',
  'runtime/dual-anchor/no-op-dual-anchor-checkpoint-store.ts',
];
const READ_MODIFY_WRITE = 'runtime/dual-anchor/read-modify-write-defaults.ts';
const KIT_TEST = 'test/runtime/dual-anchor/dual-anchor-conformance-kit.test.ts';
/** Import specifiers that lead into runtime/, relative to where each file lives. */
const RUNTIME_IMPORT = /from '(?:\.\.?\/)+(?:runtime\/)?(?:dual-anchor\/|testing\/)?[\w./-]*'/gu;

function rulesConfig(useTypeInformation: boolean): Linter.RulesRecord {
  return Object.fromEntries(
    DUAL_ANCHOR_RULES.map((rule) => [`checkpoint-fencing/${rule}`, ['error', { useTypeInformation }]]),
  );
}

function source(file: string): string {
  return readFileSync(path.join(repository, file), 'utf8');
}

/** The 1-based line of the first line holding `snippet` after the line holding `after`. */
function lineOf(file: string, after: string, snippet: string): number {
  const lines = source(file).split('\n');
  const start = lines.findIndex((line) => line.includes(after));
  const found = lines.findIndex((line, index) => index > start && line.includes(snippet));
  if (start < 0 || found < 0) {
    throw new Error(`${file}: no "${snippet}" after "${after}"; the test's anchors in the file moved.`);
  }
  return found + 1;
}

/** What the kit test's broken stores must get: each trap's store, at the write or comparison that is the trap. */
function expectedKitReports(): string[] {
  return [
    `${lineOf(KIT_TEST, 'class UpdateWithoutUpsertStore', 'await super.writeFields(write);')} require-upsert-in-anchor-write`,
    `${lineOf(KIT_TEST, 'class UpdateWithoutUpsertStore', 'await super.writeReset(reset);')} require-upsert-in-anchor-write`,
    `${lineOf(KIT_TEST, 'class ReadThenWriteGuardStore', 'const dead =')} no-unguarded-history-reset`,
    `${lineOf(KIT_TEST, 'class TwoStepHeartbeatStore', 'fields: { lastHeartbeatTimestamp } }')} no-split-anchor-heartbeat`,
  ].sort();
}

function expectedReadModifyWriteReport(): string[] {
  return [
    `${lineOf(READ_MODIFY_WRITE, 'async #readModifyWrite(', 'await this.#minimal.save(')} no-read-modify-write-anchor`,
  ];
}

function asLines(messages: readonly Linter.LintMessage[]): string[] {
  return messages
    .map((message) => `${message.line} ${(message.ruleId ?? message.message).replace('checkpoint-fencing/', '')}`)
    .sort();
}

describe('the dual-anchor rules on the repository’s dual-anchor code, type-aware, as the files are', () => {
  async function lintFiles(files: readonly string[], allowInlineConfig: boolean): Promise<Map<string, string[]>> {
    const eslint = new ESLint({
      cwd: repository,
      overrideConfigFile: true,
      allowInlineConfig,
      overrideConfig: [
        {
          files: ['**/*.ts'],
          languageOptions: {
            parser: tsParser,
            parserOptions: { projectService: true, tsconfigRootDir: repository },
          },
          plugins: { 'checkpoint-fencing': plugin },
          rules: rulesConfig(true),
        },
      ],
    });
    const results = await eslint.lintFiles([...files]);
    return new Map(
      results.map((result) => [path.relative(repository, result.filePath), asLines(result.messages)] as const),
    );
  }

  it('reports nothing in the three stores and the no-op store, the fallback where it writes back, the broken stores where they break', async () => {
    const reports = await lintFiles([...STORES, READ_MODIFY_WRITE, KIT_TEST], false);
    for (const store of STORES) {
      expect(reports.get(store), store).toEqual([]);
    }
    expect(reports.get(READ_MODIFY_WRITE)).toEqual(expectedReadModifyWriteReport());
    expect(reports.get(KIT_TEST)).toEqual(expectedKitReports());
  }, 120_000);

  it('the fallback is silenced by its one eslint-disable line, and by nothing broader', async () => {
    const reports = await lintFiles([READ_MODIFY_WRITE], true);
    expect(reports.get(READ_MODIFY_WRITE)).toEqual([]);
    const disables = source(READ_MODIFY_WRITE)
      .split('\n')
      .filter((line) => line.includes('eslint-disable'));
    expect(disables).toEqual([
      expect.stringMatching(
        /^\s*\/\/ eslint-disable-next-line checkpoint-fencing\/no-read-modify-write-anchor -- \S.*$/u,
      ),
    ]);
  }, 120_000);
});

describe('the dual-anchor rules, syntactic, on the same files importing from checkpoint-fencing as a user’s copy would', () => {
  function lintAsUserCode(file: string): string[] {
    const text = source(file);
    const asUserCode = text.replace(RUNTIME_IMPORT, (specifier) =>
      specifier.includes('dual-anchor') ? "from 'checkpoint-fencing/dual-anchor'" : "from 'checkpoint-fencing'",
    );
    // The rewrite must have happened, or the rules would see no store and the test would prove nothing.
    expect(asUserCode).toContain("from 'checkpoint-fencing/dual-anchor'");
    const messages = new Linter().verify(
      asUserCode,
      [
        {
          files: ['**/*.ts'],
          languageOptions: { parser: tsParser },
          linterOptions: { noInlineConfig: true },
          plugins: { 'checkpoint-fencing': plugin },
          rules: rulesConfig(false),
        },
      ],
      path.join(repository, file),
    );
    expect(messages.filter((message) => message.fatal === true)).toEqual([]);
    // noInlineConfig turns the fallback's eslint-disable line into a warning of its own, with no rule.
    return asLines(messages.filter((message) => message.ruleId !== null));
  }

  it.each(STORES)('%s: nothing', (store) => {
    expect(lintAsUserCode(store)).toEqual([]);
  });

  it('the read-modify-write fallback: its write-back', () => {
    expect(lintAsUserCode(READ_MODIFY_WRITE)).toEqual(expectedReadModifyWriteReport());
  });

  it("the kit's broken stores: each trap, and nothing in the stores that fall into other traps", () => {
    expect(lintAsUserCode(KIT_TEST)).toEqual(expectedKitReports());
  });
});
