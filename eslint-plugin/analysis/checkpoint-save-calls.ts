import { AST_NODE_TYPES } from '@typescript-eslint/types';
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { refersToRuntimeExport } from './checkpoint-fencing-imports.js';
import { skipTransparentWrappers, staticMemberName } from './static-member-name.js';

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

/** Whether `condition` is `CheckpointWriteCondition.any()` of checkpoint-fencing (aliased, or through a namespace). */
export function isAnyCondition(condition: TSESTree.Node, sourceCode: Readonly<TSESLint.SourceCode>): boolean {
  const made = skipTransparentWrappers(condition);
  if (made.type !== AST_NODE_TYPES.CallExpression || made.arguments.length !== 0) {
    return false;
  }
  const factory = skipTransparentWrappers(made.callee);
  return (
    factory.type === AST_NODE_TYPES.MemberExpression &&
    staticMemberName(factory) === 'any' &&
    refersToRuntimeExport(factory.object, 'CheckpointWriteCondition', sourceCode.getScope(factory))
  );
}
