import path from 'node:path';
import tsParser from '@typescript-eslint/parser';
import { ESLint, Linter } from 'eslint';
import { describe, expect, it } from 'vitest';
import plugin, { type RuleName } from '../../eslint-plugin/index.js';
import { typeAwareFixtureRoot } from './rule-tester.js';

// Rules share what they work out about a node (a class's or literal's contract by mode, a store's method bodies,
// helpers and call kinds). Run together, each rule must report exactly what it reports alone: a shared answer may
// never leak from one node to another, nor from one mode to the other.

type RuleEntry = 'error' | readonly ['error', { readonly useTypeInformation: boolean }];

// typescript-eslint's RuleModule typings are not ESLint's RuleDefinition; the plugin object is the same at runtime.
const eslintPlugin = plugin as unknown as ESLint.Plugin;

/** `line:column rule` of every message, sorted. */
function syntacticReports(code: string, rules: Partial<Record<RuleName, RuleEntry>>): string[] {
  const messages = new Linter().verify(
    code,
    [
      {
        files: ['**/*.ts'],
        languageOptions: { parser: tsParser },
        plugins: { 'checkpoint-fencing': eslintPlugin },
        rules: prefixed(rules),
      },
    ],
    'file.ts',
  );
  expect(messages.filter((message) => message.fatal === true)).toEqual([]);
  return messages.map((message) => `${message.line}:${message.column} ${String(message.ruleId)}`).sort();
}

/** The same, parsed with type information from the type-aware fixture project. */
async function typedReports(code: string, rules: Partial<Record<RuleName, RuleEntry>>): Promise<string[]> {
  const eslint = new ESLint({
    cwd: typeAwareFixtureRoot,
    overrideConfigFile: true,
    overrideConfig: [
      {
        files: ['**/*.ts'],
        languageOptions: {
          parser: tsParser,
          parserOptions: { projectService: true, tsconfigRootDir: typeAwareFixtureRoot },
        },
        plugins: { 'checkpoint-fencing': eslintPlugin },
        rules: prefixed(rules),
      },
    ],
  });
  const [result] = await eslint.lintText(code, { filePath: path.join(typeAwareFixtureRoot, 'file.ts') });
  expect(result?.messages.filter((message) => message.fatal === true)).toEqual([]);
  return (result?.messages ?? [])
    .map((message) => `${message.line}:${message.column} ${String(message.ruleId)}`)
    .sort();
}

function prefixed(rules: Partial<Record<RuleName, RuleEntry>>): Linter.RulesRecord {
  return Object.fromEntries(
    Object.entries(rules).map(([name, entry]) => [
      `checkpoint-fencing/${name}`,
      typeof entry === 'string' ? entry : [...entry],
    ]),
  );
}

/** Each rule alone, the results merged: what the rules together must report. */
function eachAlone(
  rules: Partial<Record<RuleName, RuleEntry>>,
  lint: (rules: Partial<Record<RuleName, RuleEntry>>) => string[],
): string[] {
  return Object.entries(rules)
    .flatMap(([name, entry]) => lint({ [name]: entry }))
    .sort();
}

const twoClassesAndALiteral = `import { CheckpointWriteCondition, type CheckpointStorage } from 'checkpoint-fencing';

export class DroppingStorage implements CheckpointStorage {
  async read(id: string) { return this.redis.get(id); }
  async save(id: string, checkpoint: string) {
    const stored = await this.redis.get(\`v:\${id}\`);
    if (stored !== null) { await this.redis.set(id, checkpoint); }
    return checkpoint;
  }
  async delete(id: string) { await this.redis.del(id); }
}

export class Cache {
  async read(id: string) { return this.redis.get(id); }
  async save(id: string, checkpoint: string) {
    const stored = await this.redis.get(\`v:\${id}\`);
    if (stored !== null) { await this.redis.set(id, checkpoint); }
    return checkpoint;
  }
}

export const literal: CheckpointStorage = {
  async read(id: string) { return undefined; },
  async save(id: string, checkpoint: string, condition: CheckpointWriteCondition) {
    const version = await this.writeVersion(id);
    if (version !== undefined && version > 3n) { await this.redis.set(id, checkpoint); }
    return checkpoint;
  },
  async writeVersion(id: string) { return undefined; },
  async delete(id: string) {},
  evaluatesWriteConditions() { return true; },
};
`;

