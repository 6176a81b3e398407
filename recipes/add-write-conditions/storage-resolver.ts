import type { ts as Typescript } from 'ts-morph';

/** The class a class extends, as far as a resolver can see. */
export type BaseClass =
  | { readonly kind: 'none' }
  | { readonly kind: 'visible'; readonly declaration: Typescript.ClassLikeDeclaration }
  /** Declared where this resolver cannot look: another file (the by-name resolver), or an unresolved package. */
  | { readonly kind: 'unknown'; readonly name: string; readonly where: 'another-file' | 'another-package' };

/**
 * What {@link readImplementerFacts} cannot answer from the syntax of one file: which types are `CheckpointStorage`
 * from checkpoint-fencing, and which class a class extends. Two implementations: by symbol (a type checker, for the
 * CLI) and by name (imports, same-file interfaces and JSDoc, for the jscodeshift transform).
 */
export interface StorageResolver {
  /**
   * Whether a type annotation or heritage-clause type is `CheckpointStorage` from checkpoint-fencing, an interface or
   * alias derived from it, or a union of those with `null`/`undefined`.
   */
  isStorageType(node: Typescript.TypeNode | Typescript.ExpressionWithTypeArguments): boolean;
  /** Whether an object literal with no declared type is a storage by where it stands (an argument, a property). */
  isContextuallyStorage(literal: Typescript.ObjectLiteralExpression): boolean;
  baseClassOf(declaration: Typescript.ClassLikeDeclaration): BaseClass;
}
