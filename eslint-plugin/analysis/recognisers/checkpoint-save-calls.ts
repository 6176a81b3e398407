import { AST_NODE_TYPES } from '@typescript-eslint/types';
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { skipTransparentWrappers, staticMemberName } from '../static-member-name.js';
import { refersToRuntimeExport } from './checkpoint-fencing-imports.js';

/** A `receiver.save(...)` call in any spelling: `a.save()`, `a?.save()`, `a['save']()`, `this.#a.save()`. */
export interface SaveCall {
  readonly call: TSESTree.CallExpression;
  readonly receiver: TSESTree.Expression;
}

/** `call` as a save call, or `undefined` when it calls anything else. */
export function asSaveCall(call: TSESTree.CallExpression): SaveCall | undefined {
  const callee = skipTransparentWrappers(call.callee);
  if (callee.type !== AST_NODE_TYPES.MemberExpression || staticMemberName(callee) !== 'save') {
    return undefined;
  }
  return { call, receiver: callee.object };
}

/** The write conditions `CheckpointWriteCondition` makes, by the name of the factory that makes each. */
export type WriteConditionKind = 'any' | 'notOlderThan' | 'ifAbsent';

/**
 * Which `CheckpointWriteCondition` factory of checkpoint-fencing (aliased, or through a namespace) made `condition`,
 * or `undefined` when it is anything else: a variable, a call of another function.
 */
export function writeConditionKind(
  condition: TSESTree.Node,
  sourceCode: Readonly<TSESLint.SourceCode>,
): WriteConditionKind | undefined {
  const made = skipTransparentWrappers(condition);
  if (made.type !== AST_NODE_TYPES.CallExpression) {
    return undefined;
  }
  const factory = skipTransparentWrappers(made.callee);
  if (
    factory.type !== AST_NODE_TYPES.MemberExpression ||
    !refersToRuntimeExport(factory.object, 'CheckpointWriteCondition', sourceCode.getScope(factory))
  ) {
    return undefined;
  }
  const name = staticMemberName(factory);
  const argumentCount = name === 'notOlderThan' ? 1 : 0;
  return (name === 'any' || name === 'notOlderThan' || name === 'ifAbsent') && made.arguments.length === argumentCount
    ? name
    : undefined;
}

/** Whether `condition` is `CheckpointWriteCondition.any()` of checkpoint-fencing (aliased, or through a namespace). */
export function isAnyCondition(condition: TSESTree.Node, sourceCode: Readonly<TSESLint.SourceCode>): boolean {
  return writeConditionKind(condition, sourceCode) === 'any';
}
