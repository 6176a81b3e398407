import { AST_NODE_TYPES } from '@typescript-eslint/types';
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import {
  descendantNodes,
  findVariable,
  isFunctionNode,
  parentOf,
  skipTransparentWrappers,
  staticMemberName,
  type VisitorKeys,
} from '../analysis/index.js';
import { mayTestForRefusal } from '../analysis/gates/index.js';
import { asSaveCall, refersToRuntimeExport, type SaveCall, writeConditionKind } from '../analysis/recognisers/index.js';
import { createRule, type CheckpointFencingRule } from '../create-rule.js';

/** Message ids of `no-retry-after-refusal`. */
export type NoRetryAfterRefusalMessageId = 'retryInCatch' | 'retryByLoop';

type SourceCode = Readonly<TSESLint.SourceCode>;
type Loop = TSESTree.WhileStatement | TSESTree.DoWhileStatement | TSESTree.ForStatement;

const REFUSAL_ERROR = 'CheckpointWriteConditionNotFulfilledError';

/** Reports writing a checkpoint again after the storage refused it with `CheckpointWriteConditionNotFulfilledError`. */
export const noRetryAfterRefusal: CheckpointFencingRule<NoRetryAfterRefusalMessageId, []> = createRule<
  [],
  NoRetryAfterRefusalMessageId
>({
  name: 'no-retry-after-refusal',
  meta: {
    type: 'problem',
    docs: {
      description: 'Disallow writing a checkpoint again after CheckpointWriteConditionNotFulfilledError refused it',
      recommended: true,
      requiresTypeChecking: false,
      usesTypeInformationWhenAsked: false,
    },
    messages: {
      retryInCatch:
        'This write repeats the checkpoint write that CheckpointWriteConditionNotFulfilledError just refused: the lease has moved on, ' +
        'and the retry {{outcome}}. Let the refusal propagate and stop processing the subscription on this worker.',
      retryByLoop:
        'This loop writes the same checkpoint again after CheckpointWriteConditionNotFulfilledError refused it: the lease has moved on, ' +
        'and the retry {{outcome}}. Rethrow or leave the loop when the write is refused.',
    },
    schema: [],
    defaultOptions: [],
  },
  create(context) {
    const { sourceCode } = context;
    if (!mayTestForRefusal(sourceCode)) {
      return {};
    }
    const keys = sourceCode.visitorKeys;
    return {
      CatchClause(handler) {
        if (handler.param?.type !== AST_NODE_TYPES.Identifier) {
          return;
        }
        const caught = findVariable(sourceCode.getScope(handler.body), handler.param);
        // Most catch blocks never test for a refusal; finding that out first keeps the rule cheap.
        const regions = caught === null ? [] : refusalRegions(handler.body, caught, sourceCode);
        if (regions.length === 0) {
          return;
        }
        const tryStatement = handler.parent;
        const writes = [...descendantNodes(tryStatement.block, keys, true)]
          .filter((node) => node.type === AST_NODE_TYPES.CallExpression)
          .map(asSaveCall)
          .filter((save) => save !== undefined);
        if (writes.length === 0) {
          return;
        }
        for (const region of regions) {
          for (const retry of saveCallsIn(region, keys)) {
            if (writes.some((write) => sameWrite(write, retry, sourceCode))) {
              context.report({
                node: retry.call,
                messageId: 'retryInCatch',
                data: { outcome: retryOutcome(retry, sourceCode) },
              });
            }
          }
        }
        const loop = retryLoopAround(tryStatement);
        if (loop === undefined || regions.some((region) => region.some((statement) => leavesLoop(statement, keys)))) {
          return;
        }
        const continues = regions.some((region) =>
          region.some((statement) => containsNode(statement, keys, isContinue)),
        );
        if (!continues && statementsAfterInLoop(tryStatement, loop).some((statement) => leavesLoop(statement, keys))) {
          return;
        }
        for (const write of writes) {
          if (writesSameValueEachPass(write, loop, sourceCode)) {
            context.report({
              node: write.call,
              messageId: 'retryByLoop',
              data: { outcome: retryOutcome(write, sourceCode) },
            });
          }
        }
      },
    };
  },
});

/**
 * What the repeated write does under its condition: a refused `notOlderThan` or `ifAbsent` is refused again, while
 * `any()` or no condition succeeds, which is worse, since it moves the new holder's checkpoint backward.
 */
function retryOutcome(retry: SaveCall, sourceCode: SourceCode): string {
  const condition = retry.call.arguments[2];
  switch (condition === undefined ? 'any' : writeConditionKind(condition, sourceCode)) {
    case 'any':
      return "writes unconditionally: it overwrites the new holder's newer checkpoint and moves the subscription backward";
    case 'notOlderThan':
      return 'is refused again with the same token, since the stored version is newer than the token';
    case 'ifAbsent':
      return 'is refused again, since a checkpoint is stored now';
    case undefined:
      return "is refused again under notOlderThan() or ifAbsent(), and under any() overwrites the new holder's newer checkpoint";
  }
}

