import type { ts as Typescript } from 'ts-morph';
import { ts } from './typescript.js';

/** The class a class extends, as far as a resolver can see. */
export type BaseClass =
  | { readonly kind: 'none' }
  | { readonly kind: 'visible'; readonly declaration: Typescript.ClassLikeDeclaration }
  /** Declared where the resolver cannot look: another file (the jscodeshift transform), or an unresolved package. */
  | { readonly kind: 'unknown'; readonly name: string; readonly where: 'another-file' | 'another-package' };

/**
 * What the fact reader cannot answer from the syntax of one file (doc/adr/0204), answered by a type checker: over the
 * project for the CLI, over the one file for the jscodeshift transform.
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

/** The expression after `extends` in a class's heritage clauses. */
export function extendsExpression(declaration: Typescript.ClassLikeDeclaration): Typescript.Expression | undefined {
  const clause = declaration.heritageClauses?.find((candidate) => candidate.token === ts.SyntaxKind.ExtendsKeyword);
  return clause?.types[0]?.expression;
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
