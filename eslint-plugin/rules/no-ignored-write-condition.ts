import { AST_NODE_TYPES } from '@typescript-eslint/types';
import type { TSESTree } from '@typescript-eslint/utils';
import {
  classImplementingCheckpointStorage,
  objectImplementingCheckpointStorage,
  type CheckpointStorageImplementation,
} from '../analysis/checkpoint-storage-implementations.js';
import { typeInformationFor } from '../analysis/type-information.js';
import { createRule, type CheckpointFencingRule } from '../create-rule.js';

/** Options of `no-ignored-write-condition`. */
export interface NoIgnoredWriteConditionOptions {
  /** Recognise implementations by their types (re-exported interfaces, contextually typed object literals). */
  readonly useTypeInformation?: boolean;
}

/** Message ids of `no-ignored-write-condition`. */
export type NoIgnoredWriteConditionMessageId =
  'saveIgnoresCondition' | 'inheritedSaveIgnoresCondition' | 'missingWriteVersion';

const defaults = { useTypeInformation: false } satisfies Required<NoIgnoredWriteConditionOptions>;

/** Reports a `CheckpointStorage` implementation whose `save` drops the write condition or that lacks `writeVersion`. */
export const noIgnoredWriteCondition: CheckpointFencingRule<
  NoIgnoredWriteConditionMessageId,
  [NoIgnoredWriteConditionOptions]
> = createRule<[NoIgnoredWriteConditionOptions], NoIgnoredWriteConditionMessageId>({
  name: 'no-ignored-write-condition',
  meta: {
    type: 'problem',
    docs: {
      description: 'Disallow CheckpointStorage implementations that silently ignore the write condition',
      recommended: true,
      requiresTypeChecking: false,
      usesTypeInformationWhenAsked: true,
    },
    messages: {
      saveIgnoresCondition:
        'This CheckpointStorage save() declares {{count}} of its three parameters, so it never sees the write condition and fencing is silently off. ' +
        'Take (subscriptionId, checkpoint, condition) and evaluate the condition atomically with the write; `npx checkpoint-fencing upgrade` adds it.',
      inheritedSaveIgnoresCondition:
        'This CheckpointStorage inherits save() from {{base}}, which declares {{count}} of its three parameters, so it never sees the write condition and fencing is silently off. ' +
        'Override save to take (subscriptionId, checkpoint, condition) and evaluate the condition atomically with the write; `npx checkpoint-fencing upgrade` adds it.',
      missingWriteVersion:
        'This CheckpointStorage has no writeVersion(), so no write condition can be judged and fencing is silently off. ' +
        'Store a version with each checkpoint and read it back in writeVersion(subscriptionId); `npx checkpoint-fencing upgrade` adds it.',
    },
    schema: [
      {
        type: 'object',
        properties: {
          useTypeInformation: { type: 'boolean', description: 'Recognise implementations by their types.' },
        },
        additionalProperties: false,
      },
    ],
    defaultOptions: [defaults],
  },
  create(context, [options]) {
    const types = typeInformationFor(context, options.useTypeInformation ?? defaults.useTypeInformation);
    const check = (implementation: CheckpointStorageImplementation | undefined): void => {
      if (implementation === undefined) {
        return;
      }
      const save = implementation.methods.get('save');
      const inherited = implementation.inherited;
      if (save !== undefined && !acceptsThirdArgument(save)) {
        context.report({ node: saveKey(save), messageId: 'saveIgnoresCondition', data: { count: save.params.length } });
      } else if (
        save === undefined &&
        !implementation.memberNames.has('save') &&
        inherited !== undefined &&
        !inherited.unseenBase &&
        inherited.save?.acceptsCondition === false
      ) {
        context.report({
          node: implementation.reportNode,
          messageId: 'inheritedSaveIgnoresCondition',
          data: { base: inherited.save.from, count: inherited.save.parameterCount },
        });
      }
      const lacksWriteVersion =
        !implementation.memberNames.has('writeVersion') &&
        (inherited === undefined
          ? !implementation.mayInheritMembers
          : !inherited.unseenBase && !inherited.writeVersionCovered);
      if (lacksWriteVersion) {
        context.report({ node: implementation.reportNode, messageId: 'missingWriteVersion' });
      }
    };
    return {
      'ClassDeclaration, ClassExpression'(classNode: TSESTree.ClassDeclaration | TSESTree.ClassExpression) {
        check(classImplementingCheckpointStorage(classNode, context.sourceCode.getScope(classNode), types));
      },
      ObjectExpression(object) {
        check(objectImplementingCheckpointStorage(object, context.sourceCode.getScope(object), types));
      },
    };
  },
});

function acceptsThirdArgument(save: TSESTree.FunctionLike): boolean {
  return save.params.length >= 3 || save.params.some((parameter) => parameter.type === AST_NODE_TYPES.RestElement);
}

/** The `save` key of the method or property, so the report points at the member, not its whole body. */
function saveKey(save: TSESTree.FunctionLike): TSESTree.Node {
  const member = save.parent;
  return member.type === AST_NODE_TYPES.MethodDefinition ||
    member.type === AST_NODE_TYPES.Property ||
    member.type === AST_NODE_TYPES.PropertyDefinition ||
    member.type === AST_NODE_TYPES.TSAbstractMethodDefinition
    ? member.key
    : save;
}
