import { AST_NODE_TYPES } from '@typescript-eslint/types';
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import {
  descendantNodes,
  parameterVariables,
  parentOf,
  referencedVariable,
  skipTransparentWrappers,
  staticMemberName,
  staticPropertyKeyName,
} from '../analysis/index.js';
import {
  bodyNodes,
  DUAL_ANCHOR_RULE_DEFAULTS,
  DUAL_ANCHOR_RULE_SCHEMA,
  type DualAnchorRuleOptions,
  type DualAnchorStore,
  dualAnchorStoreListeners,
  FIELDS_STEP,
  isSqlRead,
  normalizedFieldName,
  operationsOf,
  sqlStatementOf,
  storeCallKind,
  usesAtomicStep,
} from '../analysis/recognisers/index.js';
import type { DualAnchorPartialOperation } from '../../vocabulary/index.js';
import { createRule, type CheckpointFencingRule } from '../create-rule.js';

/** Message ids of `no-split-anchor-heartbeat`. */
export type NoSplitAnchorHeartbeatMessageId = 'splitAnchorHeartbeat';

type SourceCode = Readonly<TSESLint.SourceCode>;
type Variable = TSESLint.Scope.Variable;

/** The anchor writes whose fourth argument is the heartbeat that must land with the anchor. */
const ANCHOR_OPERATIONS: readonly DualAnchorPartialOperation[] = ['saveSeen', 'saveProcessed'];
const HEARTBEAT_PARAMETER = 3;
const PROMISE_COMBINATORS: ReadonlySet<string> = new Set(['all', 'allSettled']);

/** What a write puts down: the anchor (its token or timestamp), the heartbeat, or both. */
interface WriteUnit {
  readonly node: TSESTree.Node;
  readonly anchor: boolean;
  readonly heartbeat: boolean;
}

/** Reports an anchor write that puts the anchor and its heartbeat down in two awaited writes. */
export const noSplitAnchorHeartbeat: CheckpointFencingRule<NoSplitAnchorHeartbeatMessageId, [DualAnchorRuleOptions]> =
  createRule<[DualAnchorRuleOptions], NoSplitAnchorHeartbeatMessageId>({
    name: 'no-split-anchor-heartbeat',
    meta: {
      type: 'problem',
      docs: {
        description:
          'Disallow a DualAnchorCheckpointStore anchor write with a heartbeat that writes the two in separate awaited writes',
        recommended: true,
        requiresTypeChecking: false,
        usesTypeInformationWhenAsked: true,
      },
      messages: {
        splitAnchorHeartbeat:
          'The anchor and its heartbeat are written in two awaited writes, the other at line {{line}}: a reader in between sees one without the ' +
          'other, and a crash in between keeps them apart. Write the anchor and its heartbeat in one atomic write: one `HSET` of both fields, ' +
          'one upsert setting all three columns, one `$set`.',
      },
      schema: DUAL_ANCHOR_RULE_SCHEMA,
      defaultOptions: [DUAL_ANCHOR_RULE_DEFAULTS],
    },
    create(context, [options]) {
      const { sourceCode } = context;
      return dualAnchorStoreListeners(context, options, (store) => {
        for (const operation of operationsOf(store, ANCHOR_OPERATIONS, [FIELDS_STEP])) {
          const step = operation.name === FIELDS_STEP;
          if ((!step && !takesHeartbeat(operation.method)) || usesAtomicStep(operation.method, sourceCode)) {
            continue;
          }
          const split = splitWrite(writeUnits(operation.method, step, store, sourceCode));
          if (split !== undefined) {
            context.report({
              node: split.second.node,
              messageId: 'splitAnchorHeartbeat',
              data: { line: split.first.node.loc.start.line },
            });
          }
        }
      });
    },
  });

/** A `saveSeen`/`saveProcessed` that declares its fourth parameter, the heartbeat (or takes the rest). */
function takesHeartbeat(method: TSESTree.FunctionLike): boolean {
  return (
    method.params.length > HEARTBEAT_PARAMETER ||
    method.params.some((parameter) => parameter.type === AST_NODE_TYPES.RestElement)
  );
}

/**
 * The awaited or returned writes of `method`, each element of a `Promise.all` on its own, with what each carries. An
 * anchor operation's own token and timestamp parameters are the anchor and its fourth parameter the heartbeat; in the
 * base class's `writeFields`, the plan is the anchor. Anything named like a heartbeat (`lastHeartbeatTimestamp`,
 * `last_heartbeat_ts`) is the heartbeat, and anything named like an anchor field the anchor; variables carry what
 * their initialiser does.
 */
