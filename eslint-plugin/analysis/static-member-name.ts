import { AST_NODE_TYPES } from '@typescript-eslint/types';
import type { TSESTree } from '@typescript-eslint/utils';

/**
 * The property name of `a.b`, `a?.b`, `a.#b` (as `#b`), `a['b']` and `` a[`b`] ``; `undefined` when the key is
 * computed from anything but a literal, since no rule can know what it names.
 */
export function staticMemberName(member: TSESTree.MemberExpression): string | undefined {
  if (!member.computed) {
    return member.property.type === AST_NODE_TYPES.PrivateIdentifier
      ? `#${member.property.name}`
      : member.property.name;
  }
  return staticKeyValue(member.property);
}

/** The name `node` spells as an identifier (`x`), or as a member expression ({@link staticMemberName}: `a.b`, `a.#b`). */
export function staticName(node: TSESTree.Node): string | undefined {
  return node.type === AST_NODE_TYPES.Identifier
    ? node.name
    : node.type === AST_NODE_TYPES.MemberExpression
      ? staticMemberName(node)
      : undefined;
}

/** The name of a class member or object property key, following the same rules as {@link staticMemberName}. */
export function staticPropertyKeyName(key: TSESTree.Node, computed: boolean): string | undefined {
  if (!computed) {
    if (key.type === AST_NODE_TYPES.Identifier) {
      return key.name;
    }
    if (key.type === AST_NODE_TYPES.PrivateIdentifier) {
      return `#${key.name}`;
    }
  }
  return staticKeyValue(key);
}

function staticKeyValue(key: TSESTree.Node): string | undefined {
  if (key.type === AST_NODE_TYPES.Literal && typeof key.value === 'string') {
    return key.value;
  }
  if (key.type === AST_NODE_TYPES.TemplateLiteral && key.expressions.length === 0) {
    return key.quasis[0]?.value.cooked ?? undefined;
  }
  return undefined;
}

/** `node` without the wrappers that do not change which value it is: `x!`, `x as T`, `x satisfies T`, `<T>x`, `(a?.b)`. */
export function skipTransparentWrappers(node: TSESTree.Node): TSESTree.Node {
  let current = node;
  for (;;) {
    switch (current.type) {
      case AST_NODE_TYPES.TSNonNullExpression:
      case AST_NODE_TYPES.TSAsExpression:
      case AST_NODE_TYPES.TSSatisfiesExpression:
      case AST_NODE_TYPES.TSTypeAssertion:
      case AST_NODE_TYPES.ChainExpression:
        current = current.expression;
        break;
      default:
        return current;
    }
  }
}
