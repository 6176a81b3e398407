import path from 'node:path';
import type { TSESLint } from '@typescript-eslint/utils';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import {
  mayDeclareExaminedMembers,
  mayImplementCheckpointStorage,
  mayTestForRefusal,
} from '../../eslint-plugin/analysis/gates/index.js';
import type { TypeInformation } from '../../eslint-plugin/analysis/index.js';
import { rules, type RuleName } from '../../eslint-plugin/index.js';

// The dual-anchor rules and no-retry-after-refusal (ADR 0309), no-ignored-write-condition and no-check-then-write
// (ADR 0310) skip a file whose text cannot hold what they examine; these cases pin what "cannot" means, and that a
// skipped file gets no listener at all.

/** A file's text and, standing in for its syntax tree, TypeScript's: all the gates read of it. */
const sourceCode = (text: string): Readonly<TSESLint.SourceCode> =>
  ({
    text,
    ast: ts.createSourceFile('linted.ts', text, ts.ScriptTarget.Latest, true),
  }) as unknown as Readonly<TSESLint.SourceCode>;

const SERVICE = `
export class Orders {
  async save(order: Order, store: { save(key: string, value: string): Promise<void> }): Promise<void> {
    try {
      await store.save(order.id, JSON.stringify({ ...order, source: 'upstream' }));
    } catch (error) {
      if (error instanceof TypeError) await store.save(order.id, '{}');
      throw error;
    }
  }
}
`;

const DUAL_ANCHOR_RULES: readonly RuleName[] = [
  'no-read-modify-write-anchor',
  'require-upsert-in-anchor-write',
  'no-unguarded-history-reset',
  'no-split-anchor-heartbeat',
];

/** The selectors a rule listens to on a file with `text`, syntactically. */
function listenedSelectors(rule: RuleName, text: string): string[] {
  // The rules read only `options` and `sourceCode.text` before deciding to listen.
  return Object.keys(rules[rule].create({ id: rule, options: [], sourceCode: sourceCode(text) }));
}

describe('mayDeclareExaminedMembers', () => {
  it('looks for the partial operations and the base class steps by name, and keeps in any escape that may spell one', () => {
    expect(mayDeclareExaminedMembers(sourceCode(SERVICE))).toBe(false);
    // Escapes of control characters and punctuation cannot spell a letter.
    expect(mayDeclareExaminedMembers(sourceCode(`${SERVICE}\nlog('it\\'s\\n\\t\\\\', \`\\\${done}\`);`))).toBe(false);
    for (const text of [
      'async saveSeen() {}',
      "'saveProcessed': async () => {}",
      'saveHeartbeat',
      '[`resetAfterHistoryLost`]() {}',
      'protected async writeFields(write) {}',
      'protected async writeReset(reset) {}',
      "async 'save\\u0053een'() {}",
      "const key = 'save\\x53een';",
      "async 'save\\Seen'() {}",
      "async 'save\\\nSeen'() {}",
      "var key = 'save\\123een';",
    ]) {
      expect(mayDeclareExaminedMembers(sourceCode(text)), text).toBe(true);
    }
  });

  it('gives the four dual-anchor rules no listener in a file without those names, and the three store nodes in one with them', () => {
    for (const rule of DUAL_ANCHOR_RULES) {
      expect(listenedSelectors(rule, SERVICE), rule).toEqual([]);
      expect(listenedSelectors(rule, `${SERVICE}\nconst hint = 'saveSeen';`), rule).toEqual([
        'ClassDeclaration',
        'ClassExpression',
        'ObjectExpression',
      ]);
    }
  });
});

describe('mayTestForRefusal', () => {
  it("looks for the refusal's class name, which every test it recognises spells, and keeps any escape in", () => {
    expect(mayTestForRefusal(sourceCode(SERVICE))).toBe(false);
    for (const text of [
      "import { CheckpointWriteConditionNotFulfilledError as Refused } from 'checkpoint-fencing';",
      'if (e instanceof cf.CheckpointWriteConditionNotFulfilledError) {}',
      "if (e.name === 'CheckpointWriteConditionNotFulfilledError') {}",
      "if (e.name === 'CheckpointWriteCondition\\u004EotFulfilledError') {}",
      "if (e.name === 'CheckpointWriteCondition\\\nNotFulfilledError') {}",
      "if (e.name === 'Checkpoint\\WriteConditionNotFulfilledError') {}",
    ]) {
      expect(mayTestForRefusal(sourceCode(text)), text).toBe(true);
    }
  });

  it('gives no-retry-after-refusal no listener in a file without it, and CatchClause in one with it', () => {
    expect(listenedSelectors('no-retry-after-refusal', SERVICE)).toEqual([]);
    expect(
      listenedSelectors('no-retry-after-refusal', `${SERVICE}\n// CheckpointWriteConditionNotFulfilledError`),
    ).toEqual(['CatchClause']);
  });
});

