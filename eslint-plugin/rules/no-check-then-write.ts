import { AST_NODE_TYPES } from '@typescript-eslint/types';
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { isAnyCondition } from '../analysis/checkpoint-save-calls.js';
import {
  classImplementing,
  objectImplementing,
  type ContractImplementation,
} from '../analysis/contract-implementations.js';
import { descendantNodes, parentOf } from '../analysis/descendant-nodes.js';
import { skipTransparentWrappers } from '../analysis/static-member-name.js';
import {
  ATOMIC_STEP_METHODS,
  calleeName,
  hasSqlVersionGuard,
  isSqlRead,
  isSqlWrite,
  sqlStatementOf,
  STORE_READ_METHODS,
  STORE_WRITE_METHODS,
} from '../analysis/store-calls.js';
import { createRule, type CheckpointFencingRule } from '../create-rule.js';

/** Message ids of `no-check-then-write`. */
export type NoCheckThenWriteMessageId = 'checkThenWrite';

/** Calls that read the stored version or checkpoint: the storage's own, and those of the backends it wraps. */
const READ_METHODS: ReadonlySet<string> = new Set<string>([...STORE_READ_METHODS, 'writeVersion']);
const COMPARISONS: ReadonlySet<string> = new Set(['===', '!==', '==', '!=', '<', '<=', '>', '>=']);

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
    const check = (implementation: ContractImplementation | undefined): void => {
      for (const method of implementation?.methods.values() ?? []) {
        if (method.async && method.body?.type === AST_NODE_TYPES.BlockStatement) {
          reportCheckThenWrite(method.body, context, sourceCode);
        }
      }
    };
    return {
      'ClassDeclaration, ClassExpression'(classNode: TSESTree.ClassDeclaration | TSESTree.ClassExpression) {
        check(classImplementing('CheckpointStorage', classNode, sourceCode.getScope(classNode), undefined));
      },
      ObjectExpression(object) {
        check(objectImplementing('CheckpointStorage', 'save', object, sourceCode.getScope(object), undefined));
      },
    };
  },
});

function reportCheckThenWrite(
  body: TSESTree.BlockStatement,
  context: Readonly<TSESLint.RuleContext<NoCheckThenWriteMessageId, []>>,
  sourceCode: SourceCode,
): void {
  const nodes = [...descendantNodes(body, sourceCode.visitorKeys, true)];
  const calls = nodes.filter((node) => node.type === AST_NODE_TYPES.CallExpression);
  if (calls.some((call) => ATOMIC_STEP_METHODS.has(calleeName(call) ?? ''))) {
    return;
  }
  const comparedReads = nodes
    .filter((node) => node.type === AST_NODE_TYPES.AwaitExpression)
    .map((awaited) => ({ awaited, read: skipTransparentWrappers(awaited.argument) }))
    .filter(({ read }) => read.type === AST_NODE_TYPES.CallExpression && isStoredStateRead(read, sourceCode))
    .map(({ awaited, read }) => ({ read, comparedAt: comparisonOf(awaited, sourceCode) }))
    .filter(
      (entry): entry is { read: TSESTree.CallExpression; comparedAt: TSESTree.Node } => entry.comparedAt !== undefined,
    );
  const first = comparedReads[0];
  if (first === undefined) {
    return;
  }
  const write = calls.find((call) => call.range[0] > first.comparedAt.range[0] && isSeparateWrite(call, sourceCode));
  if (write !== undefined) {
    context.report({
      node: write,
      messageId: 'checkThenWrite',
      data: { read: sourceCode.getText(first.read.callee), line: first.read.loc.start.line },
    });
  }
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