function writeUnits(
  method: TSESTree.FunctionLike,
  step: boolean,
  store: DualAnchorStore,
  sourceCode: SourceCode,
): WriteUnit[] {
  const variablesOf = (indexes: readonly number[]): Set<Variable> =>
    new Set(
      indexes.flatMap((index) => {
        const parameter = method.params[index];
        return parameter === undefined ? [] : parameterVariables(method, parameter, sourceCode);
      }),
    );
  const roles = {
    anchor: variablesOf(step ? [0] : [1, 2]),
    heartbeat: variablesOf(step ? [] : [HEARTBEAT_PARAMETER]),
  };
  const units: WriteUnit[] = [];
  for (const node of bodyNodes(method, sourceCode)) {
    const settled =
      node.type === AST_NODE_TYPES.AwaitExpression
        ? node.argument
        : node.type === AST_NODE_TYPES.ReturnStatement
          ? node.argument
          : undefined;
    for (const write of settled === null || settled === undefined ? [] : writesSettledBy(settled, store, sourceCode)) {
      const carried = carries(write, roles, sourceCode, new Set());
      if (carried.anchor || carried.heartbeat) {
        units.push({ node: write, ...carried });
      }
    }
  }
  return units;
}

/** The writes an awaited or returned expression settles: the expression, the elements of a `Promise.all`, a chain's write. */
function writesSettledBy(expression: TSESTree.Node, store: DualAnchorStore, sourceCode: SourceCode): TSESTree.Node[] {
  const target = skipTransparentWrappers(expression);
  if (target.type === AST_NODE_TYPES.CallExpression) {
    const callee = skipTransparentWrappers(target.callee);
    const combinator = callee.type === AST_NODE_TYPES.MemberExpression ? staticMemberName(callee) : undefined;
    const list = target.arguments[0];
    if (
      combinator !== undefined &&
      PROMISE_COMBINATORS.has(combinator) &&
      list?.type === AST_NODE_TYPES.ArrayExpression
    ) {
      return list.elements.flatMap((element) =>
        element === null || element.type === AST_NODE_TYPES.SpreadElement
          ? []
          : writesSettledBy(element, store, sourceCode),
      );
    }
  }
  return writeInChain(target, store, sourceCode) ? [target] : [];
}

/** Whether `node`, or a call it is chained on (`db.update(t).set(v).where(w)`), writes. */
function writeInChain(node: TSESTree.Node, store: DualAnchorStore, sourceCode: SourceCode): boolean {
  if (node.type === AST_NODE_TYPES.TaggedTemplateExpression) {
    const statement = sqlStatementOf(node, sourceCode.getScope(node));
    return statement !== undefined && !isSqlRead(statement);
  }
  if (node.type !== AST_NODE_TYPES.CallExpression) {
    return false;
  }
  const kind = storeCallKind(node, store, sourceCode);
  if (kind === 'write' || kind === 'statement') {
    return true;
  }
  const callee = skipTransparentWrappers(node.callee);
  return (
    callee.type === AST_NODE_TYPES.MemberExpression &&
    writeInChain(skipTransparentWrappers(callee.object), store, sourceCode)
  );
}

/** What `node` carries: references to the anchor or heartbeat variables, or names of those fields. */
function carries(
  node: TSESTree.Node,
  roles: { readonly anchor: ReadonlySet<Variable>; readonly heartbeat: ReadonlySet<Variable> },
  sourceCode: SourceCode,
  seen: Set<Variable>,
): { anchor: boolean; heartbeat: boolean } {
  const carried = { anchor: false, heartbeat: false };
  const byName = (name: string | undefined): void => {
    if (name !== undefined) {
      carried.heartbeat ||= namesHeartbeat(name);
      carried.anchor ||= namesAnchor(name);
    }
  };
  for (const child of [node, ...descendantNodes(node, sourceCode.visitorKeys, true)]) {
    if (child.type === AST_NODE_TYPES.Literal && typeof child.value === 'string') {
      byName(child.value);
    } else if (child.type === AST_NODE_TYPES.Property) {
      byName(staticPropertyKeyName(child.key, child.computed));
    } else if (child.type === AST_NODE_TYPES.MemberExpression && !isCallee(child)) {
      byName(staticMemberName(child));
    } else if (child.type === AST_NODE_TYPES.Identifier) {
      const variable = referencedVariable(child, sourceCode);
      if (variable === undefined || seen.has(variable)) {
        continue;
      }
      if (namesHeartbeat(variable.name) || roles.heartbeat.has(variable)) {
        carried.heartbeat = true;
      } else if (roles.anchor.has(variable)) {
        carried.anchor = true;
      } else {
        seen.add(variable);
        const declarator = variable.defs[0]?.node;
        if (declarator?.type === AST_NODE_TYPES.VariableDeclarator && declarator.init !== null) {
          const inner = carries(declarator.init, roles, sourceCode, seen);
          carried.anchor ||= inner.anchor;
          carried.heartbeat ||= inner.heartbeat;
        }
      }
    }
  }
  return carried;
}