/** A project file the linted files may import as `./port.js`, which imports from checkpoint-fencing. */
const PORT = ts.createSourceFile(
  'port.ts',
  "export type { CheckpointStorage as Port } from 'checkpoint-fencing';",
  ts.ScriptTarget.Latest,
);

/**
 * Type information whose program holds files at `fileNames`, and whose checker resolves `./port.js` to {@link PORT}:
 * all the storage gate reads of it.
 */
function typesOver(...fileNames: string[]): TypeInformation {
  const sourceFiles = fileNames.map((fileName) => ({ fileName }));
  const checker = {
    getSymbolAtLocation: (node: ts.Node) =>
      ts.isStringLiteral(node) && node.text === './port.js' ? { getDeclarations: () => [PORT] } : undefined,
  };
  return {
    program: { getSourceFiles: () => sourceFiles, getTypeChecker: () => checker },
    esTreeNodeToTSNodeMap: { get: (node: unknown) => node },
  } as unknown as TypeInformation;
}

describe('mayImplementCheckpointStorage', () => {
  const repository = path.resolve(import.meta.dirname, '../..');
  const withPackage = typesOver(
    path.join(repository, 'test/eslint-plugin/rule-tester.ts'),
    path.join(repository, 'runtime/index.ts'),
  );
  const withoutPackage = typesOver(path.join(repository, 'test/eslint-plugin/rule-tester.ts'));

  it('without types, looks for the interface by name, and keeps in any escape that may spell it', () => {
    expect(mayImplementCheckpointStorage(sourceCode(SERVICE), undefined)).toBe(false);
    expect(mayImplementCheckpointStorage(sourceCode('class S extends Base { save(id, cp) {} }'), undefined)).toBe(
      false,
    );
    for (const text of [
      "import type { CheckpointStorage as Store } from 'checkpoint-fencing';",
      'class S implements cf.CheckpointStorage {}',
      "/** @implements {import('checkpoint-fencing').CheckpointStorage} */",
      "import { 'Checkpoint\\u0053torage' as Store } from 'checkpoint-fencing';",
      'class S implements cf.Checkpoint\\u0053torage {}',
    ]) {
      expect(mayImplementCheckpointStorage(sourceCode(text), undefined), text).toBe(true);
    }
  });

  it('with types, skips every file of a program without checkpoint-fencing', () => {
    const text =
      "import type { CheckpointStorage } from 'checkpoint-fencing';\nclass S implements CheckpointStorage {}";
    expect(mayImplementCheckpointStorage(sourceCode(text), withoutPackage)).toBe(false);
    expect(mayImplementCheckpointStorage(sourceCode(text), withPackage)).toBe(true);
    // Under node_modules, a file is the package's when it sits in checkpoint-fencing's folder.
    const installed = typesOver(path.join(repository, 'node_modules/checkpoint-fencing/index.ts'));
    const otherPackages = typesOver(
      path.join(repository, 'node_modules/typescript/lib/lib.es5.d.ts'),
      path.join(repository, 'node_modules/vitest/node_modules/checkpoint-fencing-lookalike/index.d.ts'),
    );
    expect(mayImplementCheckpointStorage(sourceCode(text), installed)).toBe(true);
    expect(mayImplementCheckpointStorage(sourceCode(text), otherPackages)).toBe(false);
  });

  it('with types, keeps a file with a save, a heritage clause or the name, since the type may come from an import', () => {
    const imports = "import type { Port, TableStorage } from './port.js';\n";
    expect(mayImplementCheckpointStorage(sourceCode(`${imports}export const answer = 42;`), withPackage)).toBe(false);
    for (const text of [
      'export class OrdersStorage extends TableStorage {}',
      'export class S implements Port { read() {} }',
      '/** @extends {TableStorage} */',
      'register({ async save(id, cp) { return cp; } });',
      'const port: CheckpointStorage = other;',
      "register({ async 'sav\\u0065'(id, cp) { return cp; } });",
    ]) {
      expect(mayImplementCheckpointStorage(sourceCode(`${imports}${text}`), withPackage), text).toBe(true);
    }
  });

  it('with types, skips a file whose imports cannot lead to checkpoint-fencing (ADR 0312)', () => {
    for (const text of [
      'export class OrdersStorage extends TableStorage {}',
      "import { EventEmitter } from 'node:events';\nexport class Bus extends EventEmitter { save() {} }",
      "import { Port } from './missing.js';\nexport class S implements Port { save() {} }",
    ]) {
      expect(mayImplementCheckpointStorage(sourceCode(text), withPackage), text).toBe(false);
    }
  });

  it('gives no-ignored-write-condition and no-check-then-write no listener in a file without the name', () => {
    for (const rule of ['no-ignored-write-condition', 'no-check-then-write'] as const) {
      expect(listenedSelectors(rule, SERVICE), rule).toEqual([]);
      expect(listenedSelectors(rule, `${SERVICE}\n// CheckpointStorage`), rule).toEqual([
        'ClassDeclaration, ClassExpression',
        'ObjectExpression',
      ]);
    }
  });
});
