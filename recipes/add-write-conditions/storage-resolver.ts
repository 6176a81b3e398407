import { ts } from 'ts-morph';

/** The class a class extends, as far as a resolver can see. */
export type BaseClass =
  | { readonly kind: 'none' }
  | { readonly kind: 'visible'; readonly declaration: ts.ClassLikeDeclaration }
  /** Declared where this resolver cannot look: another file (the by-name resolver), or an unresolved package. */
  | { readonly kind: 'unknown'; readonly name: string; readonly where: 'another-file' | 'another-package' };

/**
 * What the fact reader cannot answer from the syntax of one file (doc/adr/0204): answered by symbol (a type checker,
 * for the CLI) or by name (imports, same-file interfaces and JSDoc, for the jscodeshift transform).
 */
export interface StorageResolver {
  /** Whether a type is checkpoint-fencing's `CheckpointStorage`, one derived from it, or either with `null`/`undefined`. */
  isStorageType(node: ts.TypeNode | ts.ExpressionWithTypeArguments): boolean;
  /** Whether an object literal with no declared type is a storage by where it stands (an argument, a property). */
  isContextuallyStorage(literal: ts.ObjectLiteralExpression): boolean;
  baseClassOf(declaration: ts.ClassLikeDeclaration): BaseClass;
}

/**
 * Every JSDoc comment attached to `node`: a `@typedef` usually sits in a comment of its own above the class comment,
 * and the public `getJSDocCommentsAndTags` returns only the last. The parser's `jsDoc` array is what ts-morph reads too.
 */
export function jsDocComments(node: ts.Node): readonly ts.JSDoc[] {
  return (node as { readonly jsDoc?: readonly ts.JSDoc[] }).jsDoc ?? [];
}

/** Whether `sourceFile` is JavaScript, where JSDoc tags carry what TypeScript writes as syntax. */
export function isJavaScriptFile(sourceFile: ts.SourceFile): boolean {
  return /\.[mc]?jsx?$/.test(sourceFile.fileName);
}

/** The type in a wrapper that keeps its members callable: `(T)`, JSDoc `?T` and `!T`, `Readonly<T>`, `Required<T>`. */
export function membersKeepingWrapper(node: ts.TypeNode): ts.TypeNode | undefined {
  if (ts.isParenthesizedTypeNode(node) || ts.isJSDocNullableType(node) || ts.isJSDocNonNullableType(node)) {
    return node.type;
  }
  const [argument, ...others] = ts.isTypeReferenceNode(node) ? (node.typeArguments ?? []) : [];
  const name = ts.isTypeReferenceNode(node) && ts.isIdentifier(node.typeName) ? node.typeName.text : undefined;
  return (name === 'Readonly' || name === 'Required') && others.length === 0 ? argument : undefined;
}

/** The expression after `extends` in a class's heritage clauses. */
export function extendsExpression(declaration: ts.ClassLikeDeclaration): ts.Expression | undefined {
  const clause = declaration.heritageClauses?.find((candidate) => candidate.token === ts.SyntaxKind.ExtendsKeyword);
  return clause?.types[0]?.expression;
}

/** `undefined` or `null` as a type, which a union with a storage may add. */
export function isNullishTypeNode(node: ts.TypeNode): boolean {
  return (
    node.kind === ts.SyntaxKind.UndefinedKeyword ||
    (ts.isLiteralTypeNode(node) && node.literal.kind === ts.SyntaxKind.NullKeyword)
  );
}
