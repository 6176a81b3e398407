import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ts } from 'ts-morph';
import { describe, expect, it } from 'vitest';
import { decideUpgrades } from '../../recipes/add-write-conditions/shape-decision.js';
import { MARKER_DOC_POINTER, markerText } from '../../vocabulary/member-templates.js';
import { upgradeMessages } from '../../recipes/add-write-conditions/upgrade-messages.js';
import { summaryLine } from '../../recipes/index.js';
import type { ImplementerFacts } from '../../recipes/add-write-conditions/upgrade-data.js';
import { REPO } from './support/fixture-project.js';

type Messages = typeof upgradeMessages;

/**
 * Arguments for every message, as real runs produce them. Quoted text (a compiler diagnostic, a reason) is given
 * with the period it comes with, which is exactly where a doubled one would appear.
 */
const samples: { readonly [Name in keyof Messages]: Parameters<Messages[Name]> } = {
  noTsconfig: ['/app/tsconfig.json'],
  noTsconfigAbove: ['/app/src'],
  tsconfigFoundAbove: ['/app/tsconfig.json'],
  missingExtendsTarget: ['/app/tsconfig.json', '@tsconfig/node20/tsconfig.json'],
  unusableTsconfig: ['/app/tsconfig.json', "Compiler option 'module' requires a value of type string."],
  noSourceFiles: ['/app/tsconfig.json'],
  noSuchPath: ['/app/src/missing'],
  pathOutsideProject: ['/app/scripts/seed.ts', '/app/tsconfig.json'],
  doesNotParse: ['/app/src/storage.ts', 3, 14, "'}' expected."],
  unreadable: ['/app/src/storage.ts'],
  packageUnresolvable: ['/app/src/storage.ts'],
  changedOnDisk: ['/app/src/storage.ts'],
  gitStatusFailed: ['/app', 'fatal: unable to read tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904.'],
  uncommittedChanges: ['/app/src/storage.ts', 2],
  declarationsReadDirectly: [
    '/app/tsconfig.json',
    '"moduleResolution": "node10"',
    '/app/node_modules/checkpoint-fencing/dist/runtime/index.d.ts',
  ],
  packageNotInstalled: ['/app/tsconfig.json', '/usr/lib/node_modules/checkpoint-fencing/dist/runtime/index.d.ts'],
  formatterFailed: ['/app/src/storage.ts', 'Cannot find package "prettier-plugin-organize-imports".'],
  extendsItself: ['Storage', '/app/src/storage.ts'],
  baseNotVisible: ['Table', 'another-file'],
  baseLeftAlone: ['SqlStorage', 'extends Table, whose members cannot be seen here.'],
  saveIsValue: ["assigned from `saveRow` (imported from './rows.js') at /app/src/storage.ts:12"],
  assignedInConstructorBranch: ['save', '/app/src/storage.js:9'],
  saveIsAccessor: [],
  saveHasOverloads: [],
  decoratedFollower: ['RemoteStorage'],
  bindingsDiffer: ['MemoryStorage', 'FileStorage'],
  subclassCannotFollow: ['AuditedStorage', 'src/audited-storage.ts', 'its save has overload signatures.'],
  outsideSelection: ['LoggingStorage', 'src/impl/logging-storage.ts'],
  inheritsSaveField: ['KeyValueTable', 'TableStorage'],
  subclassInAnotherFile: ['PostgresStorage', 'src/postgres-storage.ts'],
  badArguments: [
    "Unknown option '--frobnicate'. To specify a positional argument starting with a '-', place it at the end.",
  ],
};

/** One line, one sentence-final period, never two in a row. */
function expectWellFormed(message: string): void {
  expect(message).not.toMatch(/\n/);
  expect(message).not.toMatch(/\.\s*\./);
  expect(message).toMatch(/[^.]\.$/);
}

