import type * as ts from 'typescript';
import { PACKAGE_NAME } from '../../../vocabulary/index.js';
import { once, perProgram, remember } from '../memo.js';
import { isInstalledFile, isInstalledOrLinkedPackageFile, isLibraryFile } from '../package-files.js';
import { jsDocImplementsTags } from '../type-information.js';

// With types, whether a program, a file or a name may lead to checkpoint-fencing at all (ADRs 0310–0312): where none
// can, the storage rules register no listener, or ask the checker nothing. Only TypeScript's types are imported here:
// the checker comes with the program typescript-eslint built, so loading the plugin never loads the compiler.

/** `ts.SymbolFlags.Alias`, spelled out: it is a value of the compiler, which plugin code does not load (ADR 0304). */
const ALIAS_SYMBOL_FLAG = 1 << 21;

/**
 * What may bring types into a file past its import and export statements: an import type or a dynamic import, a
 * `require`, a triple-slash reference, a global or module declaration. A file that spells one is not followed.
 */
const UNFOLLOWED_REFERENCE = /\bimport\s*\(|\brequire\s*\(|\/\/\/\s*<reference|\bdeclare\s+(?:global|module)\b/u;

/**
 * Whether any file of `program` belongs to checkpoint-fencing. A program without one has no type a storage could have,
 * so nothing in it is a storage by type (ADR 0310). Answered once a program.
 */
export const programIncludesPackage = once((program: ts.Program) =>
  program.getSourceFiles().some((sourceFile) => isInstalledOrLinkedPackageFile(sourceFile.fileName, program)),
);

/**
 * Whether what a class or interface `declaration` extends or implements (a JSDoc `@implements` too) may lead to
 * checkpoint-fencing: {@link nameMayReachPackage} for each name in its heritage clauses, and for a mixin call
 * (`extends PassportStrategy(Strategy)`) for its callee and its arguments, where the class it returns comes from.
 */
export function heritageMayReachPackage(
  declaration: ts.Node,
  program: ts.Program,
  seen = new Set<ts.Symbol>(),
): boolean {
  const checker = program.getTypeChecker();
  const { heritageClauses } = declaration as { readonly heritageClauses?: readonly ts.HeritageClause[] };
  const mayReach = (expression: ts.Expression): boolean => {
    const { arguments: mixinArguments, expression: callee } = expression as Partial<ts.CallExpression>;
    if (mixinArguments === undefined || callee === undefined) {
      return nameMayReachPackage(expression, program, seen);
    }
    // An argument without a symbol (a name string, an options literal) passes no class.
    const classes = mixinArguments.filter((argument) => checker.getSymbolAtLocation(argument) !== undefined);
    return [callee, ...classes].some(mayReach);
  };
  return [
    ...(heritageClauses ?? []).flatMap((clause) => clause.types),
    ...jsDocImplementsTags(declaration).map((tag) => tag.class),
  ].some(({ expression }) => mayReach(expression));
}

/**
 * Whether the class, interface or type that `name` refers to may be declared in checkpoint-fencing or extend or
 * implement something that is, followed through symbols, never types. Resolving a class's type resolves its base
 * classes' types: in a repository where no other rule asks for types, the checker's work on a service's
 * `EventEmitter` base and on the annotations of options literals was most of the plugin's lint time (ADR 0311). What
 * the walk cannot follow (a type alias, a variable, an unresolved import) may lead anywhere, unless only a library's
 * declaration files declare it and none of them mentions checkpoint-fencing. Where no installed package but
 * checkpoint-fencing mentions it, no name declared or imported from under `node_modules` leads there
 * ({@link isOutOfReachLibraryFile}), and such an import is not resolved.
 */
export function nameMayReachPackage(name: ts.Node, program: ts.Program, seen = new Set<ts.Symbol>()): boolean {
  const target = declaredSymbol(name, program);
  if (target === null || target === undefined) {
    return target === undefined;
  }
  if (seen.has(target)) {
    return false;
  }
  seen.add(target);
  const declarations = target.getDeclarations() ?? [];
  if (
    declarations.some((declaration) => isInstalledOrLinkedPackageFile(declaration.getSourceFile().fileName, program))
  ) {
    return true;
  }
  if (
    declarations.length > 0 &&
    declarations.every((declaration) => isOutOfReachLibraryFile(declaration.getSourceFile(), program))
  ) {
    return false;
  }
  const classesAndInterfaces = declarations.filter((declaration) => 'heritageClauses' in declaration);
  return classesAndInterfaces.length > 0
    ? classesAndInterfaces.some((declaration) => heritageMayReachPackage(declaration, program, seen))
    : declarations.length === 0 ||
        declarations.some((declaration) => {
          const sourceFile = declaration.getSourceFile();
          return !isLibraryFile(sourceFile) || sourceFile.text.includes(PACKAGE_NAME);
        });
}

/** Whether `name` refers to a class or an interface, whose type arguments cannot make it a storage. */
export function namesClassOrInterface(name: ts.Node, program: ts.Program): boolean {
  return (declaredSymbol(name, program)?.getDeclarations() ?? []).some(
    (declaration) => 'heritageClauses' in declaration,
  );
}

/**
 * The symbol `name` refers to, through an import to what it imports; `null` for an import from a module that cannot
 * lead to checkpoint-fencing ({@link isOutOfReachLibraryFile}), which is not resolved: resolving a default import of
 * an `export =` module (`import EventEmitter from 'node:events'`) resolves the type of what it exports, the most
 * costly of the walk's steps in a profile of pg-boss.
 */
function declaredSymbol(name: ts.Node, program: ts.Program): ts.Symbol | null | undefined {
  const checker = program.getTypeChecker();
  const symbol = checker.getSymbolAtLocation(name);
  if (symbol === undefined || (symbol.flags & ALIAS_SYMBOL_FLAG) === 0) {
    return symbol;
  }
  const declaration = symbol.getDeclarations()?.[0];
  const specifier = declaration === undefined ? undefined : importedFrom(declaration);
  const modules = specifier === undefined ? [] : moduleFiles(specifier, checker);
  return modules.length > 0 && modules.every((file) => isOutOfReachLibraryFile(file, program))
    ? null
    : checker.getAliasedSymbol(symbol);
}

/** The module name an import or re-export writes, for the declaration of one of its names; `undefined` for a local alias. */
function importedFrom(declaration: ts.Node): ts.Expression | undefined {
  // A source file's `parent` is undefined, though its type does not say so.
  for (let node: ts.Node | undefined = declaration; node !== undefined; node = node.parent as ts.Node | undefined) {
    const written = writtenModuleName(node);
    if (written !== undefined) {
      return written;
    }
  }
  return undefined;
}

/** The module name `node` writes when it is an import, a re-export or `import x = require(…)`; else `undefined`. */
function writtenModuleName(node: ts.Node): ts.Expression | undefined {
  const { moduleSpecifier } = node as Partial<ts.ImportDeclaration>;
  const { moduleReference } = node as Partial<ts.ImportEqualsDeclaration>;
  return moduleSpecifier ?? (moduleReference as Partial<ts.ExternalModuleReference> | undefined)?.expression;
}

/**
 * The files that declare the module a module name resolves to: a source file, or the files of an ambient
 * `declare module`. Resolving a module name reads what the program already resolved, not what the module exports.
 */
function moduleFiles(specifier: ts.Expression, checker: ts.TypeChecker): ts.SourceFile[] {
  return (checker.getSymbolAtLocation(specifier)?.getDeclarations() ?? []).map((declaration) =>
    declaration.getSourceFile(),
  );
}

/**
 * Whether nothing `sourceFile` declares can lead to checkpoint-fencing, however far its heritage goes: it is an
 * installed package's file, not checkpoint-fencing's, and no installed package's file in the program but
 * checkpoint-fencing's mentions checkpoint-fencing. A package reaches it only through a file that imports it by name,
 * and the program holds every declaration file an import leads to. Where one does (an adapter package), installed
 * files are followed as the project's are.
 */
function isOutOfReachLibraryFile(sourceFile: ts.SourceFile, program: ts.Program): boolean {
  return (
    isInstalledFile(sourceFile.fileName) &&
    !isInstalledOrLinkedPackageFile(sourceFile.fileName, program) &&
    !librariesMentionPackage(program)
  );
}

/** Whether a file of `program` under `node_modules` mentions checkpoint-fencing, outside its own folder. */
const librariesMentionPackage = once((program: ts.Program) =>
  program
    .getSourceFiles()
    .some(
      ({ fileName, text }) =>
        isInstalledFile(fileName) && text.includes(PACKAGE_NAME) && !isInstalledOrLinkedPackageFile(fileName, program),
    ),
);

/** Whether each file of a program may see checkpoint-fencing's types, once known. */
const reachByFile = perProgram<ts.SourceFile, boolean>();

/**
 * Whether checkpoint-fencing's types may be seen in `sourceFile`: it spells the package's name, or imports or
 * re-exports from a file that may, following the project's files and stopping at installed packages' files that
 * cannot lead there ({@link isOutOfReachLibraryFile}; ADR 0312). Only such a file can hold a class or a literal typed
 * as a storage. A file whose imports all lead elsewhere answers for every file it reaches, so each file of a
 * project is read about once.
 */
export function fileMayReachPackage(sourceFile: ts.SourceFile, program: ts.Program): boolean {
  const known = reachByFile(program);
  const answer = known.get(sourceFile);
  if (answer !== undefined) {
    return answer;
  }
  const reached = new Set([sourceFile]);
  for (const file of reached) {
    if (known.get(file) === true || file.text.includes(PACKAGE_NAME) || UNFOLLOWED_REFERENCE.test(file.text)) {
      return remember(known, sourceFile, true);
    }
    // The module names of the file's top-level imports, re-exports and `import x = require(…)`.
    for (const specifier of file.statements.flatMap((statement) => writtenModuleName(statement) ?? [])) {
      const imported = importedFiles(specifier, program);
      if (imported === 'may-reach') {
        return remember(known, sourceFile, true);
      }
      imported.filter((next) => known.get(next) !== false).forEach((next) => reached.add(next));
    }
  }
  reached.forEach((file) => known.set(file, false));
  return false;
}

/**
 * The project files a module name leads to, to follow; none for a module only installed files that cannot lead to
 * checkpoint-fencing declare, or one that does not resolve (its names are `any`); `may-reach` for any other installed
 * file, or checkpoint-fencing's own.
 */
function importedFiles(specifier: ts.Expression, program: ts.Program): ts.SourceFile[] | 'may-reach' {
  const files = moduleFiles(specifier, program.getTypeChecker()).filter(
    (file) => !isOutOfReachLibraryFile(file, program),
  );
  return files.some((file) => isInstalledFile(file.fileName) || isInstalledOrLinkedPackageFile(file.fileName, program))
    ? 'may-reach'
    : files;
}
