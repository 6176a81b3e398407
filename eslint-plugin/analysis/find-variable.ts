import type { TSESLint, TSESTree } from '@typescript-eslint/utils';

type Scope = TSESLint.Scope.Scope;

/**
 * The variable a name, or an identifier, refers to from `scope`: declared there or in an enclosing scope, the
 * nearest one winning. For an identifier the search starts in the innermost scope around it. The same as
 * `findVariable` of `@eslint-community/eslint-utils`, written here so the plugin loads without it.
 */
export function findVariable(
  scope: Scope,
  nameOrIdentifier: string | TSESTree.Identifier,
): TSESLint.Scope.Variable | null {
  const name = typeof nameOrIdentifier === 'string' ? nameOrIdentifier : nameOrIdentifier.name;
  let current: Scope | null =
    typeof nameOrIdentifier === 'string' ? scope : innermostScope(scope, nameOrIdentifier.range[0]);
  for (; current !== null; current = current.upper) {
    const variable = current.set.get(name);
    if (variable !== undefined) {
      return variable;
    }
  }
  return null;
}

function innermostScope(scope: Scope, offset: number): Scope {
  for (const child of scope.childScopes) {
    const [start, end] = child.block.range;
    if (start <= offset && offset < end) {
      return innermostScope(child, offset);
    }
  }
  return scope;
}
