import { AST_NODE_TYPES } from '@typescript-eslint/types';
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { findVariable } from './find-variable.js';
import { refersToRuntimeExport } from './checkpoint-fencing-imports.js';
import { spelledNamesPattern } from './spelled-names.js';
import { skipTransparentWrappers, staticMemberName } from './static-member-name.js';

const REFUSAL_ERROR = 'CheckpointWriteConditionNotFulfilledError';

/**
 * Whether a file's text can hold a test {@link refusalPolarity} recognises: each names the error class, through the
 * checkpoint-fencing import (aliased or not, or a namespace's member) or in a string compared with `error.name`,
 * unless an escape spells it, and any such escape keeps the file in. A file without one cannot report a retry after a
 * refusal, so the rule registers no listener there (ADR 0309).
 */
export function mayTestForRefusal(sourceCode: Readonly<TSESLint.SourceCode>): boolean {
  return REFUSAL_TEXT.test(sourceCode.text);
}

const REFUSAL_TEXT = spelledNamesPattern([REFUSAL_ERROR]);

/** What a test being true says about the caught error. */
export type RefusalPolarity = 'refusal' | 'notRefusal' | 'unknown';

/**
 * What `test` says about `caught` (the catch parameter): `e instanceof CheckpointWriteConditionNotFulfilledError`
 * (the checkpoint-fencing import, aliased or via a namespace) and `e.name === 'CheckpointWriteConditionNotFulfilledError'`
 * say refusal; their negations, `!==` and `!(...)`, say not-refusal; `a && refusal` says refusal.
 */
export function refusalPolarity(
  test: TSESTree.Node,
  caught: TSESLint.Scope.Variable,
  sourceCode: Readonly<TSESLint.SourceCode>,
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

function isCaught(
  node: TSESTree.Node,
  caught: TSESLint.Scope.Variable,
  sourceCode: Readonly<TSESLint.SourceCode>,
): boolean {
  const target = skipTransparentWrappers(node);
  return target.type === AST_NODE_TYPES.Identifier && findVariable(sourceCode.getScope(target), target) === caught;
}
