import { AST_NODE_TYPES } from '@typescript-eslint/types';
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import {
  descendantNodes,
  referencedVariable,
  skipTransparentWrappers,
  staticMemberName,
  staticName,
  staticPropertyKeyName,
} from '../analysis/index.js';
import {
  bodyNodes,
  DUAL_ANCHOR_RULE_DEFAULTS,
  DUAL_ANCHOR_RULE_SCHEMA,
  type DualAnchorRuleOptions,
  type DualAnchorStore,
  dualAnchorStoreListeners,
  methodWithHelpers,
  normalizedFieldName,
  operationsOf,
  refersToRuntimeExport,
  RESET_STEP,
  sqlStatementOf,
  storeCallKind,
  usesAtomicStep,
} from '../analysis/recognisers/index.js';
import type { DualAnchorPartialOperation, RuntimeExportName } from '../../vocabulary/index.js';
import { createRule, type CheckpointFencingRule } from '../create-rule.js';

/** Message ids of `no-unguarded-history-reset`. */
export type NoUnguardedHistoryResetMessageId = 'guardInNode';

type SourceCode = Readonly<TSESLint.SourceCode>;

const RESET: DualAnchorPartialOperation = 'resetAfterHistoryLost';
/** checkpoint-fencing's reset rule as a pure function: applied to a record read from the store, it is a guard in Node. */
const RESET_RULE: RuntimeExportName = 'storedFieldsAfterReset';
/** SQL that tests the processed anchor itself: in a `WHERE` or a `CASE WHEN`. */
const SQL_PROCESSED_GUARD = /\b(?:where|when)\b[\s\S]*processed/iu;
const EQUALITY_OPERATORS: ReadonlySet<string> = new Set(['===', '!==', '==', '!=']);
/** Deep-equality helpers (Node's `util`, lodash, dequal, fast-deep-equal, hand-written `equals`). */
const EQUALITY_FUNCTIONS = /^(?:is)?(?:deep)?(?:strict)?equal(?:s|with)?$|^isDeepStrictEqual$|^dequal$/iu;

/** Reports a history-lost reset that evaluates its processed-anchor guard in Node and then writes. */
export const noUnguardedHistoryReset: CheckpointFencingRule<NoUnguardedHistoryResetMessageId, [DualAnchorRuleOptions]> =
  createRule<[DualAnchorRuleOptions], NoUnguardedHistoryResetMessageId>({
    name: 'no-unguarded-history-reset',
    meta: {
      type: 'problem',
      docs: {
        description:
          'Disallow a DualAnchorCheckpointStore reset that compares the processed anchor in Node and then writes',
        recommended: true,
        requiresTypeChecking: false,
        usesTypeInformationWhenAsked: true,
      },
      messages: {
        guardInNode:
          'This reset compares the stored processed anchor in Node, and the write comes later (line {{line}}): a processed anchor re-acquired ' +
          'between the read and the write is cleared with the dead one, and the at-least-once guard of the recovery is gone. Evaluate the guard ' +
          'in the write itself: the update filter (`{ lastProcessedToken: expected }`), ' +
          '`CASE WHEN last_processed_token IS NOT DISTINCT FROM $n`, or a Lua script.',
      },
      schema: DUAL_ANCHOR_RULE_SCHEMA,
      defaultOptions: [DUAL_ANCHOR_RULE_DEFAULTS],
    },
    create(context, [options]) {
      const { sourceCode } = context;
      return dualAnchorStoreListeners(context, options, (store) => {
        const reported = new Set<TSESTree.Node>();
        for (const operation of operationsOf(store, [RESET], [RESET_STEP])) {
          for (const method of methodWithHelpers(store, operation.method, sourceCode)) {
            for (const { guard, write } of guardsInNode(method, store, sourceCode)) {
              if (!reported.has(guard)) {
                reported.add(guard);
                context.report({ node: guard, messageId: 'guardInNode', data: { line: write.loc.start.line } });
              }
            }
          }
        }
      });
    },
  });

/**
 * The comparisons of a stored processed anchor in `method` that a write follows, when something can change the store
 * in between: the anchor came from an awaited read, or an `await` lies between the comparison and the write.
 */
