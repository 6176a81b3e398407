import { existsSync, readFileSync } from 'node:fs';
import { remember } from './remembered-answer.js';
import { dirname, join } from 'node:path';
import type * as ts from 'typescript';
import { PACKAGE_NAME, type StorageMemberName } from '../../vocabulary/index.js';
import type { ContractName } from './storage-declarations.js';

// Type-aware recognition of storages. Only TypeScript's types are imported here: the checker comes with the program
// typescript-eslint built, so loading the plugin for syntactic lint never loads the compiler.

const STORAGE: ContractName = 'CheckpointStorage';
const SAVE: StorageMemberName = 'save';
const WRITE_VERSION: StorageMemberName = 'writeVersion';
/** TypeScript's name for the symbol of an object literal's type (`ts.InternalSymbolName.Object`). */
const OBJECT_LITERAL_SYMBOL = '__object';

/**
 * Whether `type` is, extends or implements checkpoint-fencing's `contract` (a project's own interface of that name is
 * not it), or is the type of an object literal written as one (`{ ... } satisfies CheckpointStorage` returned by a
 * factory); for a union, every non-nullish member must be one, for an intersection (`CheckpointStorage & Closeable`)
 * one member suffices, and `Readonly<>` of one is one.
 */
export function isContractType(type: ts.Type, checker: ts.TypeChecker, contract: ContractName): boolean {
  // Only a union has nullish parts to drop. For a class's own type, getNonNullableType resolves every member, base
  // classes' included, to learn that it is not nullish: in a profile of the lint bench, 14.5 of the 16 ms the rules
  // spent in the checker, work no other rule needed.
  const present = type.isUnion() ? checker.getNonNullableType(type) : type;
  const parts = present.isUnion() ? present.types : [present];
  return parts.length > 0 && parts.every((part) => isOrInheritsContract(part, contract, checker));
}

const answersByType = new WeakMap<ts.Type, Map<ContractName, boolean>>();

/**
 * {@link namesOrInheritsContract} from a fresh start, answered once per type: the same receiver's type is asked
 * about at each of its saves, a storage class's at each rule that looks at it.
 */
function isOrInheritsContract(type: ts.Type, contract: ContractName, checker: ts.TypeChecker): boolean {
  const answers = answersByType.get(type) ?? remember(answersByType, type, new Map());
  return (
    answers.get(contract) ?? remember(answers, contract, namesOrInheritsContract(type, contract, checker, new Set()))
  );
}

/** {@link isContractType} for `CheckpointStorage`. */
export function isCheckpointStorageType(type: ts.Type, checker: ts.TypeChecker): boolean {
  return isContractType(type, checker, STORAGE);
}

