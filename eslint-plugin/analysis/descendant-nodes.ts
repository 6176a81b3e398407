import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';

/** Node types whose bodies run at another time than the code around them. */
const FUNCTION_TYPES: ReadonlySet<string> = new Set([
  AST_NODE_TYPES.FunctionDeclaration,
  AST_NODE_TYPES.FunctionExpression,
  AST_NODE_TYPES.ArrowFunctionExpression,
]);

/** Whether `node` is a function of any kind. */
export function isFunctionNode(
  node: TSESTree.Node,
): node is TSESTree.FunctionDeclaration | TSESTree.FunctionExpression | TSESTree.ArrowFunctionExpression {
  return FUNCTION_TYPES.has(node.type);
}

/**
 * Every node below `root` in source order, `root` excluded. With `skipFunctions`, nested functions are not entered,
 * so only code that runs as part of `root` itself is visited. Walks the ESTree shape generically (any property
 * holding a node or node array), so TS, JSX and decorator nodes are traversed without a visitor-key table.
 */
export function* descendantNodes(root: TSESTree.Node, skipFunctions: boolean): Generator<TSESTree.Node> {
  for (const child of childNodes(root)) {
    yield child;
    if (!(skipFunctions && isFunctionNode(child))) {
      yield* descendantNodes(child, skipFunctions);
    }
  }
}

function childNodes(node: TSESTree.Node): TSESTree.Node[] {
  const children: TSESTree.Node[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (key === 'parent') {
      continue;
    }
    for (const item of Array.isArray(value) ? (value as unknown[]) : [value]) {
      if (isNode(item)) {
        children.push(item);
      }
    }
  }
  return children.sort((a, b) => a.range[0] - b.range[0]);
}

function isNode(value: unknown): value is TSESTree.Node {
  return typeof value === 'object' && value !== null && 'type' in value && typeof value.type === 'string' && 'range' in value;
}

/** The nearest function around `node`, or `undefined` at module level. */
export function enclosingFunction(
  node: TSESTree.Node,
): TSESTree.FunctionDeclaration | TSESTree.FunctionExpression | TSESTree.ArrowFunctionExpression | undefined {
  for (let current = parentOf(node); current !== undefined; current = parentOf(current)) {
    if (isFunctionNode(current)) {
      return current;
    }
  }
  return undefined;
}

/** The parent of `node`, or `undefined` above `Program`: ESLint gives `Program` a `null` parent although the types say `undefined`. */
export function parentOf(node: TSESTree.Node): TSESTree.Node | undefined {
  return node.parent ?? undefined;
}
