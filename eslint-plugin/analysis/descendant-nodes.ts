import { AST_NODE_TYPES } from '@typescript-eslint/types';
import type { TSESTree } from '@typescript-eslint/utils';

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

/** The parser's child keys by node type (`context.sourceCode.visitorKeys`). */
export type VisitorKeys = Readonly<Record<string, readonly string[] | undefined>>;

/**
 * Every node below `root` in source order, `root` excluded. With `skipFunctions`, nested functions are not entered,
 * so only code that runs as part of `root` itself is visited. Follows the parser's visitor keys, so TS, JSX and
 * decorator nodes are traversed; a node type without keys is walked through any property holding nodes.
 */
export function* descendantNodes(
  root: TSESTree.Node,
  visitorKeys: VisitorKeys,
  skipFunctions: boolean,
): Generator<TSESTree.Node> {
  for (const child of childNodes(root, visitorKeys)) {
    yield child;
    if (!(skipFunctions && isFunctionNode(child))) {
      yield* descendantNodes(child, visitorKeys, skipFunctions);
    }
  }
}

/**
 * {@link descendantNodes} as an array, for callers that look at every node anyway: one walk without a generator per
 * node, which matters on the rules' hot paths.
 */
export function descendantNodeList(
  root: TSESTree.Node,
  visitorKeys: VisitorKeys,
  skipFunctions: boolean,
  into: TSESTree.Node[] = [],
): TSESTree.Node[] {
  for (const child of childNodes(root, visitorKeys)) {
    into.push(child);
    if (!(skipFunctions && isFunctionNode(child))) {
      descendantNodeList(child, visitorKeys, skipFunctions, into);
    }
  }
  return into;
}

function childNodes(node: TSESTree.Node, visitorKeys: VisitorKeys): TSESTree.Node[] {
  const keys = visitorKeys[node.type];
  const record = node as unknown as Record<string, unknown>;
  const children: TSESTree.Node[] = [];
  if (keys !== undefined) {
    for (const key of keys) {
      addNodes(record[key], children);
    }
    return children;
  }
  for (const key of Object.keys(record)) {
    if (key !== 'parent') {
      addNodes(record[key], children);
    }
  }
  return children.sort((a, b) => a.range[0] - b.range[0]);
}

function addNodes(value: unknown, into: TSESTree.Node[]): void {
  if (Array.isArray(value)) {
    for (const element of value as unknown[]) {
      if (isNode(element)) {
        into.push(element);
      }
    }
  } else if (isNode(value)) {
    into.push(value);
  }
}

function isNode(value: unknown): value is TSESTree.Node {
  return (
    typeof value === 'object' && value !== null && 'type' in value && typeof value.type === 'string' && 'range' in value
  );
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

/** The class whose `this` a member expression reads: the nearest class, unless a plain function rebinds `this` first. */
export function enclosingClass(node: TSESTree.Node): TSESTree.ClassDeclaration | TSESTree.ClassExpression | undefined {
  let crossedFunction = false;
  for (let current = parentOf(node); current !== undefined; current = parentOf(current)) {
    if (current.type === AST_NODE_TYPES.ClassBody) {
      return current.parent;
    }
    if (current.type === AST_NODE_TYPES.FunctionDeclaration || current.type === AST_NODE_TYPES.FunctionExpression) {
      if (crossedFunction || current.parent.type !== AST_NODE_TYPES.MethodDefinition) {
        return undefined;
      }
      crossedFunction = true;
    }
  }
  return undefined;
}

/** The parent of `node`, or `undefined` above `Program`: ESLint gives `Program` a `null` parent although the types say `undefined`. */
export function parentOf(node: TSESTree.Node): TSESTree.Node | undefined {
  return node.parent ?? undefined;
}