function guardsInNode(
  method: TSESTree.FunctionLike,
  store: DualAnchorStore,
  sourceCode: SourceCode,
): { guard: TSESTree.Node; write: TSESTree.Node }[] {
  if (usesAtomicStep(method, sourceCode)) {
    return [];
  }
  const parameters = new Set(sourceCode.getDeclaredVariables(method));
  const nodes = bodyNodes(method, sourceCode);
  const found: { guard: TSESTree.Node; write: TSESTree.Node }[] = [];
  for (const node of nodes) {
    const stored = storedAnchorCompared(node, parameters, store, sourceCode);
    if (stored === undefined) {
      continue;
    }
    // The write comes after the comparison, or takes its result as an argument (`set(k, afterReset(stored, r))`).
    const write = nodes.find(
      (candidate) =>
        (candidate.range[0] >= node.range[1] ||
          (candidate.range[0] <= node.range[0] && candidate.range[1] >= node.range[1] && candidate !== node)) &&
        isWrite(candidate, store, sourceCode),
    );
    if (write === undefined || guardsInItself(write, sourceCode)) {
      continue;
    }
    const awaitedBetween = nodes.some(
      (candidate) =>
        candidate.type === AST_NODE_TYPES.AwaitExpression &&
        candidate.range[0] >= node.range[1] &&
        candidate.range[1] <= write.range[0],
    );
    if (awaitedBetween || readByAwait(stored, parameters, store, sourceCode, new Set())) {
      found.push({ guard: node, write });
    }
  }
  return found;
}

/**
 * The expression holding the stored processed anchor that `node` compares: one side of `===`/`!==`/`==`/`!=`, an
 * argument of a deep-equality helper, or the record handed to checkpoint-fencing's `storedFieldsAfterReset`.
 */
function storedAnchorCompared(
  node: TSESTree.Node,
  parameters: ReadonlySet<TSESLint.Scope.Variable>,
  store: DualAnchorStore,
  sourceCode: SourceCode,
): TSESTree.Node | undefined {
  if (node.type === AST_NODE_TYPES.BinaryExpression && EQUALITY_OPERATORS.has(node.operator)) {
    return [node.left, node.right].find((side) => holdsStoredProcessed(side, parameters, store, sourceCode));
  }
  if (node.type !== AST_NODE_TYPES.CallExpression) {
    return undefined;
  }
  const callee = skipTransparentWrappers(node.callee);
  if (refersToRuntimeExport(callee, RESET_RULE, sourceCode.getScope(node))) {
    const record = node.arguments[0];
    return record !== undefined && !isParameterValue(record, parameters, sourceCode) ? record : undefined;
  }
  const name = staticName(callee);
  return name !== undefined && EQUALITY_FUNCTIONS.test(name)
    ? node.arguments.find((argument) => holdsStoredProcessed(argument, parameters, store, sourceCode))
    : undefined;
}

/**
 * Whether `expression` reads the stored processed anchor: a `lastProcessedToken`/`last_processed_token`/… member of
 * anything but the operation's own arguments (those carry the caller's expectation), a read of a processed field by
 * name (`await redis.hget(key, 'lastProcessedToken')`), or a local variable holding either.
 */
function holdsStoredProcessed(
  expression: TSESTree.Node,
  parameters: ReadonlySet<TSESLint.Scope.Variable>,
  store: DualAnchorStore,
  sourceCode: SourceCode,
  seen = new Set<TSESTree.Node>(),
): boolean {
  for (const node of [expression, ...descendantNodes(expression, sourceCode.visitorKeys, true)]) {
    if (
      (node.type === AST_NODE_TYPES.MemberExpression &&
        namesProcessedAnchor(staticMemberName(node) ?? '') &&
        !isParameterValue(node, parameters, sourceCode)) ||
      (node.type === AST_NODE_TYPES.CallExpression && readsProcessedField(node, store, sourceCode))
    ) {
      return true;
    }
    if (node.type === AST_NODE_TYPES.Identifier) {
      const init = localInitialiser(node, parameters, sourceCode);
      if (init !== undefined && !seen.has(init)) {
        seen.add(init);
        if (holdsStoredProcessed(init, parameters, store, sourceCode, seen)) {
          return true;
        }
      }
    }
  }
  return false;
}

/** Whether `call` reads a processed field by name: `hget(key, 'lastProcessedToken')`, `SELECT last_processed_token …`. */
function readsProcessedField(call: TSESTree.CallExpression, store: DualAnchorStore, sourceCode: SourceCode): boolean {
  if (storeCallKind(call, store, sourceCode) !== 'read') {
    return false;
  }
  const statement = sqlStatementOf(call, sourceCode.getScope(call));
  const texts = statement === undefined ? call.arguments.map(literalText) : [statement.text];
  return texts.some((text) => text !== undefined && namesProcessedAnchor(text));
}

