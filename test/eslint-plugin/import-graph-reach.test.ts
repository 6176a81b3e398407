import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { fileMayReachPackage } from '../../eslint-plugin/analysis/import-graph-reach.js';

// With types, a file is analysed for storages only if checkpoint-fencing's types may be seen in it (ADR 0312): these
// cases pin which imports lead there, in a project with fake installed packages.

const project = mkdtempSync(path.join(tmpdir(), 'import-graph-'));
afterAll(() => {
  rmSync(project, { recursive: true, force: true });
});

const files: Readonly<Record<string, string>> = {
  'node_modules/checkpoint-fencing/package.json': '{ "name": "checkpoint-fencing", "types": "index.d.ts" }',
  'node_modules/checkpoint-fencing/index.d.ts':
    'export interface CheckpointStorage { save(id: string): Promise<void> }',
  'node_modules/emitter/package.json': '{ "name": "emitter", "types": "index.d.ts", "dependencies": { "tiny": "*" } }',
  'node_modules/emitter/index.d.ts': 'export declare class EventEmitter { on(event: string): this }',
  'node_modules/tiny/package.json': '{ "name": "tiny", "dependencies": { "emitter": "*" } }',
  'node_modules/adapter/package.json':
    '{ "name": "adapter", "types": "index.d.ts", "peerDependencies": { "checkpoint-fencing": "*" } }',
  'node_modules/adapter/index.d.ts':
    "import type { CheckpointStorage } from 'checkpoint-fencing';\nexport declare const AdapterBase: new () => CheckpointStorage;",
  'node_modules/kit/package.json': '{ "name": "kit", "types": "index.d.ts", "dependencies": { "adapter": "*" } }',
  'node_modules/kit/index.d.ts': "export { AdapterBase as KitBase } from 'adapter';",
  'node.d.ts': "declare module 'node:events' { export default class NodeEmitter { emit(event: string): boolean } }",
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
  'adapted.ts': "import { AdapterBase } from 'adapter';\nexport class Adapted extends AdapterBase {}",
  'kitted.ts': "import { KitBase } from 'kit';\nexport class Kitted extends KitBase {}",
  'typed-import.ts': "export const port: import('./ports.js').Port = { async save() {} };",
  'unresolved.ts': "import { Thing } from './missing.js';\nexport class Other extends Thing {}",
};

for (const [file, text] of Object.entries(files)) {
  mkdirSync(path.dirname(path.join(project, file)), { recursive: true });
  writeFileSync(path.join(project, file), text);
}

const roots = Object.keys(files).filter((file) => !file.startsWith('node_modules/'));
const program = ts.createProgram(
  roots.map((file) => path.join(project, file)),
  {
    strict: true,
    noEmit: true,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    types: [],
  },
);
const checker = program.getTypeChecker();
let symbolQueries = 0;
const counting = new Proxy(checker, {
  get(target, key) {
    if (key === 'getSymbolAtLocation') {
      symbolQueries += 1;
    }
    const value: unknown = Reflect.get(target, key);
    return typeof value === 'function' ? (value.bind(target) as unknown) : value;
  },
});

function reaches(file: string): boolean {
  const sourceFile = program.getSourceFile(path.join(project, file));
  if (sourceFile === undefined) {
    throw new Error(`${file} is not in the test program`);
  }
  return fileMayReachPackage(sourceFile, counting);
}

describe('which files may see checkpoint-fencing through their imports', () => {
  it('follows imports and re-exports through the project and into packages that depend on it', () => {
    expect({
      ports: reaches('ports.ts'),
      orders: reaches('orders.ts'),
      reexport: reaches('reexport.ts'),
      adapted: reaches('adapted.ts'),
      kitted: reaches('kitted.ts'),
      typedImport: reaches('typed-import.ts'),
    }).toEqual({ ports: true, orders: true, reexport: true, adapted: true, kitted: true, typedImport: true });
  });

  it('stops at Node, at packages that do not depend on it, at unresolved imports, and answers for a whole import cycle at once', () => {
    expect({ app: reaches('app.ts'), unresolved: reaches('unresolved.ts') }).toEqual({ app: false, unresolved: false });
    symbolQueries = 0;
    expect({ bus: reaches('bus.ts'), helpers: reaches('helpers.ts') }).toEqual({ bus: false, helpers: false });
    expect(symbolQueries).toBe(0);
  });
});
