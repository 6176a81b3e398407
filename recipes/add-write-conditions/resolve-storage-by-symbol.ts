import type { ts as Typescript } from 'ts-morph';
import { ts } from './typescript.js';
import type { RuntimeExportName } from '../../vocabulary/index.js';
import { extendsExpression, type BaseClass, type StorageResolver } from './storage-resolver.js';

const STORAGE: RuntimeExportName = 'CheckpointStorage';

/**
 * Resolves through the type checker: aliases, namespace imports, barrels, type aliases and interfaces anywhere in the
 * program that derive from `CheckpointStorage`, base classes, and object literals typed by where they are used. "The" `CheckpointStorage` is the one exported by `entries`, the files `checkpoint-fencing` resolved to
 * (from an import, a `require`, a JSDoc `import(…)` type, in any file of the program), so a project's own interface
 * of that name is never taken for it.
 */
export class StorageResolverBySymbol implements StorageResolver {
  readonly #checker: Typescript.TypeChecker;
  readonly #storageDeclarations: ReadonlySet<Typescript.Declaration>;
  readonly #known = new Map<Typescript.Type, boolean>();
  readonly #unseenBase: 'another-file' | 'another-package';

  constructor(
    checker: Typescript.TypeChecker,
    entries: readonly Typescript.SourceFile[],
    unseenBase: 'another-file' | 'another-package',
  ) {
    this.#checker = checker;
    this.#unseenBase = unseenBase;
    this.#storageDeclarations = new Set(
      entries.flatMap((entry) => {
        const module = checker.getSymbolAtLocation(entry);
        const exported = module && checker.tryGetMemberInModuleExports(STORAGE, module);
        return this.#unaliased(exported)?.getDeclarations() ?? [];
      }),
    );
  }

  /** Read through `(T)`, JSDoc `?T` and `!T`, and `Readonly<T>` and `Required<T>` syntactically: there is no lib. */
  isStorageType(node: Typescript.TypeNode | Typescript.ExpressionWithTypeArguments): boolean {
    const recurse = (inner: Typescript.TypeNode): boolean => this.isStorageType(inner);
    if (ts.isParenthesizedTypeNode(node) || ts.isJSDocNullableType(node) || ts.isJSDocNonNullableType(node)) {
      return recurse(node.type);
    }
    const [argument, ...others] = ts.isTypeReferenceNode(node) ? (node.typeArguments ?? []) : [];
    const name = ts.isTypeReferenceNode(node) && ts.isIdentifier(node.typeName) ? node.typeName.text : undefined;
    if ((name === 'Readonly' || name === 'Required') && argument !== undefined && others.length === 0) {
      return recurse(argument);
    }
    if (ts.isIntersectionTypeNode(node) || ts.isUnionTypeNode(node)) {
      const present = node.types.filter(
        (member) =>
          member.kind !== ts.SyntaxKind.UndefinedKeyword &&
          !(ts.isLiteralTypeNode(member) && member.literal.kind === ts.SyntaxKind.NullKeyword),
      );
      return ts.isIntersectionTypeNode(node) ? present.some(recurse) : present.length > 0 && present.every(recurse);
    }
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
    const visible = this.#unaliased(this.#checker.getSymbolAtLocation(expression))
      ?.getDeclarations()
      ?.flatMap((candidate) => {
        const initializer = ts.isVariableDeclaration(candidate) ? candidate.initializer : candidate;
        return initializer !== undefined && ts.isClassLike(initializer) ? [initializer] : [];
      })[0];
    return visible === undefined
      ? { kind: 'unknown', name: expression.getText(), where: this.#unseenBase }
      : { kind: 'visible', declaration: visible };
  }

  #unaliased(symbol: Typescript.Symbol | undefined): Typescript.Symbol | undefined {
    return symbol !== undefined && (symbol.flags & ts.SymbolFlags.Alias) !== 0
      ? this.#checker.getAliasedSymbol(symbol)
      : symbol;
  }

  /** For a union (`null` and `undefined` aside), every member must be a storage; for an intersection, one member. */
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
