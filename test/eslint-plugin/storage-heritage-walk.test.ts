import path from 'node:path';
import { parseForESLint } from '@typescript-eslint/parser';
import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
import { describe, expect, it } from 'vitest';
import { countingProgram } from '../support/counting-program.js';
import { temporaryProject } from '../support/temporary-directory.js';
import { classImplementing, objectImplementing } from '../../eslint-plugin/analysis/recognisers/index.js';
import type { TypeInformation } from '../../eslint-plugin/analysis/index.js';

// With types, a class is asked for its type only when the names in its heritage clauses may lead to checkpoint-fencing
// (ADR 0311): resolving a class's type resolves its bases' too, checker work no other rule may need. These cases pin
// which classes are asked, by counting the checker's type queries, and that every storage is still found.

const files: Readonly<Record<string, string>> = {
  'node_modules/checkpoint-fencing/package.json': '{ "name": "checkpoint-fencing", "types": "index.d.ts" }',
  'node_modules/checkpoint-fencing/index.d.ts':
    'export interface CheckpointStorage { save(id: string, cp: string, condition?: unknown): Promise<string> }',
  'node_modules/emitter/package.json': '{ "name": "emitter", "types": "index.d.ts" }',
  'node_modules/emitter/index.d.ts': `
export declare class EventEmitter { on(event: string, listener: () => void): this }
export declare namespace EventEmitter { const captureRejections: boolean }
export interface Listening { listening: boolean }
export type EmitterOptions = { captureRejections: boolean };
export declare function withLogger<T extends new () => object>(base: T, name?: string): T;
`,
  'node_modules/adapter/package.json':
    '{ "name": "adapter", "types": "index.d.ts", "peerDependencies": { "checkpoint-fencing": "*" } }',
  'node_modules/kit/package.json': '{ "name": "kit", "types": "index.d.ts", "dependencies": { "adapter": "*" } }',
  'node_modules/kit/index.d.ts': "export { AdapterBase as KitBase } from 'adapter';",
  // An installed package that mentions checkpoint-fencing: in a program with one, every installed file is followed.
  'adapters.ts': `
import { AdapterBase } from 'adapter';
import { KitBase } from 'kit';
import { EventEmitter } from 'emitter';
export class Adapted extends AdapterBase {}
export class Kitted extends KitBase {}
export class Service extends EventEmitter {}
`,
  'node_modules/@types/node/package.json': '{ "name": "@types/node", "types": "index.d.ts" }',
  'node_modules/@types/node/index.d.ts':
    "declare module 'node:events' { export default class NodeEmitter { emit(event: string): boolean } }",
  'node_modules/adapter/index.d.ts': `
import type { CheckpointStorage } from 'checkpoint-fencing';
export declare const AdapterBase: new () => CheckpointStorage;
`,
  'storages.ts': `
import { EventEmitter, withLogger, type EmitterOptions, type Listening } from 'emitter';
import NodeEmitter from 'node:events';
import type { CheckpointStorage } from 'checkpoint-fencing';
interface Port extends CheckpointStorage {}
type Alias = CheckpointStorage;
declare function mixin<T extends new () => object>(base: T): T;
abstract class TableStorage implements Port {
  abstract save(id: string, cp: string): Promise<string>;
}
class Service extends EventEmitter implements Listening {
  listening = false;
}
export class Bus extends Service {}
export class Orders extends TableStorage {}
export class Aliased implements Alias {
  async save(id: string, cp: string) { return cp; }
}
export class Mixed extends mixin(EventEmitter) {}
export class Logged extends withLogger(EventEmitter, 'bus') {}
export class Notifier extends NodeEmitter {}
interface Options { retries: number }
export const options: Options = { retries: 3 };
export const emitterOptions: EmitterOptions = { captureRejections: true };
export const written: { retries: number } = { retries: 3 };
export const partial: Partial<Options> = { retries: 3 };
interface Job<T> { data: T }
export const job: Job<Alias> = { data: { async save(id: string, cp: string) { return cp; } } };
export const queries: Record<number, (schema: string) => string> = { 1: (schema) => schema };
export const states = { created: 'created' } as const;
export const portStorage: Port = { async save(id: string, cp: string) { return cp; } };
export const readonlyStorage: Readonly<Alias> = { async save(id: string, cp: string) { return cp; } };
`,
};

const project = temporaryProject('heritage-walk', files);