function isCallee(member: TSESTree.MemberExpression): boolean {
  const parent = parentOf(member);
  return parent?.type === AST_NODE_TYPES.CallExpression && parent.callee === member;
}

/**
 * The first pair of writes, one of the anchor without the heartbeat and one of the heartbeat, that both run on one
 * path, in the order they run: not in two branches of one `if`, `?:` or `switch`, and not with a `return` or `throw`
 * after the first that always leaves before the second.
 */
function splitWrite(units: readonly WriteUnit[]): { first: WriteUnit; second: WriteUnit } | undefined {
  for (const [index, second] of units.entries()) {
    for (const first of units.slice(0, index)) {
      const pair =
        (first.heartbeat && !second.heartbeat && second.anchor) ||
        (second.heartbeat && !first.heartbeat && first.anchor);
      if (pair && runInSequence(first.node, second.node)) {
        return { first, second };
      }
    }
  }
  return undefined;
}

function runInSequence(first: TSESTree.Node, second: TSESTree.Node): boolean {
  const ancestorsOfFirst = ancestors(first);
  let child = second;
  let common = parentOf(second);
  while (common !== undefined && !ancestorsOfFirst.includes(common)) {
    child = common;
    common = parentOf(common);
  }
  if (common === undefined) {
    return false;
  }
  const firstChild = ancestorsOfFirst[ancestorsOfFirst.indexOf(common) - 1] ?? first;
  if (inDifferentBranches(common, firstChild, child)) {
    return false;
  }
  return !leavesBefore(first, common, child);
}

/** `node`'s ancestors, innermost first. */
function ancestors(node: TSESTree.Node): TSESTree.Node[] {
  const found: TSESTree.Node[] = [];
  for (let current = parentOf(node); current !== undefined; current = parentOf(current)) {
    found.push(current);
  }
  return found;
}

function inDifferentBranches(common: TSESTree.Node, first: TSESTree.Node, second: TSESTree.Node): boolean {
  switch (common.type) {
    case AST_NODE_TYPES.IfStatement:
    case AST_NODE_TYPES.ConditionalExpression:
      return first !== common.test && second !== common.test;
    case AST_NODE_TYPES.SwitchStatement:
      return first !== common.discriminant && second !== common.discriminant;
    default:
      return false;
  }
}

/** Whether a `return` or `throw` after `first`, in a statement list between it and `common`, always leaves first. */
function leavesBefore(first: TSESTree.Node, common: TSESTree.Node, secondChild: TSESTree.Node): boolean {
  let child: TSESTree.Node = first;
  for (let parent = parentOf(first); parent !== undefined; child = parent, parent = parentOf(parent)) {
    if (child.type === AST_NODE_TYPES.ReturnStatement || child.type === AST_NODE_TYPES.ThrowStatement) {
      return true;
    }
    if (parent.type === AST_NODE_TYPES.BlockStatement || parent.type === AST_NODE_TYPES.SwitchCase) {
      const statements: readonly TSESTree.Node[] =
        parent.type === AST_NODE_TYPES.BlockStatement ? parent.body : parent.consequent;
      const end = parent === common ? statements.indexOf(secondChild) : statements.length;
      if (
        statements
          .slice(statements.indexOf(child) + 1, end)
          .some(
            (statement) =>
              statement.type === AST_NODE_TYPES.ReturnStatement || statement.type === AST_NODE_TYPES.ThrowStatement,
          )
      ) {
        return true;
      }
    }
    if (parent === common) {
      return false;
    }
  }
  return false;
}

/** Whether `name` is the heartbeat confirmation: `lastHeartbeatTimestamp`, `last_heartbeat_ts`, `heartbeat`, … */
function namesHeartbeat(name: string): boolean {
  return normalizedFieldName(name).includes('heartbeat');
}

/** Whether `name` is an anchor (seen or processed): `lastSeenToken`, `last_processed_ts`, … */
function namesAnchor(name: string): boolean {
  const plain = normalizedFieldName(name);
  return plain.includes('seen') || plain.includes('processed');
}
