import { AST_NODE_TYPES } from '@typescript-eslint/types';
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { namesKeyOrVersion } from './anchor-field-names.js';
import { parentOf } from './descendant-nodes.js';
import { staticMemberName } from './static-member-name.js';

// Where a value read from a store goes inside one function: which expressions around it still carry it (a copy, a
// spread, a function of it, a choice between it and a default) and which only test it or pick its key or version.

const TESTS: ReadonlySet<string> = new Set(['===', '!==', '==', '!=', '<', '<=', '>', '>=', 'instanceof', 'in']);

/** A step of a value up the tree: the expression `node` that now carries the value its child `from` held. */
export interface CarrierStep {
  readonly node: TSESTree.Node;
  readonly from: TSESTree.Node;
}

/**
 * The expressions that carry the value of `start` outward, innermost first, ending at the first one that does not
 * (a test, a pick of an id or version, a statement). A call carries the values of its arguments (`JSON.parse(raw)`,
 * `encode(record)`), so the chain passes through the calls a value is handed to.
 */
export function* carriersOf(start: TSESTree.Node): Generator<CarrierStep> {
  let child = start;
  for (let parent = parentOf(start); parent !== undefined && carries(child, parent); parent = parentOf(parent)) {
    yield { node: parent, from: child };
    child = parent;
  }
}

/** The variables `step`'s expression is stored in: a declarator's, an assigned identifier, an object assigned into. */
export function variablesAssigned(
  step: CarrierStep,
  sourceCode: Readonly<TSESLint.SourceCode>,
): readonly TSESLint.Scope.Variable[] {
  const { node, from } = step;
  if (node.type === AST_NODE_TYPES.VariableDeclarator && node.init === from) {
    return sourceCode.getDeclaredVariables(node);
  }
  if (node.type === AST_NODE_TYPES.AssignmentExpression && node.right === from) {
    const root = rootIdentifier(node.left);
    const variable = root === undefined ? undefined : referencedVariable(root, sourceCode);
    return variable === undefined ? [] : [variable];
  }
  return [];
}

/** The variable an identifier refers to, from the scope it is in. */
export function referencedVariable(
  identifier: TSESTree.Identifier,
  sourceCode: Readonly<TSESLint.SourceCode>,
): TSESLint.Scope.Variable | undefined {
  return (
    sourceCode.getScope(identifier).references.find((reference) => reference.identifier === identifier)?.resolved ??
    undefined
  );
}

/** The identifier a member chain starts from: `record` in `record.a.b`, `rows` in `rows[0]?.x`. */
export function rootIdentifier(node: TSESTree.Node): TSESTree.Identifier | undefined {
  let current = node;
  while (current.type === AST_NODE_TYPES.MemberExpression || current.type === AST_NODE_TYPES.ChainExpression) {
    current = current.type === AST_NODE_TYPES.MemberExpression ? current.object : current.expression;
  }
  return current.type === AST_NODE_TYPES.Identifier ? current : undefined;
}

function carries(child: TSESTree.Node, parent: TSESTree.Node): boolean {
  switch (parent.type) {
    case AST_NODE_TYPES.AwaitExpression:
    case AST_NODE_TYPES.ChainExpression:
    case AST_NODE_TYPES.TSAsExpression:
    case AST_NODE_TYPES.TSNonNullExpression:
    case AST_NODE_TYPES.TSSatisfiesExpression:
    case AST_NODE_TYPES.TSTypeAssertion:
    case AST_NODE_TYPES.SpreadElement:
    case AST_NODE_TYPES.ArrayExpression:
    case AST_NODE_TYPES.ObjectExpression:
    case AST_NODE_TYPES.TemplateLiteral:
    case AST_NODE_TYPES.TaggedTemplateExpression:
    case AST_NODE_TYPES.CallExpression:
    case AST_NODE_TYPES.NewExpression:
    case AST_NODE_TYPES.LogicalExpression:
    case AST_NODE_TYPES.VariableDeclarator:
      return true;
    case AST_NODE_TYPES.Property:
      return parent.value === child;
    case AST_NODE_TYPES.AssignmentExpression:
      return parent.right === child;
    case AST_NODE_TYPES.ConditionalExpression:
      return parent.test !== child;
    case AST_NODE_TYPES.BinaryExpression:
      return !TESTS.has(parent.operator);
    case AST_NODE_TYPES.UnaryExpression:
      return parent.operator === '-' || parent.operator === '+';
    case AST_NODE_TYPES.MemberExpression: {
      if (parent.object !== child) {
        return false;
      }
      const name = staticMemberName(parent);
      return name === undefined || !namesKeyOrVersion(name);
    }
    default:
      return false;
  }
}
