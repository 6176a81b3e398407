import type { ts as Typescript } from 'ts-morph';
import { ts } from './typescript.js';
import type { RuntimeExportName } from '../../vocabulary/index.js';
import type { BaseClass } from './upgrade-data.js';

/** Every JSDoc comment on `node`: a `@typedef` has its own, and `getJSDocCommentsAndTags` returns only the last. */
export function jsDocComments(node: Typescript.Node): readonly Typescript.JSDoc[] {
  return (node as { readonly jsDoc?: readonly Typescript.JSDoc[] }).jsDoc ?? [];
}

/** Whether `sourceFile` is JavaScript, where JSDoc tags carry what TypeScript writes as syntax. */
export function isJavaScriptFile(sourceFile: Typescript.SourceFile): boolean {
  return /\.[mc]?jsx?$/.test(sourceFile.fileName);
}

/** The expression after `extends` in a class's heritage clauses. */
export function extendsExpression(declaration: Typescript.ClassLikeDeclaration): Typescript.Expression | undefined {
  const clause = declaration.heritageClauses?.find((candidate) => candidate.token === ts.SyntaxKind.ExtendsKeyword);
  return clause?.types[0]?.expression;
}

/** What `node` binds when it imports a module: `import`, JSDoc `@import`, `import x = require(…)`; else `undefined`. */
export function importBindings(node: Typescript.Node) {
  if (ts.isImportEqualsDeclaration(node)) {
    const { moduleReference: reference, name, isTypeOnly: typeOnly } = node;
    const literal = ts.isExternalModuleReference(reference) ? reference.expression : undefined;
    return literal && ts.isStringLiteral(literal)
      ? { specifier: literal.text, typeOnly, defaultName: undefined, namespace: name.text, named: [] as const }
      : undefined;
  }
  if (!(ts.isImportDeclaration(node) || ts.isJSDocImportTag(node)) || !ts.isStringLiteral(node.moduleSpecifier)) {
    return undefined;
  }
  const { name, namedBindings: bindings, phaseModifier } = node.importClause ?? {};
  return {
    specifier: node.moduleSpecifier.text,
    typeOnly: phaseModifier === ts.SyntaxKind.TypeKeyword,
    defaultName: name?.text,
    namespace: bindings !== undefined && ts.isNamespaceImport(bindings) ? bindings.name.text : undefined,
    named: (bindings !== undefined && ts.isNamedImports(bindings) ? bindings.elements : []).map((element) => ({
      imported: (element.propertyName ?? element.name).text,
      local: element.name.text,
      typeOnly: element.isTypeOnly,
    })),
  };
}

const STORAGE: RuntimeExportName = 'CheckpointStorage';

/**
 * What the fact reader cannot answer from one file's syntax (doc/adr/0204), answered by a type checker: aliases,
 * barrels, interfaces derived from `CheckpointStorage`, base classes, literals typed by use. "The" `CheckpointStorage`
 * is the one `entries` export, so a project's own interface of that name is never taken for it.
 */
export class StorageResolver {
  readonly #storageDeclarations: ReadonlySet<Typescript.Declaration>;
  readonly #known = new Map<Typescript.Type, boolean>();

  constructor(
    private readonly checker: Typescript.TypeChecker,
    entries: readonly Typescript.SourceFile[],
    private readonly unseenBase: 'another-file' | 'another-package',
  ) {
    this.#storageDeclarations = new Set(
      entries.flatMap((entry) => {
        const module = checker.getSymbolAtLocation(entry);
        const exported = module && checker.tryGetMemberInModuleExports(STORAGE, module);
        return this.#unaliased(exported)?.getDeclarations() ?? [];
      }),
    );
  }

  /**
   * Whether a type is `CheckpointStorage` or derived from it, with `null`/`undefined` or not; `(T)`, JSDoc `?T` and
   * `!T`, `Readonly<T>` and `Required<T>` are read through syntactically: there is no lib.
   */
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
    return this.#isStorage(this.checker.getTypeAtLocation(node));
  }

  /** Whether an object literal with no declared type is a storage by where it stands (an argument, a property). */
  isContextuallyStorage(literal: Typescript.ObjectLiteralExpression): boolean {
    const contextual = this.checker.getContextualType(literal);
    return contextual !== undefined && this.#isStorage(contextual);
  }

  /** The class `declaration` extends, as far as the program shows it. */
  baseClassOf(declaration: Typescript.ClassLikeDeclaration): BaseClass {
    const expression = extendsExpression(declaration);
    if (expression === undefined) {
      return { kind: 'none' };
    }
    const visible = this.#unaliased(this.checker.getSymbolAtLocation(expression))
      ?.getDeclarations()
      ?.map((candidate) => (ts.isVariableDeclaration(candidate) ? candidate.initializer : candidate))
      .filter((candidate) => candidate !== undefined)
      .find(ts.isClassLike);
    return visible === undefined
      ? { kind: 'unknown', name: expression.getText(), where: this.unseenBase }
      : { kind: 'visible', declaration: visible };
  }

  #unaliased(symbol: Typescript.Symbol | undefined): Typescript.Symbol | undefined {
    return symbol !== undefined && (symbol.flags & ts.SymbolFlags.Alias) !== 0
      ? this.checker.getAliasedSymbol(symbol)
      : symbol;
  }

  /** For a union (`null` and `undefined` aside), every member must be a storage; for an intersection, one member. */
  #isStorage(type: Typescript.Type): boolean {
    const present = this.checker.getNonNullableType(type);
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
    const implemented = (symbol?.getDeclarations() ?? [])
      .flatMap((declaration) => (ts.isClassLike(declaration) ? (declaration.heritageClauses ?? []) : []))
      .filter((clause) => clause.token === ts.SyntaxKind.ImplementsKeyword)
      .flatMap((clause) => clause.types.map((heritage) => this.checker.getTypeAtLocation(heritage)));
    return [...(type.isClassOrInterface() ? this.checker.getBaseTypes(type) : []), ...implemented];
  }
}
