import { noIgnoredWriteCondition } from '../../eslint-plugin/rules/no-ignored-write-condition.js';
import { syntacticRuleTester, typeAwareRuleTester } from './rule-tester.js';

const importStorage = "import type { CheckpointStorage } from 'checkpoint-fencing';\n";

syntacticRuleTester().run('no-ignored-write-condition', noIgnoredWriteCondition, {
  valid: [
    {
      name: 'a complete implementation',
      code: `${importStorage}class S implements CheckpointStorage {\n  async read(id) {}\n  async save(id, cp, condition) {}\n  async writeVersion(id) {}\n  async delete(id) {}\n}`,
    },
    {
      name: 'save taking a rest parameter sees the condition',
      code: `${importStorage}class S implements CheckpointStorage { save(...args) {} writeVersion(id) {} }`,
    },
    {
      name: 'a class that does not implement the checkpoint-fencing interface',
      code: `interface CheckpointStorage { save(id: string, cp: string): Promise<void> }\nclass S implements CheckpointStorage { async save(id: string, cp: string) {} }`,
    },
    {
      name: 'writeVersion may be inherited from a superclass',
      code: `${importStorage}class S extends Base implements CheckpointStorage { async save(id, cp, condition) {} }`,
    },
    {
      name: 'an object literal with no declared type',
      code: `const repository = { save(user, data) {} };`,
    },
    {
      name: 'an object literal spreading another implementation',
      code: `${importStorage}const s: CheckpointStorage = { ...base, async save(id, cp, condition) {} };`,
    },
    {
      name: 'decorators and a static save',
      code: `${importStorage}@injectable()\nclass S implements CheckpointStorage {\n  @logged() async save(id, cp, condition) {}\n  static save(a) {}\n  writeVersion() {}\n}`,
    },
    {
      name: 'JSX does not confuse the rule',
      filename: 'react.tsx',
      code: `const view = <Checkpoint save={(id, cp) => null} />;`,
    },
  ],
  invalid: [
    {
      name: 'an aliased import, a two-parameter save and no writeVersion',
      code: `import { type CheckpointStorage as Store } from 'checkpoint-fencing';\nexport class LegacyStore implements Store {\n  async read(id) {}\n  async save(id, cp) {}\n  async delete(id) {}\n}`,
      errors: [
        { messageId: 'missingWriteVersion', line: 2, column: 14, endLine: 2, endColumn: 25 },
        { messageId: 'saveIgnoresCondition', data: { count: 2 }, line: 4, column: 9, endLine: 4, endColumn: 13 },
      ],
    },
    {
      name: 'an anonymous class expression implementing the interface through a namespace import',
      code: `import * as cf from 'checkpoint-fencing';\nconst S = class implements cf.CheckpointStorage {\n  save(id, cp) {}\n  writeVersion(id) {}\n};`,
      errors: [{ messageId: 'saveIgnoresCondition', data: { count: 2 }, line: 3, column: 3, endLine: 3, endColumn: 7 }],
    },
    {
      name: 'an annotated object literal with a computed save key',
      code: `${importStorage}const s: CheckpointStorage = {\n  async ['save'](id, cp) {},\n  writeVersion: async () => undefined,\n};`,
      errors: [
        { messageId: 'saveIgnoresCondition', data: { count: 2 }, line: 3, column: 10, endLine: 3, endColumn: 16 },
      ],
    },
    {
      name: 'an object literal that satisfies the interface but has no writeVersion',
      code: `${importStorage}export default {\n  save: async (id, cp, condition) => cp,\n} satisfies CheckpointStorage;`,
      errors: [{ messageId: 'missingWriteVersion', line: 4, column: 13, endLine: 4, endColumn: 30 }],
    },
  ],
});

typeAwareRuleTester().run('no-ignored-write-condition (useTypeInformation)', noIgnoredWriteCondition, {
  valid: [
    {
      name: 'a complete implementation reached through a superclass',
      code: `import type { CheckpointStorage } from 'checkpoint-fencing';\ndeclare abstract class Base implements CheckpointStorage { read(id: string): Promise<string | undefined>; save(id: string, cp: string, c: never): Promise<string>; writeVersion(id: string): Promise<bigint | undefined>; delete(id: string): Promise<void>; }\nexport class Pg extends Base { override async save(id: string, cp: string, condition: never) { return cp; } }`,
      options: [{ useTypeInformation: true }],
    },
    {
      name: 'an object literal for a parameter of another type',
      code: `declare function register(target: { save(a: string, b: string): void }): void;\nregister({ save(a, b) {} });`,
      options: [{ useTypeInformation: true }],
    },
  ],
  invalid: [
    {
      name: 'a subclass of an abstract implementation is checked too (the syntactic mode sees only the base)',
      code: `import type { CheckpointStorage } from 'checkpoint-fencing';\nabstract class Base implements CheckpointStorage { abstract save(id: string, cp: string): Promise<string>; }\nclass Pg extends Base { async save(id: string, cp: string) { return cp; } }`,
      options: [{ useTypeInformation: true }],
      errors: [
        { messageId: 'missingWriteVersion', line: 2, column: 16, endLine: 2, endColumn: 20 },
        { messageId: 'saveIgnoresCondition', data: { count: 2 }, line: 2, column: 61, endLine: 2, endColumn: 65 },
        { messageId: 'saveIgnoresCondition', data: { count: 2 }, line: 3, column: 31, endLine: 3, endColumn: 35 },
      ],
    },
    {
      name: 'an interface re-declared locally and an object literal typed only by context',
      code: `import type { CheckpointStorage } from 'checkpoint-fencing';\ntype Port = CheckpointStorage;\nclass S implements Port {\n  async save(id: string, cp: string) { return cp; }\n}\ndeclare function register(storage: CheckpointStorage): void;\nregister({ async save(id: string, cp: string) { return cp; }, writeVersion: async () => undefined });\nregister({ async save(id: string) { return id; } } as CheckpointStorage);`,
      options: [{ useTypeInformation: true }],
      errors: [
        { messageId: 'missingWriteVersion', line: 3, column: 7, endLine: 3, endColumn: 8 },
        { messageId: 'saveIgnoresCondition', data: { count: 2 }, line: 4, column: 9, endLine: 4, endColumn: 13 },
        { messageId: 'saveIgnoresCondition', data: { count: 2 }, line: 7, column: 18, endLine: 7, endColumn: 22 },
        { messageId: 'saveIgnoresCondition', data: { count: 1 }, line: 8, column: 18, endLine: 8, endColumn: 22 },
        { messageId: 'missingWriteVersion', line: 8, column: 55, endLine: 8, endColumn: 72 },
      ],
    },
  ],
});