/** The answer for each class and annotated literal of `file`, and how many type queries the checker got for it. */
function implementationsAsked(
  file: 'storages.ts' | 'adapters.ts',
): Record<string, { readonly storage: boolean; readonly typeQueries: number; readonly importsResolved: number }> {
  const fileName = path.join(project, file);
  const { program, calls } = countingProgram([fileName]);
  // The checker's type queries, and the imports it resolves to what they import.
  const counts = () => ({
    typeQueries: ['getTypeAtLocation', 'getBaseTypes', 'getContextualType'].reduce(
      (sum, method) => sum + (calls.get(method) ?? 0),
      0,
    ),
    importsResolved: calls.get('getAliasedSymbol') ?? 0,
  });
  const { ast, services, scopeManager, visitorKeys } = parseForESLint(files[file] ?? '', {
    filePath: fileName,
    programs: [program],
  });
  // ESLint sets `parent` while it traverses; the analysis reads it.
  const setParents = (node: TSESTree.Node): void => {
    for (const key of visitorKeys[node.type] ?? []) {
      const value: unknown = node[key as keyof TSESTree.Node];
      for (const child of Array.isArray(value) ? value : [value]) {
        if (typeof child === 'object' && child !== null && 'type' in child) {
          (child as { parent: TSESTree.Node }).parent = node;
          setParents(child as TSESTree.Node);
        }
      }
    }
  };
  setParents(ast);
  const scope = scopeManager.scopes[0];
  if (scope === undefined) {
    throw new Error(`the parser gave ${file} no scope`);
  }
  const types = services as TypeInformation;
  const answers: Record<string, { storage: boolean; typeQueries: number; importsResolved: number }> = {};
  for (const statement of ast.body) {
    const node = statement.type === AST_NODE_TYPES.ExportNamedDeclaration ? statement.declaration : statement;
    calls.clear();
    if (node?.type === AST_NODE_TYPES.ClassDeclaration && node.id !== null) {
      const found = classImplementing('CheckpointStorage', node, scope, types);
      answers[node.id.name] = { storage: found !== undefined, ...counts() };
    }
    const [declarator] = node?.type === AST_NODE_TYPES.VariableDeclaration ? node.declarations : [];
    const init =
      declarator?.init?.type === AST_NODE_TYPES.TSAsExpression ? declarator.init.expression : declarator?.init;
    if (declarator?.id.type === AST_NODE_TYPES.Identifier && init?.type === AST_NODE_TYPES.ObjectExpression) {
      const found = objectImplementing('CheckpointStorage', init, scope, types);
      answers[declarator.id.name] = { storage: found !== undefined, ...counts() };
    }
  }
  return answers;
}

describe('with types, which implementations are asked for their type', () => {
  const asked = implementationsAsked('storages.ts');

  it('asks no type of a class whose heritage leads only to other packages and to classes of its own, and finds every storage class', () => {
    expect(asked).toMatchObject({
      // Imported from an installed package or Node's, where no installed package mentions checkpoint-fencing: the
      // import is not resolved.
      Service: { storage: false, typeQueries: 0, importsResolved: 0 },
      Bus: { storage: false, typeQueries: 0, importsResolved: 0 },
      Notifier: { storage: false, typeQueries: 0, importsResolved: 0 },
      // A library's mixin over a library's class leads nowhere; the project's own mixin may add anything.
      Logged: { storage: false, typeQueries: 0, importsResolved: 0 },
      Mixed: { storage: false },
      // What the file spells settles it: the checker is not asked.
      TableStorage: { storage: true, typeQueries: 0 },
      Orders: { storage: true, typeQueries: 0 },
      Aliased: { storage: true, typeQueries: 0 },
    });
    expect(asked['Mixed']?.typeQueries).toBeGreaterThan(0);
  });

  it("follows every installed package's names in a program where one other than checkpoint-fencing mentions it", () => {
    const inAdapters = implementationsAsked('adapters.ts');
    // A library's value that its declarations say may be a storage, directly or re-exported by another package.
    expect(inAdapters).toMatchObject({
      Adapted: { storage: true },
      Kitted: { storage: true },
      Service: { storage: false },
    });
    for (const name of ['Adapted', 'Kitted']) {
      expect(inAdapters[name]?.typeQueries, name).toBeGreaterThan(0);
    }
    expect(inAdapters['Service']?.importsResolved).toBeGreaterThan(0);
  });

  it("asks no type of a literal whose annotation's names lead elsewhere, and finds those annotated with a storage's", () => {
    expect(asked).toMatchObject({
      options: { storage: false, typeQueries: 0 },
      emitterOptions: { storage: false, typeQueries: 0, importsResolved: 0 },
      written: { storage: false, typeQueries: 0 },
      partial: { storage: false, typeQueries: 0 },
      job: { storage: false, typeQueries: 0 },
      queries: { storage: false, typeQueries: 0 },
      states: { storage: false, typeQueries: 0 },
      portStorage: { storage: true, typeQueries: 0 },
      readonlyStorage: { storage: true },
    });
  });
});