/**
 * The statement lists that run only when the caught error is a refusal: the consequent of `if (refusal)`, the
 * alternate of `if (!refusal)`, and what follows `if (!refusal) throw e;`. A branch that does not always leave falls
 * through, so what follows it in the catch block runs after the refusal too and belongs to its region.
 */
function refusalRegions(
  body: TSESTree.BlockStatement,
  caught: TSESLint.Scope.Variable,
  sourceCode: SourceCode,
): TSESTree.Statement[][] {
  const regions: TSESTree.Statement[][] = [];
  const visit = (statements: readonly TSESTree.Statement[], rest: readonly TSESTree.Statement[]): void => {
    statements.forEach((statement, index) => {
      const following = [...statements.slice(index + 1), ...rest];
      const branch = (taken: TSESTree.Statement): TSESTree.Statement[] =>
        alwaysLeaves(taken) ? asList(taken) : [...asList(taken), ...following];
      if (statement.type === AST_NODE_TYPES.BlockStatement) {
        visit(statement.body, following);
        return;
      }
      if (statement.type !== AST_NODE_TYPES.IfStatement) {
        return;
      }
      const polarity = refusalPolarity(statement.test, caught, sourceCode);
      if (polarity === 'refusal') {
        regions.push(branch(statement.consequent));
      } else if (polarity === 'notRefusal') {
        if (statement.alternate !== null) {
          regions.push(branch(statement.alternate));
        }
        if (alwaysLeaves(statement.consequent)) {
          regions.push(following);
        }
      } else {
        visit(asList(statement.consequent), following);
        if (statement.alternate !== null) {
          visit(asList(statement.alternate), following);
        }
      }
    });
  };
  visit(body.body, []);
  return regions;
}

function asList(statement: TSESTree.Statement): TSESTree.Statement[] {
  return statement.type === AST_NODE_TYPES.BlockStatement ? statement.body : [statement];
}

/** Whether a branch ends in a jump, so that what follows it never runs after it. */
function alwaysLeaves(statement: TSESTree.Statement): boolean {
  const last = asList(statement).at(-1)?.type;
  return (
    last === AST_NODE_TYPES.ThrowStatement ||
    last === AST_NODE_TYPES.ReturnStatement ||
    last === AST_NODE_TYPES.ContinueStatement ||
    last === AST_NODE_TYPES.BreakStatement
  );
}

function saveCallsIn(region: readonly TSESTree.Statement[], keys: VisitorKeys): SaveCall[] {
  return region
    .flatMap((statement) => [statement, ...descendantNodes(statement, keys, false)])
    .filter((node) => node.type === AST_NODE_TYPES.CallExpression)
    .map(asSaveCall)
    .filter((save) => save !== undefined);
}

/** The same receiver and the same checkpoint, as written. */
function sameWrite(tried: SaveCall, retried: SaveCall, sourceCode: SourceCode): boolean {
  const [, triedCheckpoint] = tried.call.arguments;
  const [, retriedCheckpoint] = retried.call.arguments;
  return (
    triedCheckpoint !== undefined &&
    retriedCheckpoint !== undefined &&
    sourceCode.getText(tried.receiver) === sourceCode.getText(retried.receiver) &&
    sourceCode.getText(triedCheckpoint) === sourceCode.getText(retriedCheckpoint)
  );
}

/** A `while`, `do … while` or `for (;;)` loop around `node` in the same function; `for … of/in` walk items, not retries. */
function retryLoopAround(node: TSESTree.Node): Loop | undefined {
  for (let current = parentOf(node); current !== undefined && !isFunctionNode(current); current = parentOf(current)) {
    if (
      current.type === AST_NODE_TYPES.WhileStatement ||
      current.type === AST_NODE_TYPES.DoWhileStatement ||
      current.type === AST_NODE_TYPES.ForStatement
    ) {
      return current;
    }
    if (current.type === AST_NODE_TYPES.ForOfStatement || current.type === AST_NODE_TYPES.ForInStatement) {
      return undefined;
    }
  }
  return undefined;
}

/** Whether a statement may end the loop or the function: any `throw`, `return` or `break` in it. */
function leavesLoop(statement: TSESTree.Node, keys: VisitorKeys): boolean {
  return containsNode(
    statement,
    keys,
    (node) =>
      node.type === AST_NODE_TYPES.ThrowStatement ||
      node.type === AST_NODE_TYPES.ReturnStatement ||
      node.type === AST_NODE_TYPES.BreakStatement,
  );
}

function isContinue(node: TSESTree.Node): boolean {
  return node.type === AST_NODE_TYPES.ContinueStatement;
}

