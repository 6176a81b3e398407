import type { ts as Typescript } from 'ts-morph';

/**
 * Every JSDoc comment attached to `node`. TypeScript's public `getJSDocCommentsAndTags` returns only the last one,
 * but a `@typedef` usually sits in a comment of its own above the class comment; the parser keeps them all in the
 * node's `jsDoc` array (internal, and what ts-morph reads too).
 */
export function jsDocComments(node: Typescript.Node): readonly Typescript.JSDoc[] {
  return (node as { readonly jsDoc?: readonly Typescript.JSDoc[] }).jsDoc ?? [];
}

/** Whether `sourceFile` is JavaScript, where JSDoc tags carry what TypeScript writes as syntax. */
export function isJavaScriptFile(sourceFile: Typescript.SourceFile): boolean {
  return /\.[mc]?jsx?$/.test(sourceFile.fileName);
}
