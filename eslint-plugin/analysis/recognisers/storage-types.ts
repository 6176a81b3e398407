import type * as ts from 'typescript';
import type { StorageMemberName } from '../../../vocabulary/index.js';
import { perProgram, remember } from '../memo.js';
import { isLibraryFile, isPackageFile } from '../package-files.js';
import { jsDocImplementsTags } from '../type-information.js';
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
export function isContractType(type: ts.Type, program: ts.Program, contract: ContractName): boolean {
  const checker = program.getTypeChecker();
  // Only a union has nullish parts to drop. For a class's own type, getNonNullableType resolves every member, base
  // classes' included, to learn that it is not nullish: in a profile of the lint bench, 14.5 of the 16 ms the rules
  // spent in the checker, work no other rule needed.
  const present = type.isUnion() ? checker.getNonNullableType(type) : type;
  const parts = present.isUnion() ? present.types : [present];
  return parts.length > 0 && parts.every((part) => isOrInheritsContract(part, contract, program));
}

/** Which types of a program are, extend or implement each contract. */
const contractTypes: Readonly<Record<ContractName, (program: ts.Program) => Map<ts.Type, boolean>>> = {
  CheckpointStorage: perProgram(),
  DualAnchorCheckpointStore: perProgram(),
};

/**
 * {@link namesOrInheritsContract} from a fresh start, answered once per type: the same receiver's type is asked
 * about at each of its saves, a storage class's at each rule that looks at it.
 */
function isOrInheritsContract(type: ts.Type, contract: ContractName, program: ts.Program): boolean {
  const answers = contractTypes[contract](program);
  return answers.get(type) ?? remember(answers, type, namesOrInheritsContract(type, contract, program, new Set()));
}

/** {@link isContractType} for `CheckpointStorage`. */
export function isCheckpointStorageType(type: ts.Type, program: ts.Program): boolean {
  return isContractType(type, program, STORAGE);
}

/** Whether the class `type` is an instance of extends checkpoint-fencing's class `className`, directly or further up. */
export function extendsRuntimeClass(type: ts.Type, program: ts.Program, className: string): boolean {
  const checker = program.getTypeChecker();
  const seen = new Set<ts.Type>();
  for (let current = type; current.isClassOrInterface() && !seen.has(current);) {
    seen.add(current);
    const base = checker.getBaseTypes(current)[0];
    if (base === undefined) {
      return false;
    }
    const symbol = base.getSymbol();
    if (symbol !== undefined && isRuntimeSymbol(symbol, className, program)) {
      return true;
    }
    current = base;
  }
  return false;
}

function namesOrInheritsContract(
  type: ts.Type,
  contract: ContractName,
  program: ts.Program,
  seen: Set<ts.Type>,
): boolean {
  const checker = program.getTypeChecker();
  if (seen.has(type)) {
    return false;
  }
  seen.add(type);
  if (type.isIntersection()) {
    return type.types.some((member) => namesOrInheritsContract(member, contract, program, seen));
  }
  const readonlyOf = readonlyArgument(type);
  if (readonlyOf !== undefined) {
    return namesOrInheritsContract(readonlyOf, contract, program, seen);
  }
  const symbol = type.aliasSymbol ?? type.getSymbol();
  if (symbol === undefined) {
    return false;
  }
  if (isRuntimeSymbol(symbol, contract, program) || isObjectLiteralWrittenAs(symbol, contract, program, seen)) {
    return true;
  }
  const inherited = [
    ...(type.isClassOrInterface() ? checker.getBaseTypes(type) : []),
    ...implementedTypes(symbol, checker),
  ];
  return inherited.some((base) => namesOrInheritsContract(base, contract, program, seen));
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

function isRuntimeSymbol(symbol: ts.Symbol, name: string, program: ts.Program): boolean {
  return (
    symbol.getName() === name &&
    (symbol.getDeclarations() ?? []).some((declaration) => isPackageFile(declaration.getSourceFile().fileName, program))
  );
}

/** The type a literal was written against (`satisfies`, an annotation, a typed return) is its contextual type. */
function isObjectLiteralWrittenAs(
  symbol: ts.Symbol,
  contract: ContractName,
  program: ts.Program,
  seen: Set<ts.Type>,
): boolean {
  if (symbol.getName() !== OBJECT_LITERAL_SYMBOL) {
    return false;
  }
  return (symbol.getDeclarations() ?? []).some((declaration) => {
    // An object literal's type symbol is declared by the literal expression itself.
    const contextual = program.getTypeChecker().getContextualType(declaration as unknown as ts.Expression);
    return contextual !== undefined && namesOrInheritsContract(contextual, contract, program, seen);
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
export function inheritedMembers(classNode: ts.ClassLikeDeclaration, program: ts.Program): InheritedMembers {
  const checker = program.getTypeChecker();
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
  const storageBase = bases.some((base) => isCheckpointStorageType(base, program));
  return {
    save: inheritedSave(instance.getProperty(SAVE), classNode, program),
    writeVersionCovered: instance.getProperty(WRITE_VERSION) !== undefined || storageBase,
    unseenBase,
  };
}

function inheritedSave(
  save: ts.Symbol | undefined,
  classNode: ts.ClassLikeDeclaration,
  program: ts.Program,
): InheritedMembers['save'] {
  const checker = program.getTypeChecker();
  const declaration = save?.getDeclarations()?.[0];
  const owner = declaration?.parent;
  if (save === undefined || owner === undefined || owner === classNode) {
    return undefined;
  }
  if (isCheckpointStorageType(checker.getTypeAtLocation(owner), program)) {
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