function containsNode(root: TSESTree.Node, keys: VisitorKeys, predicate: (node: TSESTree.Node) => boolean): boolean {
  if (predicate(root)) {
    return true;
  }
  for (const node of descendantNodes(root, keys, true)) {
    if (predicate(node)) {
      return true;
    }
  }
  return false;
}

/** The statements of the loop body that run after the try statement (that holds `tryStatement`) in one pass. */
function statementsAfterInLoop(tryStatement: TSESTree.TryStatement, loop: Loop): TSESTree.Statement[] {
  const after: TSESTree.Statement[] = [];
  let child: TSESTree.Node = tryStatement;
  let parent = parentOf(tryStatement);
  while (parent !== undefined && parent !== loop) {
    if (parent.type === AST_NODE_TYPES.BlockStatement) {
      after.push(...parent.body.slice(parent.body.indexOf(child as TSESTree.Statement) + 1));
    }
    child = parent;
    parent = parentOf(parent);
  }
  return after;
}

/** Whether the write's arguments name only bindings from outside the loop, so each pass writes the same checkpoint. */
function writesSameValueEachPass(write: SaveCall, loop: Loop, sourceCode: SourceCode): boolean {
  return write.call.arguments.every((argument) =>
    [argument, ...descendantNodes(argument, sourceCode.visitorKeys, false)].every((node) => {
      if (node.type !== AST_NODE_TYPES.Identifier || isPropertyName(node)) {
        return true;
      }
      const variable = findVariable(sourceCode.getScope(node), node);
      const declared = variable?.defs[0]?.name.range[0];
      return declared === undefined || declared < loop.range[0] || declared > loop.range[1];
    }),
  );
}

function isPropertyName(identifier: TSESTree.Identifier): boolean {
  const parent = identifier.parent;
  return (
    (parent.type === AST_NODE_TYPES.MemberExpression && parent.property === identifier && !parent.computed) ||
    (parent.type === AST_NODE_TYPES.Property && parent.key === identifier && !parent.computed)
  );
}

/** What a test being true says about the caught error. */
type RefusalPolarity = 'refusal' | 'notRefusal' | 'unknown';

/**
 * What `test` says about `caught` (the catch parameter): `e instanceof CheckpointWriteConditionNotFulfilledError`
 * (the checkpoint-fencing import, aliased or via a namespace) and `e.name === 'CheckpointWriteConditionNotFulfilledError'`
 * say refusal; their negations, `!==` and `!(...)`, say not-refusal; `a && refusal` says refusal.
 */
function refusalPolarity(
  test: TSESTree.Node,
  caught: TSESLint.Scope.Variable,
  sourceCode: SourceCode,
): RefusalPolarity {
  const node = skipTransparentWrappers(test);
  if (node.type === AST_NODE_TYPES.UnaryExpression && node.operator === '!') {
    const inner = refusalPolarity(node.argument, caught, sourceCode);
    return inner === 'refusal' ? 'notRefusal' : inner === 'notRefusal' ? 'refusal' : 'unknown';
  }
  if (node.type === AST_NODE_TYPES.LogicalExpression && node.operator === '&&') {
    const sides = [refusalPolarity(node.left, caught, sourceCode), refusalPolarity(node.right, caught, sourceCode)];
    return sides.includes('refusal') ? 'refusal' : 'unknown';
  }
  if (node.type !== AST_NODE_TYPES.BinaryExpression) {
    return 'unknown';
  }
  if (node.operator === 'instanceof') {
    // Most files do not import checkpoint-fencing at all, which the export check sees at once.
    return refersToRuntimeExport(node.right, REFUSAL_ERROR, sourceCode.getScope(node)) &&
      isCaught(node.left, caught, sourceCode)
      ? 'refusal'
      : 'unknown';
  }
  if (!['===', '==', '!==', '!='].includes(node.operator)) {
    return 'unknown';
  }
  const sides = [node.left, node.right];
  const namesRefusal = sides.some((side) => side.type === AST_NODE_TYPES.Literal && side.value === REFUSAL_ERROR);
  if (!namesRefusal) {
    return 'unknown';
  }
  const readsCaughtName = sides.some((side) => {
    const member = skipTransparentWrappers(side);
    return (
      member.type === AST_NODE_TYPES.MemberExpression &&
      staticMemberName(member) === 'name' &&
      isCaught(member.object, caught, sourceCode)
    );
  });
  if (!readsCaughtName) {
    return 'unknown';
  }
  return node.operator.startsWith('!') ? 'notRefusal' : 'refusal';
}

function isCaught(node: TSESTree.Node, caught: TSESLint.Scope.Variable, sourceCode: SourceCode): boolean {
  const target = skipTransparentWrappers(node);
  return target.type === AST_NODE_TYPES.Identifier && findVariable(sourceCode.getScope(target), target) === caught;
}
