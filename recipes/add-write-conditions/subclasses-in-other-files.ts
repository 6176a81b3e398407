import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, relative, resolve } from 'node:path';
import type { ts as Typescript } from 'ts-morph';
import { ts } from './typescript.js';
import type { StorageMemberName } from '../../vocabulary/index.js';
import { enclosingWorkspace } from './workspace-layout.js';
import { memberName } from './read-implementer-facts.js';
import { extendsExpression, importBindings } from './storage-resolver.js';
import { upgradeMessages } from './upgrade-messages.js';
import { NEVER_TOUCHED, type UpgradeDecision } from './upgrade-data.js';

const SAVE: StorageMemberName = 'save';
const SOURCE_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'];
const SKIPPED_FOLDERS = ['node_modules', 'dist', 'build', 'coverage', '.git'].map((folder) => `**/${folder}`);

/** For the one-file transform: a class is left alone when a subclass elsewhere overrides the `save` it would rename. */
export function refusalsForSubclassesElsewhere(
  path: string,
  decisions: readonly UpgradeDecision[],
): Map<string, string> {
  return new Map(
    decisions.flatMap(({ implementer, unconditionalSaveName }): [string, string][] => {
      const reason =
        unconditionalSaveName === undefined ? undefined : refusalForSubclassDeclaringSave(path, implementer.name);
      return reason === undefined ? [] : [[implementer.id, reason]];
    }),
  );
}

/** The refusal naming the first subclass (see above) of `className` in `file` that declares a `save`, if any. */
function refusalForSubclassDeclaringSave(file: string, className: string): string | undefined {
  const root = packageRoot(dirname(resolve(file)));
  // Keyed by file and name, so a class met twice is searched once; a Map's iteration reaches entries set during it.
  const bases = new Map([[`${resolve(file)}#${className}`, { file: resolve(file), name: className }]]);
  for (const base of bases.values()) {
    // A cheap test first: a subclass names the base, or (a default import under another name) the base's file.
    const names = [base.name, basename(modulePath(base.file))];
    for (const candidate of sourceFiles(root)) {
      if (candidate.path !== base.file && names.some((name) => candidate.text.includes(name))) {
        for (const { name, declaresSave } of subclassesIn(candidate.path, candidate.text, base)) {
          if (declaresSave) {
            return upgradeMessages.subclassInAnotherFile(name, relative(root, candidate.path).split('\\').join('/'));
          }
          bases.set(`${candidate.path}#${name}`, { file: candidate.path, name });
        }
      }
    }
  }
  return undefined;
}

/** The folder whose files may subclass a class of `start`: its workspace's root, else its package's. */
function packageRoot(start: string): string {
  const manifest = ts.findConfigFile(start, existsSync, 'package.json');
  return enclosingWorkspace(start)?.root ?? (manifest === undefined ? start : dirname(manifest));
}

const filesByRoot = new Map<string, { path: string; text: string }[]>();

/** The package's source files, read once per process (jscodeshift runs the transform many times in one worker). */
function sourceFiles(root: string): { path: string; text: string }[] {
  const files =
    filesByRoot.get(root) ??
    ts.sys
      .readDirectory(root, SOURCE_EXTENSIONS, SKIPPED_FOLDERS)
      .filter((path) => !NEVER_TOUCHED.test(relative(root, path)))
      .map((path) => ({ path: resolve(path), text: readFileSync(path, 'utf8') }));
  filesByRoot.set(root, files);
  return files;
}

/**
 * Classes in `path` whose `extends` may name `base`: a named import of that name from any module (the base's own
 * file, a barrel re-exporting it, or another workspace package's name), the default import of the base's file, or
 * `ns.Base` through a namespace import. Barrels and packages are not followed, so a name imported through one counts
 * without proof; a false match only leaves the base alone, a missed one breaks the subclass.
 */
function subclassesIn(
  path: string,
  text: string,
  base: { readonly file: string; readonly name: string },
): { name: string; declaresSave: boolean }[] {
  const sourceFile = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  // What an `extends` clause naming the base reads, spaces aside: `Base`, `Renamed`, `ns.Base`.
  const baseNames = sourceFile.statements.flatMap((statement) => {
    const { specifier = '', defaultName, namespace, named = [] } = importBindings(statement) ?? {};
    const ofBaseFile =
      specifier.startsWith('.') && modulePath(resolve(dirname(path), specifier)) === modulePath(base.file);
    return [
      ...(ofBaseFile && defaultName !== undefined ? [defaultName] : []),
      ...named.filter((element) => element.imported === base.name).map(({ local }) => local),
      ...(namespace === undefined ? [] : [`${namespace}.${base.name}`]),
    ];
  });
  const found: { name: string; declaresSave: boolean }[] = [];
  const visit = (node: Typescript.Node): void => {
    const extended = ts.isClassDeclaration(node) ? extendsExpression(node)?.getText().replace(/\s/g, '') : undefined;
    if (ts.isClassDeclaration(node) && node.name !== undefined && baseNames.includes(extended ?? '')) {
      found.push({ name: node.name.text, declaresSave: node.members.some((member) => memberName(member) === SAVE) });
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return found;
}

/** `./base.js`, `./base` and `./base/index` all name `base.ts` (or `base/index.ts`). */
function modulePath(path: string): string {
  return path.replace(/\.(?:d\.)?[mc]?[jt]sx?$/, '').replace(/[\\/]index$/, '');
}
