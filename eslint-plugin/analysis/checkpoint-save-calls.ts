import { AST_NODE_TYPES, type TSESTree } from '@typescript-eslint/utils';
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
