import type { ts as Typescript } from 'ts-morph';
import { PACKAGE_NAME, type RuntimeExportName } from '../../vocabulary/index.js';
import { extendsExpression } from './resolve-storage-by-name.js';
import type { BaseClass, StorageResolver } from './storage-resolver.js';
import { ts } from './typescript.js';
import { upgradeMessages } from './upgrade-messages.js';

const STORAGE: RuntimeExportName = 'CheckpointStorage';

/**
 * Resolves through the type checker: aliases, namespace imports, barrels, type aliases and interfaces anywhere in the
 * program that derive from `CheckpointStorage`, base classes in other files, and object literals typed by where they
 * are used. "The" `CheckpointStorage` is the interface the `checkpoint-fencing` imports of `files` resolve to, so a
 * project's own interface of that name is never taken for it.
 */
export class StorageResolverBySymbol implements StorageResolver {
  readonly #checker: Typescript.TypeChecker;
  readonly #storageDeclarations: ReadonlySet<Typescript.Declaration>;
  readonly #known = new Map<Typescript.Type, boolean>();

  /** @throws Error naming the file when one of `files` imports checkpoint-fencing but the import does not resolve. */
  constructor(checker: Typescript.TypeChecker, files: readonly Typescript.SourceFile[]) {
    this.#checker = checker;
    this.#storageDeclarations = storageDeclarations(checker, files);
  }

  isStorageType(node: Typescript.TypeNode | Typescript.ExpressionWithTypeArguments): boolean {
    return this.#isStorage(this.#checker.getTypeAtLocation(node));
  }

  isContextuallyStorage(literal: Typescript.ObjectLiteralExpression): boolean {
    const contextual = this.#checker.getContextualType(literal);
    return contextual !== undefined && this.#isStorage(contextual);
  }

  baseClassOf(declaration: Typescript.ClassLikeDeclaration): BaseClass {
    const expression = extendsExpression(declaration);
    if (expression === undefined) {
      return { kind: 'none' };
    }
    let symbol = this.#checker.getSymbolAtLocation(expression);
    if (symbol !== undefined && (symbol.flags & ts.SymbolFlags.Alias) !== 0) {
      symbol = this.#checker.getAliasedSymbol(symbol);
    }
    const visible = (symbol?.getDeclarations() ?? []).flatMap((candidate) => {
      if (ts.isClassDeclaration(candidate) || ts.isClassExpression(candidate)) {
        return [candidate];
      }
      const initializer = ts.isVariableDeclaration(candidate) ? candidate.initializer : undefined;
      return initializer !== undefined && ts.isClassExpression(initializer) ? [initializer] : [];
    })[0];
    return visible === undefined
      ? { kind: 'unknown', name: expression.getText() }
      : { kind: 'visible', declaration: visible };
  }

  /** For a union, every member but `null` and `undefined` must be a storage. */
  #isStorage(type: Typescript.Type): boolean {
    const present = this.#checker.getNonNullableType(type);
    const parts = present.isUnion() ? present.types : [present];
    return parts.length > 0 && parts.every((part) => this.#namesOrDerives(part));
  }

  #namesOrDerives(type: Typescript.Type): boolean {
    const target = (type as Partial<Typescript.TypeReference>).target ?? type;
    const known = this.#known.get(target);
    if (known !== undefined) {
      return known;
    }
    this.#known.set(target, false);
    const symbol = target.getSymbol();
    const result =
      (symbol?.getDeclarations() ?? []).some((declaration) => this.#storageDeclarations.has(declaration)) ||
      this.#inherited(target, symbol).some((base) => this.#namesOrDerives(base));
    this.#known.set(target, result);
    return result;
  }

  /** Extended interfaces and base classes, and the interfaces a class implements. */
  #inherited(type: Typescript.Type, symbol: Typescript.Symbol | undefined): Typescript.Type[] {
    const bases = type.isClassOrInterface() ? [...this.#checker.getBaseTypes(type)] : [];
    for (const declaration of symbol?.getDeclarations() ?? []) {
      if (ts.isClassLike(declaration)) {
        for (const clause of declaration.heritageClauses ?? []) {
          if (clause.token === ts.SyntaxKind.ImplementsKeyword) {
            bases.push(...clause.types.map((heritage) => this.#checker.getTypeAtLocation(heritage)));
          }
        }
      }
    }
    return bases;
  }
}

/** The declarations of `CheckpointStorage` that the `checkpoint-fencing` imports and re-exports in `files` resolve to. */
function storageDeclarations(
  checker: Typescript.TypeChecker,
  files: readonly Typescript.SourceFile[],
): Set<Typescript.Declaration> {
  const found = new Set<Typescript.Declaration>();
  for (const file of files) {
    for (const statement of file.statements) {
      const specifier =
        ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)
          ? statement.moduleSpecifier
          : ts.isImportEqualsDeclaration(statement) && ts.isExternalModuleReference(statement.moduleReference)
            ? statement.moduleReference.expression
            : undefined;
      if (specifier === undefined || !ts.isStringLiteralLike(specifier) || specifier.text !== PACKAGE_NAME) {
        continue;
      }
      const module = checker.getSymbolAtLocation(specifier);
      if (module === undefined) {
        throw new Error(upgradeMessages.packageUnresolvable(file.fileName));
      }
      let exported = checker.getExportsOfModule(module).find((symbol) => symbol.getName() === STORAGE);
      if (exported !== undefined && (exported.flags & ts.SymbolFlags.Alias) !== 0) {
        exported = checker.getAliasedSymbol(exported);
      }
      for (const declaration of exported?.getDeclarations() ?? []) {
        found.add(declaration);
      }
    }
  }
  return found;
}
