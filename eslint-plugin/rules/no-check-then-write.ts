import { AST_NODE_TYPES } from '@typescript-eslint/types';
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import {
  descendantNodes,
  isFunctionNode,
  parameterVariables,
  parentOf,
  skipTransparentWrappers,
} from '../analysis/index.js';
import { mayImplementCheckpointStorage } from '../analysis/gates/index.js';
import {
  ATOMIC_STEP_METHODS,
  calleeName,
  classImplementing,
  type ContractImplementation,
  hasSqlVersionGuard,
  isAnyCondition,
  isSqlRead,
  isSqlWrite,
  objectImplementing,
  sqlStatementOf,
  STORE_READ_METHODS,
  STORE_WRITE_METHODS,
} from '../analysis/recognisers/index.js';
import { createRule, type CheckpointFencingRule } from '../create-rule.js';

/** Message ids of `no-check-then-write`. */
export type NoCheckThenWriteMessageId = 'checkThenWrite';

/** Calls that read the stored version or checkpoint: the storage's own, and those of the backends it wraps. */
const READ_METHODS: ReadonlySet<string> = new Set<string>([...STORE_READ_METHODS, 'writeVersion']);
const COMPARISONS: ReadonlySet<string> = new Set(['===', '!==', '==', '!=', '<', '<=', '>', '>=']);
/** Promise methods whose callbacks run as later steps of the method that chains them. */
const CHAIN_METHODS: ReadonlySet<string> = new Set(['then', 'catch', 'finally']);

type SourceCode = Readonly<TSESLint.SourceCode>;

/** Reports a storage that reads the stored version, compares it, and writes in a separate step. */
export const noCheckThenWrite: CheckpointFencingRule<NoCheckThenWriteMessageId, []> = createRule<
  [],
  NoCheckThenWriteMessageId
>({
  name: 'no-check-then-write',
  meta: {
    type: 'problem',
    docs: {
      description:
        'Disallow CheckpointStorage implementations that evaluate a write condition in a separate step from the write',
      recommended: true,
      requiresTypeChecking: false,
      usesTypeInformationWhenAsked: false,
    },
    messages: {
      checkThenWrite:
        'This write runs in a separate step after `{{read}}` (line {{line}}) was read and compared: another writer can write in between, ' +
        'so the condition is not atomic. Evaluate it in the same atomic step as the write (a Lua script, a conditional UPDATE, a transaction).',
    },
    schema: [],
    defaultOptions: [],
  },
  create(context) {
    const { sourceCode } = context;
    if (!mayImplementCheckpointStorage(sourceCode, undefined)) {
      return {};
    }
    const check = (implementation: ContractImplementation | undefined): void => {
      for (const method of implementation?.methods.values() ?? []) {
        if (method.body !== null && method.body !== undefined) {
          reportCheckThenWrite(method.body, context, sourceCode);
        }
      }
    };
    return {
      'ClassDeclaration, ClassExpression'(classNode: TSESTree.ClassDeclaration | TSESTree.ClassExpression) {
        check(classImplementing('CheckpointStorage', classNode, sourceCode.getScope(classNode), undefined));
      },
      ObjectExpression(object) {
        check(objectImplementing('CheckpointStorage', object, sourceCode.getScope(object), undefined));
      },
    };
  },
});

function reportCheckThenWrite(
  body: TSESTree.Node,
  context: Readonly<TSESLint.RuleContext<NoCheckThenWriteMessageId, []>>,
  sourceCode: SourceCode,
): void {
  const nodes = [...stepsOf(body, sourceCode)];
  const calls = nodes.filter((node) => node.type === AST_NODE_TYPES.CallExpression);
  if (calls.some((call) => ATOMIC_STEP_METHODS.has(calleeName(call) ?? ''))) {
    return;
  }
  const comparedReads = nodes
    .map((node) => comparedRead(node, sourceCode))
    .filter((entry) => entry !== undefined)
    .sort((a, b) => a.comparedAt.range[0] - b.comparedAt.range[0]);
  const first = comparedReads[0];
  if (first === undefined) {
    return;
  }
  const write = calls.find((call) => call.range[0] > first.comparedAt.range[0] && isSeparateWrite(call, sourceCode));
  if (write !== undefined) {
    context.report({
      node: write,
      messageId: 'checkThenWrite',
      // A chain Prettier broke over lines (`redis\n  .get`) is named as one expression.
      data: { read: sourceCode.getText(first.read.callee).replace(/\s+/g, ''), line: first.read.loc.start.line },
    });
  }
}

/**
 * The nodes that run as steps of the method whose body is `root`: its own code and the callbacks it chains with
 * `.then`/`.catch`/`.finally`, in source order. Other nested functions run at another time and are not entered.
 */
function* stepsOf(root: TSESTree.Node, sourceCode: SourceCode): Generator<TSESTree.Node> {
  for (const node of descendantNodes(root, sourceCode.visitorKeys, true)) {
    yield node;
    if (isFunctionNode(node) && chainCallOf(node) !== undefined) {
      yield* stepsOf(node, sourceCode);
    }
  }
}