/** `ts.SymbolFlags.Alias`, spelled out: it is a value of the compiler, which plugin code does not load (ADR 0304). */
const ALIAS_SYMBOL_FLAG = 1 << 21;

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
  if (declarations.some((declaration) => isInstalledOrLinkedPackageFile(declaration.getSourceFile().fileName))) {
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
export function writtenModuleName(node: ts.Node): ts.Expression | undefined {
  const { moduleSpecifier } = node as Partial<ts.ImportDeclaration>;
  const { moduleReference } = node as Partial<ts.ImportEqualsDeclaration>;
  return moduleSpecifier ?? (moduleReference as Partial<ts.ExternalModuleReference> | undefined)?.expression;
}

/**
 * The files that declare the module a module name resolves to: a source file, or the files of an ambient
 * `declare module`. Resolving a module name reads what the program already resolved, not what the module exports.
 */
export function moduleFiles(specifier: ts.Expression, checker: ts.TypeChecker): ts.SourceFile[] {
  return (checker.getSymbolAtLocation(specifier)?.getDeclarations() ?? []).map((declaration) =>
    declaration.getSourceFile(),
  );
}

/** Whether the class `type` is an instance of extends checkpoint-fencing's class `className`, directly or further up. */
export function extendsRuntimeClass(type: ts.Type, checker: ts.TypeChecker, className: string): boolean {
  const seen = new Set<ts.Type>();
  for (let current = type; current.isClassOrInterface() && !seen.has(current);) {
    seen.add(current);
    const base = checker.getBaseTypes(current)[0];
    if (base === undefined) {
      return false;
    }
    const symbol = base.getSymbol();
    if (symbol !== undefined && isRuntimeSymbol(symbol, className)) {
      return true;
    }
    current = base;
  }
  return false;
}

function namesOrInheritsContract(
  type: ts.Type,
  contract: ContractName,
  checker: ts.TypeChecker,
  seen: Set<ts.Type>,
): boolean {
  if (seen.has(type)) {
    return false;
  }
  seen.add(type);
  if (type.isIntersection()) {
    return type.types.some((member) => namesOrInheritsContract(member, contract, checker, seen));
  }
  const readonlyOf = readonlyArgument(type);
  if (readonlyOf !== undefined) {
    return namesOrInheritsContract(readonlyOf, contract, checker, seen);
  }
  const symbol = type.aliasSymbol ?? type.getSymbol();
  if (symbol === undefined) {
    return false;
  }
  if (isRuntimeSymbol(symbol, contract) || isObjectLiteralWrittenAs(symbol, contract, checker, seen)) {
    return true;
  }
  const inherited = [
    ...(type.isClassOrInterface() ? checker.getBaseTypes(type) : []),
    ...implementedTypes(symbol, checker),
  ];
  return inherited.some((base) => namesOrInheritsContract(base, contract, checker, seen));
}

/** `T` of TypeScript's `Readonly<T>` (declared in its `lib.*.d.ts`), which keeps every member of `T`. */
function readonlyArgument(type: ts.Type): ts.Type | undefined {
  const alias = type.aliasSymbol;
  const fromLib =
    alias?.getName() === 'Readonly' &&
    (alias.getDeclarations() ?? []).some((declaration) => isTypeScriptLibFile(declaration.getSourceFile()));
  return fromLib ? type.aliasTypeArguments?.[0] : undefined;
}

/** A default library file: the checker does not say, and `hasNoDefaultLib` is not set on every lib file. */
function isTypeScriptLibFile(sourceFile: ts.SourceFile): boolean {
  return sourceFile.isDeclarationFile && /[\\/]lib\.[\w.]+\.d\.ts$/u.test(sourceFile.fileName);
}

function isRuntimeSymbol(symbol: ts.Symbol, name: string): boolean {
  return (
    symbol.getName() === name &&
    (symbol.getDeclarations() ?? []).some((declaration) => isPackageFile(declaration.getSourceFile().fileName))
  );
}

/**
 * Whether any file of `program` belongs to checkpoint-fencing. A program without one has no type {@link isContractType}
 * can say yes to, so nothing in it is a storage by type. Answered once a program.
 */
export function programIncludesPackage(program: ts.Program): boolean {
  return (
    packageInProgram.get(program) ??
    remember(
      packageInProgram,
      program,
      program.getSourceFiles().some((sourceFile) => isInstalledOrLinkedPackageFile(sourceFile.fileName)),
    )
  );
}

const packageInProgram = new WeakMap<ts.Program, boolean>();

/**
 * A file under `node_modules` belongs to the package installed in the folder after the last `node_modules`, so only
 * checkpoint-fencing's can hold its files; the test spares reading the package.json of every folder of a program's
 * declarations (2,400 files in a NestJS app, 38 ms). Files elsewhere (the project's, a linked or `paths`-mapped
 * checkpoint-fencing) are asked about their package.json. TypeScript writes file names with `/`.
 */
export function isInstalledOrLinkedPackageFile(file: string): boolean {
  const installed = file.lastIndexOf(NODE_MODULES);
  return (
    (installed === -1 || file.startsWith(`${PACKAGE_NAME}/`, installed + NODE_MODULES.length)) && isPackageFile(file)
  );
}

const NODE_MODULES = '/node_modules/';
const packageNameByFolder = new Map<string, string | undefined>();

/** Whether `file` belongs to checkpoint-fencing: the nearest package.json names it (installed, linked or its repo). */
function isPackageFile(file: string): boolean {
  return nearestPackageName(dirname(file)) === PACKAGE_NAME;
}

/**
 * The name in the nearest package.json at or above `folder` that has one. A package.json without a name only marks a
 * module format, as the runtime's dist/cjs/package.json does, and does not end the search.
 */
function nearestPackageName(folder: string): string | undefined {
  if (packageNameByFolder.has(folder)) {
    return packageNameByFolder.get(folder);
  }
  const manifest = join(folder, 'package.json');
  let name: string | undefined;
  if (existsSync(manifest)) {
    const parsed = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown };
    name = typeof parsed.name === 'string' ? parsed.name : undefined;
  }
  if (name === undefined && dirname(folder) !== folder) {
    name = nearestPackageName(dirname(folder));
  }
  packageNameByFolder.set(folder, name);
  return name;
}

