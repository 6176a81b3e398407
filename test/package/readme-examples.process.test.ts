import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { builtPackage, type PackageFolder } from '../support/built-package.js';
import { fencedCodeBlocks } from '../support/markdown.js';
import { temporaryDirectory } from '../support/temporary-directory.js';
import { workspaceFolders } from '../support/workspace-packages.js';

// A README's code is what a newcomer pastes first: every ```ts block must compile as it stands, against the packages
// as npm installs them (built, imported by name), with every name it uses defined or imported. Each block is a file of
// its own in a user's ESM project; a block whose first line is `// <name>.ts` (or .mts) is that file, so that a later
// block may import it. No block is exempt: show code that is wrong on purpose as ```text, or in a doc page.

const REPOSITORY = resolve(import.meta.dirname, '../..');
const FILE_NAME = /^\/\/ ([\w.-]+\.m?ts)\n/u;

/** The Markdown files whose code users copy: every package's README, the root README, the storage authors' page. */
const DOCUMENTS = [
  ...workspaceFolders(REPOSITORY).map((folder) => join(folder, 'README.md')),
  'README.md',
  'doc/custom-storages.md',
];

/** What a user's project has installed: this workspace's packages, built, and the clients and types they pass in. */
const PACKAGES: Readonly<Record<string, PackageFolder>> = {
  'checkpoint-fencing': 'runtime',
  'checkpoint-fencing-codemod': 'recipes',
  'eslint-plugin-checkpoint-fencing': 'eslint-plugin',
};
const FROM_THIS_CHECKOUT = ['ioredis', 'pg', '@types/pg', '@types/node', 'vitest', 'eslint', 'typescript-eslint'];

interface Example {
  /** The Markdown file the block is in, and the line of it where the block's code starts. */
  readonly document: string;
  readonly line: number;
  /** The file the block was written to. */
  readonly file: string;
}

/** Writes every ```ts block of the {@link DOCUMENTS} into `project` and returns where each came from. */
function writeExamples(project: string): Example[] {
  return DOCUMENTS.flatMap((document) =>
    fencedCodeBlocks(readFileSync(join(REPOSITORY, document), 'utf8'), 'ts').map((block, index) => {
      const file = join(project, document.replace(/\W/gu, '-'), FILE_NAME.exec(block.code)?.[1] ?? `block-${index}.ts`);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, block.code);
      return { document, line: block.line, file };
    }),
  );
}

/** The project's diagnostics, each at the README line it comes from. */
function typeCheck(project: string, examples: readonly Example[]): string[] {
  const program = ts.createProgram(
    examples.map((example) => example.file),
    {
      strict: true,
      target: ts.ScriptTarget.ES2022,
      lib: ['lib.es2022.d.ts'], // a Node project's: no DOM globals such as `event`
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      types: ['node'],
      skipLibCheck: true,
      noEmit: true,
    },
  );
  const byFile = new Map(examples.map((example) => [example.file, example]));
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    const example = diagnostic.file === undefined ? undefined : byFile.get(diagnostic.file.fileName);
    if (diagnostic.file === undefined || diagnostic.start === undefined || example === undefined) {
      const where = diagnostic.file === undefined ? '' : `${relative(project, diagnostic.file.fileName)}: `;
      return `${where}TS${diagnostic.code}: ${message}`;
    }
    const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    return `${example.document}:${example.line + line}:${character + 1}: TS${diagnostic.code}: ${message}`;
  });
}

describe('the ```ts blocks of the READMEs', { timeout: 900_000 }, () => {
  let project: string;
  let examples: Example[];

  beforeAll(() => {
    project = temporaryDirectory('readme-examples');
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'readme-examples', type: 'module' }));
    for (const [name, folder] of Object.entries(PACKAGES)) {
      mkdirSync(dirname(join(project, 'node_modules', name)), { recursive: true });
      symlinkSync(builtPackage(folder), join(project, 'node_modules', name), 'dir');
    }
    for (const name of FROM_THIS_CHECKOUT) {
      mkdirSync(dirname(join(project, 'node_modules', name)), { recursive: true });
      symlinkSync(join(REPOSITORY, 'node_modules', name), join(project, 'node_modules', name), 'dir');
    }
    examples = writeExamples(project);
  });

  it('finds the blocks: the runtime README leads with a whole program', () => {
    const runtime = examples.filter((example) => example.document === 'runtime/README.md');
    expect(runtime.length).toBeGreaterThanOrEqual(4);
    const first = runtime[0];
    expect(first?.file.endsWith('orders-projection.mts')).toBe(true);
  });

  it('type-check against the built packages, imported by name', () => {
    expect(typeCheck(project, examples)).toEqual([]);
  });
});