function literalText(node: TSESTree.Node): string | undefined {
  const target = skipTransparentWrappers(node);
  return target.type === AST_NODE_TYPES.Literal && typeof target.value === 'string' ? target.value : undefined;
}

/** Whether the value `expression` holds came from an awaited read of the store, directly or through local variables. */
function readByAwait(
  expression: TSESTree.Node,
  parameters: ReadonlySet<TSESLint.Scope.Variable>,
  store: DualAnchorStore,
  sourceCode: SourceCode,
  seen: Set<TSESTree.Node>,
): boolean {
  for (const node of [expression, ...descendantNodes(expression, sourceCode.visitorKeys, true)]) {
    if (node.type === AST_NODE_TYPES.AwaitExpression) {
      const awaited = skipTransparentWrappers(node.argument);
      if (awaited.type === AST_NODE_TYPES.CallExpression && storeCallKind(awaited, store, sourceCode) === 'read') {
        return true;
      }
    }
    if (node.type === AST_NODE_TYPES.Identifier) {
      const init = localInitialiser(node, parameters, sourceCode);
      if (init !== undefined && !seen.has(init)) {
        seen.add(init);
        if (readByAwait(init, parameters, store, sourceCode, seen)) {
          return true;
        }
      }
    }
  }
  return false;
}

/** The initialiser of the local variable `identifier` refers to; none for a parameter or anything else. */
function localInitialiser(
  identifier: TSESTree.Identifier,
  parameters: ReadonlySet<TSESLint.Scope.Variable>,
  sourceCode: SourceCode,
): TSESTree.Expression | undefined {
  const variable = referencedVariable(identifier, sourceCode);
  const declarator = variable === undefined || parameters.has(variable) ? undefined : variable.defs[0]?.node;
  return declarator?.type === AST_NODE_TYPES.VariableDeclarator && declarator.init !== null
    ? declarator.init
    : undefined;
}

/** Whether a member chain starts at one of the operation's parameters (`reset.expectedDeadProcessed`). */
function isParameterValue(
  node: TSESTree.Node,
  parameters: ReadonlySet<TSESLint.Scope.Variable>,
  sourceCode: SourceCode,
): boolean {
  let current = skipTransparentWrappers(node);
  while (current.type === AST_NODE_TYPES.MemberExpression) {
    current = skipTransparentWrappers(current.object);
  }
  if (current.type !== AST_NODE_TYPES.Identifier) {
    return false;
  }
  const variable = referencedVariable(current, sourceCode);
  return variable !== undefined && parameters.has(variable);
}

/**
 * Whether the write evaluates the guard too, so the comparison in Node only saves a round trip: a filter on the processed
 * anchor (`updateOne({ _id, lastProcessedToken: expected }, …)`) or SQL that tests it (`WHERE last_processed_token = $2`,
 * `CASE WHEN last_processed_token IS NOT DISTINCT FROM $2`).
 */
function guardsInItself(write: TSESTree.Node, sourceCode: SourceCode): boolean {
  const statement = sqlStatementOf(write, sourceCode.getScope(write));
  if (statement !== undefined) {
    return statement.text !== undefined && SQL_PROCESSED_GUARD.test(statement.text);
  }
  const filter = write.type === AST_NODE_TYPES.CallExpression ? write.arguments[0] : undefined;
  const object = filter === undefined ? undefined : skipTransparentWrappers(filter);
  return (
    object?.type === AST_NODE_TYPES.ObjectExpression &&
    object.properties.some(
      (property) =>
        property.type === AST_NODE_TYPES.Property &&
        namesProcessedAnchor(staticPropertyKeyName(property.key, property.computed) ?? ''),
    )
  );
}

function isWrite(node: TSESTree.Node, store: DualAnchorStore, sourceCode: SourceCode): boolean {
  if (node.type === AST_NODE_TYPES.TaggedTemplateExpression) {
    return sqlStatementOf(node, sourceCode.getScope(node)) !== undefined;
  }
  if (node.type !== AST_NODE_TYPES.CallExpression) {
    return false;
  }
  const kind = storeCallKind(node, store, sourceCode);
  return kind === 'write' || kind === 'statement';
}

/** Whether `name` is a processed-anchor field: `lastProcessedToken`, `last_processed_token`, `processed`, … */
function namesProcessedAnchor(name: string): boolean {
  return normalizedFieldName(name).includes('processed');
}