/** The `.then(...)`-style call `callback` is handed to, if it is. */
function chainCallOf(callback: TSESTree.Node): TSESTree.CallExpression | undefined {
  const call = callback.parent;
  return call?.type === AST_NODE_TYPES.CallExpression &&
    call.arguments.includes(callback as TSESTree.CallExpressionArgument) &&
    CHAIN_METHODS.has(calleeName(call) ?? '')
    ? call
    : undefined;
}

/**
 * A read of the stored state whose value is compared: `await read(…)` compared directly or through its binding, or
 * `read(…).then((value) => …)` whose callback compares the value it is handed.
 */
function comparedRead(
  node: TSESTree.Node,
  sourceCode: SourceCode,
): { read: TSESTree.CallExpression; comparedAt: TSESTree.Node } | undefined {
  if (node.type === AST_NODE_TYPES.AwaitExpression) {
    const read = skipTransparentWrappers(node.argument);
    const comparedAt =
      read.type === AST_NODE_TYPES.CallExpression && isStoredStateRead(read, sourceCode)
        ? comparisonOf(node, sourceCode)
        : undefined;
    return read.type === AST_NODE_TYPES.CallExpression && comparedAt !== undefined ? { read, comparedAt } : undefined;
  }
  if (
    node.type !== AST_NODE_TYPES.CallExpression ||
    calleeName(node) !== 'then' ||
    node.callee.type !== AST_NODE_TYPES.MemberExpression
  ) {
    return undefined;
  }
  const read = skipTransparentWrappers(node.callee.object);
  const onFulfilled = node.arguments[0];
  const value = onFulfilled !== undefined && isFunctionNode(onFulfilled) ? onFulfilled.params[0] : undefined;
  if (
    read.type !== AST_NODE_TYPES.CallExpression ||
    !isStoredStateRead(read, sourceCode) ||
    onFulfilled === undefined ||
    !isFunctionNode(onFulfilled) ||
    value === undefined
  ) {
    return undefined;
  }
  const comparedAt = parameterVariables(onFulfilled, value, sourceCode)
    .flatMap((variable) => variable.references)
    .map((reference) => (reference.isRead() ? comparisonAround(reference.identifier) : undefined))
    .find((compared) => compared !== undefined);
  return comparedAt === undefined ? undefined : { read, comparedAt };
}

function isStoredStateRead(call: TSESTree.CallExpression, sourceCode: SourceCode): boolean {
  const name = calleeName(call);
  if (name !== undefined && READ_METHODS.has(name)) {
    return true;
  }
  const statement = sqlStatementOf(call, sourceCode.getScope(call));
  return statement !== undefined && isSqlRead(statement);
}

/**
 * A write outside the atomic step: a store's write method, an SQL write without a `WHERE` on the version, or a `save` that
 * does not forward a condition (two arguments, or `CheckpointWriteCondition.any()`).
 */
function isSeparateWrite(call: TSESTree.CallExpression, sourceCode: SourceCode): boolean {
  const statement = sqlStatementOf(call, sourceCode.getScope(call));
  if (statement !== undefined) {
    return isSqlWrite(statement) && !hasSqlVersionGuard(statement);
  }
  const name = calleeName(call);
  if (name === 'save') {
    const condition = call.arguments[2];
    return condition === undefined || isAnyCondition(condition, sourceCode);
  }
  return name !== undefined && STORE_WRITE_METHODS.has(name);
}

/** Where the awaited read's value is compared: directly, or through the binding it is stored in. */
function comparisonOf(awaited: TSESTree.AwaitExpression, sourceCode: SourceCode): TSESTree.Node | undefined {
  const direct = comparisonAround(awaited);
  if (direct !== undefined) {
    return direct;
  }
  const declarator = awaited.parent;
  if (declarator.type !== AST_NODE_TYPES.VariableDeclarator || declarator.init !== awaited) {
    return undefined;
  }
  for (const variable of sourceCode.getDeclaredVariables(declarator)) {
    for (const reference of variable.references) {
      const compared = reference.isRead() ? comparisonAround(reference.identifier) : undefined;
      if (compared !== undefined) {
        return compared;
      }
    }
  }
  return undefined;
}

/** The test or comparison `node` is part of, looking up to the statement it sits in. */
function comparisonAround(node: TSESTree.Node): TSESTree.Node | undefined {
  let child: TSESTree.Node = node;
  for (let parent = parentOf(node); parent !== undefined; child = parent, parent = parentOf(parent)) {
    if (parent.type === AST_NODE_TYPES.BinaryExpression && COMPARISONS.has(parent.operator)) {
      return parent;
    }
    if (
      (parent.type === AST_NODE_TYPES.IfStatement ||
        parent.type === AST_NODE_TYPES.ConditionalExpression ||
        parent.type === AST_NODE_TYPES.WhileStatement) &&
      parent.test === child
    ) {
      return parent.test;
    }
    if (parent.type.endsWith('Statement') || parent.type === AST_NODE_TYPES.VariableDeclarator) {
      return undefined;
    }
  }
  return undefined;
}
