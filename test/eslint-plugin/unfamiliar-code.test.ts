import tsParser from '@typescript-eslint/parser';
import { Linter, type ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import plugin from '../../eslint-plugin/index.js';

// typescript-eslint's RuleModule typings are not ESLint's RuleDefinition; the plugin object is the same at runtime.
const eslintPlugin = plugin as unknown as ESLint.Plugin;
const jsxFeatures = { ecmaFeatures: { jsx: true } };

/** Every rule's messages on `code`; throws (failing the test) when a rule crashes, and fails on a parse error. */
function lintWithAllRules(code: string, filename: string, parser: 'espree' | 'typescript'): string[] {
  const languageOptions =
    parser === 'typescript'
      ? { parser: tsParser, parserOptions: jsxFeatures }
      : { ecmaVersion: 'latest' as const, sourceType: 'module' as const, parserOptions: jsxFeatures };
  const messages = new Linter().verify(
    code,
    [
      {
        files: ['**/*.*'],
        languageOptions,
        plugins: { 'checkpoint-fencing': eslintPlugin },
        rules: plugin.configs.recommended.rules,
      },
    ],
    { filename },
  );
  expect(messages.filter((message) => message.fatal === true)).toEqual([]);
  return messages.map((message) => `${String(message.line)} ${message.ruleId ?? message.message}`);
}

const unrelatedShapes = `
const handlers = { save(a, b) { return a + b; } };
handlers.save(1, 2);
handlers?.save?.(1, 2);
handlers['sa' + 've'](1, 2);
const { save } = handlers;
save(1);
class Form { #save() {} get value() { return 1; } static { this.x = 1; } submit() { this.#save(); } }
function* gen() { yield* [1, 2]; }
label: for (;;) { try { break label; } catch { continue label; } }
export default class {}
try { handlers.save(1, 2); } catch ({ name }) { if (name === 'CheckpointWriteConditionNotFulfilledError') handlers.save(1, 2); }
`;

describe('rules on code they do not understand: no crash, no report', () => {
  it('plain JavaScript parsed by espree', () => {
    expect(lintWithAllRules(unrelatedShapes, 'app.js', 'espree')).toEqual([]);
  });

  it('JSX in .jsx (espree) and .tsx (typescript-eslint)', () => {
    const jsx = `const Save = ({ onSave }) => <button onClick={() => onSave?.('id', 'cp')} save={storage => storage.save('a', 'b')}>{fencingToken}</button>;\nexport default Save;`;
    expect(lintWithAllRules(jsx, 'save.jsx', 'espree')).toEqual([]);
    expect(lintWithAllRules(jsx, 'save.tsx', 'typescript')).toEqual([]);
  });

  it('TypeScript: decorators, enums, namespaces, overloads, abstract members, declare, type-only save', () => {
    const ts = `
${unrelatedShapes}
@Entity() class Order { @Column() id!: string; @Action() save(@Inject() repo: unknown): void {} }
enum Kind { A, B }
namespace Legacy { export const save = (id: string) => id; }
abstract class Repo<T> { abstract save(item: T): Promise<void>; save2(): void {} }
declare const storage: { save(id: string, cp: string): Promise<void> };
type Saver = { save(id: string): void };
function overloaded(a: string): void;
function overloaded(a: number): void;
function overloaded(a: unknown): void { void a; }
`;
    expect(lintWithAllRules(ts, 'order.ts', 'typescript')).toEqual([]);
  });

  it('still reports inside those shapes when the code is a checkpoint write (sanity check of the harness)', () => {
    const code = `@Component()\nclass C { async run(storage, fencingToken) { await storage?.['save']?.('s', 'cp'); } }`;
    expect(lintWithAllRules(code, 'c.ts', 'typescript')).toEqual(['2 checkpoint-fencing/no-unfenced-write']);
  });

  it('reports in plain JavaScript parsed by espree, where only imports and names are known', () => {
    const code = `import { CheckpointWriteCondition } from 'checkpoint-fencing';\nexport async function commit(storage, lease) {\n  const fencingToken = await lease.fencingToken('s');\n  await storage.save('s', 'cp', CheckpointWriteCondition.any());\n}`;
    expect(lintWithAllRules(code, 'commit.js', 'espree')).toEqual(['4 checkpoint-fencing/no-unfenced-write']);
  });
});