/** The type a literal was written against (`satisfies`, an annotation, a typed return) is its contextual type. */
function isObjectLiteralWrittenAs(
  symbol: ts.Symbol,
  contract: ContractName,
  checker: ts.TypeChecker,
  seen: Set<ts.Type>,
): boolean {
  if (symbol.getName() !== OBJECT_LITERAL_SYMBOL) {
    return false;
  }
  return (symbol.getDeclarations() ?? []).some((declaration) => {
    // An object literal's type symbol is declared by the literal expression itself.
    const contextual = checker.getContextualType(declaration as unknown as ts.Expression);
    return contextual !== undefined && namesOrInheritsContract(contextual, contract, checker, seen);
  });
}

function implementedTypes(symbol: ts.Symbol, checker: ts.TypeChecker): ts.Type[] {
  return (symbol.getDeclarations() ?? []).flatMap((declaration) => [
    ...('heritageClauses' in declaration && Array.isArray(declaration.heritageClauses)
      ? (declaration.heritageClauses as readonly ts.HeritageClause[]).flatMap((clause) =>
          clause.types.map((heritage) => checker.getTypeAtLocation(heritage)),
        )
      : []),
    ...jsDocImplementsTags(declaration).map((tag) => checker.getTypeAtLocation(tag.class)),
  ]);
}

/**
 * The JSDoc `@implements {T}` tags of a JavaScript class, which TypeScript checks the class against but does not
 * count among its heritage clauses.
 */
export function jsDocImplementsTags(declaration: ts.Node): ts.JSDocImplementsTag[] {
  // TypeScript keeps a declaration's parsed JSDoc on the node; its getJSDocImplementsTags() reads the same property,
  // but is a value of the compiler, which plugin code must not load (ADR 0304).
  const { jsDoc } = declaration as { readonly jsDoc?: readonly ts.JSDoc[] };
  return (jsDoc ?? [])
    .flatMap((comment) => comment.tags ?? [])
    .filter((tag): tag is ts.JSDocImplementsTag => tag.tagName.text === 'implements' && 'class' in tag);
}

/** What a storage class gets from its base classes, as the type checker sees them. */
export interface InheritedMembers {
  /** A `save` inherited from a base class that is not itself a storage (a storage base is reported on its own). */
  readonly save:
    { readonly from: string; readonly parameterCount: number; readonly acceptsCondition: boolean } | undefined;
  /** It has or inherits `writeVersion`, or extends a storage class, where a missing one is reported instead. */
  readonly writeVersionCovered: boolean;
  /**
   * A base class cannot be seen into, as for the upgrade: it did not resolve, or it is a library's declaration.
   * Then nothing is said about what it may provide.
   */
  readonly unseenBase: boolean;
}