const twoStoresWithAHelperOfTheSameName = `import { DualAnchorCheckpointStoreBase, encodeDualAnchorCheckpoint, decodeDualAnchorCheckpoint } from 'checkpoint-fencing/dual-anchor';

export class ReadModifyWriteStore extends DualAnchorCheckpointStoreBase {
  async writeFields(write) {
    await this.#persist(write.streamName, write.fields, write.condition);
  }
  async #persist(streamName, fields, condition) {
    const current = await this.#minimal.findByStreamName(streamName);
    await this.#minimal.save(decodeDualAnchorCheckpoint(streamName, { ...encodeDualAnchorCheckpoint(current).fields, ...fields }), condition);
  }
}

export class UpsertingStore extends DualAnchorCheckpointStoreBase {
  async writeFields(write) {
    await this.#persist(write.streamName, write.fields, write.condition);
  }
  async #persist(streamName, fields, condition) {
    await this.collection.updateOne({ _id: streamName }, { $set: fields }, { upsert: true });
  }
}
`;

describe('rules that share what they work out report as each does alone', () => {
  it('two classes and a literal of one file: only the storages, by both storage rules', () => {
    const rules = { 'no-ignored-write-condition': 'error', 'no-check-then-write': 'error' } as const;
    const together = syntacticReports(twoClassesAndALiteral, rules);
    expect(together).toEqual([
      '24:46 checkpoint-fencing/no-ignored-write-condition',
      '26:56 checkpoint-fencing/no-check-then-write',
      '3:14 checkpoint-fencing/no-ignored-write-condition',
      '5:9 checkpoint-fencing/no-ignored-write-condition',
      '7:34 checkpoint-fencing/no-check-then-write',
    ]);
    expect(together).toEqual(eachAlone(rules, (alone) => syntacticReports(twoClassesAndALiteral, alone)));
  });

  it('two dual-anchor stores with a helper of the same name: only the one whose helper reads and writes back', () => {
    const rules = {
      'no-read-modify-write-anchor': 'error',
      'require-upsert-in-anchor-write': 'error',
      'no-unguarded-history-reset': 'error',
      'no-split-anchor-heartbeat': 'error',
    } as const;
    const together = syntacticReports(twoStoresWithAHelperOfTheSameName, rules);
    expect(together).toEqual(['9:11 checkpoint-fencing/no-read-modify-write-anchor']);
    expect(together).toEqual(eachAlone(rules, (alone) => syntacticReports(twoStoresWithAHelperOfTheSameName, alone)));
  });

  it('a type-aware and a syntactic rule on the same literal: each answers in its own mode', async () => {
    // The literal is a storage only by its contextual type: the type-aware rule sees it, the syntactic one must not.
    const code = `import type { CheckpointStorage } from 'checkpoint-fencing';

declare function register(storage: CheckpointStorage): void;
declare const redis: { get(key: string): Promise<string | null>; set(key: string, value: string): Promise<void> };

register({
  async read(id: string) { return undefined; },
  async save(id: string, checkpoint: string) {
    const stored = await redis.get(id);
    if (stored !== null) { await redis.set(id, checkpoint); }
    return checkpoint;
  },
  async delete(id: string) {},
});
`;
    const rules = {
      'no-ignored-write-condition': ['error', { useTypeInformation: true }],
      'no-check-then-write': 'error',
    } as const;
    const together = await typedReports(code, rules);
    expect(together).toEqual([
      '6:10 checkpoint-fencing/no-ignored-write-condition',
      '8:9 checkpoint-fencing/no-ignored-write-condition',
    ]);
    const alone = [
      ...(await typedReports(code, { 'no-ignored-write-condition': rules['no-ignored-write-condition'] })),
      ...(await typedReports(code, { 'no-check-then-write': 'error' })),
    ].sort();
    expect(together).toEqual(alone);
  }, 90_000);
});