function implementer(overrides: Partial<ImplementerFacts>): ImplementerFacts {
  return {
    id: 'a#0',
    file: '/app/a.ts',
    kind: 'class',
    name: 'A',
    line: 1,
    isAbstract: false,
    base: undefined,
    ownSave: undefined,
    ownWriteVersion: false,
    unfollowedConstructorWrite: undefined,
    memberNames: [],
    idParameterName: undefined,
    superSaveNames: [],
    explicitlyPublic: false,
    node: ts.factory.createClassDeclaration(undefined, 'A', undefined, undefined, []),
    ...overrides,
  };
}

describe('every message the upgrade shows', () => {
  it('has sample arguments here, so a new message cannot escape this test', () => {
    expect(Object.keys(samples).sort()).toEqual(Object.keys(upgradeMessages).sort());
  });

  for (const name of Object.keys(samples) as (keyof Messages)[]) {
    it(`${name}: one line ending in one period`, () => {
      const message = (upgradeMessages[name] as (...args: unknown[]) => string)(...samples[name]);
      expectWellFormed(message);
    });
  }

  it('baseNotVisible: for the jscodeshift transform points to the CLI, for the CLI never to itself', () => {
    expectWellFormed(upgradeMessages.baseNotVisible('EventEmitter', 'another-package'));
    expect(upgradeMessages.baseNotVisible('Table', 'another-file')).toContain('npx checkpoint-fencing-codemod upgrade');
    expect(upgradeMessages.baseNotVisible('EventEmitter', 'another-package')).not.toContain(
      'checkpoint-fencing-codemod upgrade',
    );
  });

  it('the marker, for every shape, and the summary line', () => {
    const shapes = decideUpgrades([
      implementer({ id: 'refusing', name: 'Refusing' }),
      implementer({ id: 'written', name: 'WithWriteVersion', ownWriteVersion: true }),
    ]);
    for (const decision of shapes) {
      const text = markerText(decision);
      expect(text).not.toMatch(/\.\s*\./);
      expect(text).toMatch(/^TODO \[checkpoint-fencing upgrade\] /);
    }
    expectWellFormed(
      summaryLine({
        filesScanned: 3,
        filesAnalysed: 2,
        implementers: [],
        skipped: [],
        changes: [],
        written: false,
        notices: [],
        durationMs: 1200,
      }),
    );
  });

  it("the marker's doc pointer names a section of a file the runtime package installs", () => {
    const [path, anchor] = MARKER_DOC_POINTER.replace(/^checkpoint-fencing\//, '').split('#');
    // README.md is in every package npm packs; anything else must be listed in the runtime's "files".
    const files = (JSON.parse(readFileSync(join(REPO, 'runtime/package.json'), 'utf8')) as { files: string[] }).files;
    expect(path === 'README.md' || files.some((entry) => path?.startsWith(entry))).toBe(true);
    const headings = [...readFileSync(join(REPO, 'runtime', path ?? ''), 'utf8').matchAll(/^#+ (.+)$/gm)].map((match) =>
      (match[1] ?? '')
        .toLowerCase()
        .replace(/[^\w\s-]/g, '')
        .replace(/\s+/g, '-'),
    );
    expect(headings).toContain(anchor);
  });

  it('is the only source of user-facing errors in recipes/ (the rest are bugs, and say so)', () => {
    const sources = (folder: string): string[] =>
      readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory()
          ? sources(join(folder, entry.name))
          : entry.name.endsWith('.ts')
            ? [join(folder, entry.name)]
            : [],
      );
    const adHoc = sources(join(REPO, 'recipes')).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/new (?:Error|UpgradeError|UsageError)\(([\s\S]{0,200})/g)]
        // The argument, up to the end of the statement that throws.
        .map((match) => (match[1] ?? '').split(/\);/)[0] ?? '')
        .filter((argument) => !argument.includes('upgradeMessages.') && !argument.includes('this is a bug'))
        .filter((argument) => !/^\s*error instanceof Error \? error\.message/.test(argument))
        .map((argument) => `${file}: ${argument.slice(0, 60)}`),
    );
    expect(adHoc).toEqual([]);
  });
});