/** What `classNode`'s instance type inherits, for the checks a storage's own members cannot settle. */
export function inheritedMembers(classNode: ts.ClassLikeDeclaration, checker: ts.TypeChecker): InheritedMembers {
  const instance = checker.getTypeAtLocation(classNode);
  const bases: ts.Type[] = [];
  let current = instance;
  for (;;) {
    const base: ts.Type | undefined = current.isClassOrInterface() ? checker.getBaseTypes(current)[0] : undefined;
    if (base === undefined || bases.includes(base)) {
      break;
    }
    bases.push(base);
    current = base;
  }
  const unseenBase = bases.some(
    (base) =>
      checker.typeToString(base) === 'any' ||
      (base.getSymbol()?.getDeclarations() ?? []).some((declaration) => isLibraryFile(declaration.getSourceFile())),
  );
  const storageBase = bases.some((base) => isCheckpointStorageType(base, checker));
  return {
    save: inheritedSave(instance.getProperty(SAVE), classNode, checker),
    writeVersionCovered: instance.getProperty(WRITE_VERSION) !== undefined || storageBase,
    unseenBase,
  };
}

/**
 * Whether nothing `sourceFile` declares can lead to checkpoint-fencing, however far its heritage goes: it is an
 * installed package's file, not checkpoint-fencing's, and no installed package's file in the program but
 * checkpoint-fencing's mentions checkpoint-fencing. A package reaches it only through a file that imports it by name,
 * and the program holds every declaration file an import leads to. Where one does (an adapter package), installed
 * files are followed as the project's are.
 */
export function isOutOfReachLibraryFile(sourceFile: ts.SourceFile, program: ts.Program): boolean {
  return (
    isInstalledFile(sourceFile.fileName) &&
    !isInstalledOrLinkedPackageFile(sourceFile.fileName) &&
    !librariesMentionPackage(program)
  );
}

/**
 * Whether a file of `program` under `node_modules` mentions checkpoint-fencing, outside its own folder. Answered once
 * a program, and once a file: the project service's programs share their declaration files.
 */
function librariesMentionPackage(program: ts.Program): boolean {
  return (
    mentionedInProgram.get(program) ??
    remember(mentionedInProgram, program, program.getSourceFiles().some(libraryFileMentionsPackage))
  );
}

const mentionedInProgram = new WeakMap<ts.Program, boolean>();

function libraryFileMentionsPackage(sourceFile: ts.SourceFile): boolean {
  const { fileName, text } = sourceFile;
  return (
    mentionedInFile.get(sourceFile) ??
    remember(
      mentionedInFile,
      sourceFile,
      isInstalledFile(fileName) && text.includes(PACKAGE_NAME) && !isInstalledOrLinkedPackageFile(fileName),
    )
  );
}

const mentionedInFile = new WeakMap<ts.SourceFile, boolean>();

/** Whether `file` lies under a `node_modules` folder (TypeScript writes file names with `/`). */
export function isInstalledFile(file: string): boolean {
  return file.includes(NODE_MODULES);
}

function isLibraryFile(sourceFile: ts.SourceFile): boolean {
  return sourceFile.isDeclarationFile || isInstalledFile(sourceFile.fileName);
}

function inheritedSave(
  save: ts.Symbol | undefined,
  classNode: ts.ClassLikeDeclaration,
  checker: ts.TypeChecker,
): InheritedMembers['save'] {
  const declaration = save?.getDeclarations()?.[0];
  const owner = declaration?.parent;
  if (save === undefined || owner === undefined || owner === classNode) {
    return undefined;
  }
  if (isCheckpointStorageType(checker.getTypeAtLocation(owner), checker)) {
    return undefined;
  }
  const [signature] = checker.getTypeOfSymbolAtLocation(save, classNode).getCallSignatures();
  const parameters = signature?.getParameters() ?? [];
  const last = parameters.at(-1)?.valueDeclaration as { readonly dotDotDotToken?: unknown } | undefined;
  const name = (owner as { readonly name?: { getText(): string } }).name?.getText() ?? 'its base class';
  return {
    from: name,
    parameterCount: parameters.length,
    acceptsCondition: parameters.length >= 3 || last?.dotDotDotToken !== undefined,
  };
}
