import type { ts as Typescript } from 'ts-morph';
import { ts } from './typescript.js';

/** The class a class extends, as far as a resolver can see. */
export type BaseClass =
  | { readonly kind: 'none' }
  | { readonly kind: 'visible'; readonly declaration: Typescript.ClassLikeDeclaration }
  /** Declared where this resolver cannot look: another file (the by-name resolver), or an unresolved package. */
  | { readonly kind: 'unknown'; readonly name: string; readonly where: 'another-file' | 'another-package' };

/**
 * What the fact reader cannot answer from the syntax of one file (doc/adr/0204): answered by symbol (a type checker,
 * for the CLI) or by name (imports, same-file interfaces and JSDoc, for the jscodeshift transform).
 */
export interface StorageResolver {
  /** Whether a type is checkpoint-fencing's `CheckpointStorage`, one derived from it, or either with `null`/`undefined`. */
  isStorageType(node: Typescript.TypeNode | Typescript.ExpressionWithTypeArguments): boolean;
  /** Whether an object literal with no declared type is a storage by where it stands (an argument, a property). */
  isContextuallyStorage(literal: Typescript.ObjectLiteralExpression): boolean;
  baseClassOf(declaration: Typescript.ClassLikeDeclaration): BaseClass;
}

/**
 * Every JSDoc comment attached to `node`: a `@typedef` usually sits in a comment of its own above the class comment,
 * and the public `getJSDocCommentsAndTags` returns only the last. The parser's `jsDoc` array is what ts-morph reads too.
 */
export function jsDocComments(node: Typescript.Node): readonly Typescript.JSDoc[] {
  return (node as { readonly jsDoc?: readonly Typescript.JSDoc[] }).jsDoc ?? [];
}

/** Whether `sourceFile` is JavaScript, where JSDoc tags carry what TypeScript writes as syntax. */
export function isJavaScriptFile(sourceFile: Typescript.SourceFile): boolean {
  return /\.[mc]?jsx?$/.test(sourceFile.fileName);
}

/**
 * Whether a type node is a storage, given `isStorageName` for a named type (a reference, a heritage clause, an
 * `import(…)` type): through wrappers that keep members callable (`(T)`, JSDoc `?T` and `!T`, `Readonly<T>`,
 * `Required<T>`), read syntactically since the analysis program has no lib; a union when every member but `null` and
 * `undefined` is one; an intersection when one member is.
 */
export function isStorageTypeNode(
  node: Typescript.TypeNode | Typescript.ExpressionWithTypeArguments,
  isStorageName: (node: Typescript.TypeNode | Typescript.ExpressionWithTypeArguments) => boolean,
): boolean {
  const recurse = (inner: Typescript.TypeNode): boolean => isStorageTypeNode(inner, isStorageName);
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
  return isStorageName(node);
}

/** The expression after `extends` in a class's heritage clauses. */
export function extendsExpression(declaration: Typescript.ClassLikeDeclaration): Typescript.Expression | undefined {
  const clause = declaration.heritageClauses?.find((candidate) => candidate.token === ts.SyntaxKind.ExtendsKeyword);
  return clause?.types[0]?.expression;
}

/** The base class of `declaration`, `visible` when `find` finds the class its `extends` expression names. */
export function baseClass(
  declaration: Typescript.ClassLikeDeclaration,
  find: (expression: Typescript.Expression) => Typescript.ClassLikeDeclaration | undefined,
  where: 'another-file' | 'another-package',
): BaseClass {
  const expression = extendsExpression(declaration);
  if (expression === undefined) {
    return { kind: 'none' };
  }
  const visible = find(expression);
  return visible === undefined
    ? { kind: 'unknown', name: expression.getText(), where }
    : { kind: 'visible', declaration: visible };
}

/** Whether `name` is one of `locals`, or `ns.member` (an access or a qualified name) with `ns` one of `namespaces`. */
export function namesImported(
  name: Typescript.Expression | Typescript.EntityName,
  member: string,
  locals: ReadonlySet<string>,
  namespaces: ReadonlySet<string>,
): boolean {
  const [namespace, right] = ts.isPropertyAccessExpression(name)
    ? [name.expression, name.name]
    : ts.isQualifiedName(name)
      ? [name.left, name.right]
      : [];
  return ts.isIdentifier(name)
    ? locals.has(name.text)
    : namespace !== undefined && ts.isIdentifier(namespace) && namespaces.has(namespace.text) && right?.text === member;
}

/**
 * What `node` binds when it imports a module named by a string: `import d, { a as b } from 'm'`, `import * as ns from
 * 'm'`, a JSDoc `@import`, `import ns = require('m')`; `undefined` for any other node.
 */
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
