import type { ts as Typescript } from 'ts-morph';
import { ts } from './typescript.js';
import type { RuntimeExportName } from '../../vocabulary/index.js';
import { baseClass, isStorageTypeNode, type BaseClass, type StorageResolver } from './storage-resolver.js';

const STORAGE: RuntimeExportName = 'CheckpointStorage';

/**
 * Resolves through the type checker: aliases, namespace imports, barrels, type aliases and interfaces anywhere in the
 * program that derive from `CheckpointStorage`, base classes in other files, and object literals typed by where they
 * are used. "The" `CheckpointStorage` is the one exported by `entries`, the files `checkpoint-fencing` resolved to
 * (from an import, a `require`, a JSDoc `import(…)` type, in any file of the program), so a project's own interface
 * of that name is never taken for it.
 */
export class StorageResolverBySymbol implements StorageResolver {
  readonly #checker: Typescript.TypeChecker;
  readonly #storageDeclarations: ReadonlySet<Typescript.Declaration>;
  readonly #known = new Map<Typescript.Type, boolean>();

  constructor(checker: Typescript.TypeChecker, entries: readonly Typescript.SourceFile[]) {
    this.#checker = checker;
    this.#storageDeclarations = new Set(
      entries.flatMap((entry) => {
        const module = checker.getSymbolAtLocation(entry);
        const exported = module && checker.tryGetMemberInModuleExports(STORAGE, module);
        return this.#unaliased(exported)?.getDeclarations() ?? [];
      }),
    );
  }

  isStorageType(node: Typescript.TypeNode | Typescript.ExpressionWithTypeArguments): boolean {
    return isStorageTypeNode(node, (named) => this.#isStorage(this.#checker.getTypeAtLocation(named)));
  }

  isContextuallyStorage(literal: Typescript.ObjectLiteralExpression): boolean {
    const contextual = this.#checker.getContextualType(literal);
    return contextual !== undefined && this.#isStorage(contextual);
  }

  baseClassOf(declaration: Typescript.ClassLikeDeclaration): BaseClass {
    const declared = (expression: Typescript.Expression) =>
      this.#unaliased(this.#checker.getSymbolAtLocation(expression))
        ?.getDeclarations()
        ?.flatMap((candidate) => {
          const initializer = ts.isVariableDeclaration(candidate) ? candidate.initializer : candidate;
          return initializer !== undefined && ts.isClassLike(initializer) ? [initializer] : [];
        })[0];
    return baseClass(declaration, declared, 'another-package');
  }

  #unaliased(symbol: Typescript.Symbol | undefined): Typescript.Symbol | undefined {
    return symbol !== undefined && (symbol.flags & ts.SymbolFlags.Alias) !== 0
      ? this.#checker.getAliasedSymbol(symbol)
      : symbol;
  }

  /** For a union, every member but `null` and `undefined` must be a storage; for an intersection, one member. */
  #isStorage(type: Typescript.Type): boolean {
    const present = this.#checker.getNonNullableType(type);
    if (present.isIntersection()) {
      return present.types.some((part) => this.#isStorage(part));
    }
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
