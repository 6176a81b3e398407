import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { countingProgram } from '../support/counting-program.js';
import { temporaryProject } from '../support/temporary-directory.js';
import { fileMayReachPackage } from '../../eslint-plugin/analysis/gates/index.js';

// With types, a file is analysed for storages only if checkpoint-fencing's types may be seen in it (ADR 0312): these
// cases pin which imports lead to the package, in a project with fake installed packages.

const files: Readonly<Record<string, string>> = {
  'node_modules/checkpoint-fencing/package.json': '{ "name": "checkpoint-fencing", "types": "index.d.ts" }',
  'node_modules/checkpoint-fencing/index.d.ts':
    'export interface CheckpointStorage { save(id: string): Promise<void> }',
  'node_modules/emitter/package.json': '{ "name": "emitter", "types": "index.d.ts" }',
  'node_modules/emitter/index.d.ts': 'export declare class EventEmitter { on(event: string): this }',
  'node_modules/adapter/package.json': '{ "name": "adapter", "types": "index.d.ts" }',
  'node_modules/adapter/index.d.ts':
    "import type { CheckpointStorage } from 'checkpoint-fencing';\nexport declare const AdapterBase: new () => CheckpointStorage;",
  'node_modules/kit/package.json': '{ "name": "kit", "types": "index.d.ts" }',
  'node_modules/kit/index.d.ts': "export { AdapterBase as KitBase } from 'adapter';",
  'node_modules/@types/node/package.json': '{ "name": "@types/node", "types": "index.d.ts" }',
  'node_modules/@types/node/index.d.ts':
    "declare module 'node:events' { export default class NodeEmitter { emit(event: string): boolean } }",
  'ports.ts':
    "import type { CheckpointStorage } from 'checkpoint-fencing';\nexport interface Port extends CheckpointStorage {}",
  'orders.ts':
    "import type { Port } from './ports.js';\nexport abstract class Orders implements Port { abstract save(id: string): Promise<void> }",
  'reexport.ts': "export * from './orders.js';",
  'bus.ts': `import { EventEmitter } from 'emitter';
import NodeEmitter from 'node:events';
import { helper } from './helpers.js';
export class Bus extends EventEmitter { helper = helper }
export class Notifier extends NodeEmitter {}`,
  'helpers.ts': "import type { Bus } from './bus.js';\nexport const helper = (bus: Bus) => bus;",
  'app.ts': "import { Bus } from './bus.js';\nexport class App extends Bus {}",
  'typed-import.ts': "export const port: import('./ports.js').Port = { async save() {} };",
  'unresolved.ts': "import { Thing } from './missing.js';\nexport class Other extends Thing {}",
  'kitted.ts': "import { KitBase } from 'kit';\nexport class Kitted extends KitBase {}",
};

const project = temporaryProject('import-graph', files);

/** A program of `roots` whose checker counts its symbol lookups, and the question asked of each of its files. */
function programOf(...roots: string[]): {
  readonly reaches: (file: string) => boolean;
  readonly symbolQueries: number;
} {
  const { program, calls } = countingProgram(roots.map((file) => path.join(project, file)));
  return {
    reaches: (file) => {
      const sourceFile = program.getSourceFile(path.join(project, file));
      if (sourceFile === undefined) {
        throw new Error(`${file} is not in the test program`);
      }
      return fileMayReachPackage(sourceFile, program);
    },
    get symbolQueries() {
      return calls.get('getSymbolAtLocation') ?? 0;
    },
  };
}

const PROJECT = ['ports.ts', 'orders.ts', 'reexport.ts', 'bus.ts', 'app.ts', 'typed-import.ts'];

describe('which files may see checkpoint-fencing through their imports', () => {
  it('follows imports, re-exports and import types through the project', () => {
    const { reaches } = programOf(...PROJECT);
    expect({
      ports: reaches('ports.ts'),
      orders: reaches('orders.ts'),
      reexport: reaches('reexport.ts'),
      typedImport: reaches('typed-import.ts'),
    }).toEqual({ ports: true, orders: true, reexport: true, typedImport: true });
  });

  it("stops at installed packages and Node's modules where none mentions checkpoint-fencing, and at unresolved imports; one answer serves a whole import closure", () => {
    const program = programOf(...PROJECT, 'unresolved.ts');
    expect({ app: program.reaches('app.ts'), unresolved: program.reaches('unresolved.ts') }).toEqual({
      app: false,
      unresolved: false,
    });
    const asked = program.symbolQueries;
    expect({ bus: program.reaches('bus.ts'), helpers: program.reaches('helpers.ts') }).toEqual({
      bus: false,
      helpers: false,
    });
    expect(program.symbolQueries).toBe(asked);
  });

  it('follows every installed package where one other than checkpoint-fencing mentions it', () => {
    const { reaches } = programOf(...PROJECT, 'kitted.ts');
    expect({ kitted: reaches('kitted.ts'), bus: reaches('bus.ts') }).toEqual({ kitted: true, bus: true });
  });
});
