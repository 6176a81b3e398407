import { AST_NODE_TYPES } from '@typescript-eslint/types';
import type { TSESTree } from '@typescript-eslint/utils';
import {
  classImplementing,
  objectImplementing,
  type ContractImplementation,
} from '../analysis/contract-implementations.js';
import { inheritedMembers, type InheritedMembers } from '../analysis/storage-types.js';
import { typeInformationFor, type TypeInformation } from '../analysis/type-information.js';
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
    const check = (
      implementation: ContractImplementation | undefined,
      inherited: InheritedMembers | undefined,
    ): void => {
      if (implementation === undefined) {
        return;
      }
      const save = implementation.methods.get('save');
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
        const implementation = classImplementing(
          'CheckpointStorage',
          classNode,
          context.sourceCode.getScope(classNode),
          types,
        );
        check(implementation, implementation === undefined ? undefined : inheritedFrom(classNode, types));
      },
      ObjectExpression(object) {
        check(
          objectImplementing('CheckpointStorage', 'save', object, context.sourceCode.getScope(object), types),
          undefined,
        );
      },
    };
  },
});

/** With types, what a storage class gets from its base classes. */
function inheritedFrom(
  classNode: TSESTree.ClassDeclaration | TSESTree.ClassExpression,
  types: TypeInformation | undefined,
): InheritedMembers | undefined {
  return types === undefined || classNode.superClass === null
    ? undefined
    : inheritedMembers(types.esTreeNodeToTSNodeMap.get(classNode), types.program.getTypeChecker());
}

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
