import { AST_NODE_TYPES } from '@typescript-eslint/types';
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { assignedMembers, type AssignedMember } from '../analysis/assigned-members.js';
import {
  classImplementing,
  objectImplementing,
  type ContractImplementation,
} from '../analysis/contract-implementations.js';
import { parameterVariables } from '../analysis/parameter-variables.js';
import { mayImplementCheckpointStorage } from '../analysis/storage-text-gate.js';
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
  'saveIgnoresCondition' | 'saveNeverReadsCondition' | 'inheritedSaveIgnoresCondition' | 'missingWriteVersion';

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
        'Take (subscriptionId, checkpoint, condition) and evaluate the condition atomically with the write; `npx checkpoint-fencing-codemod upgrade` adds it.',
      saveNeverReadsCondition:
        'This CheckpointStorage save() takes the write condition as `{{name}}` but never reads it, so every condition is ignored and fencing is silently off. ' +
        'Evaluate `{{name}}` atomically with the write; if this store cannot, refuse every condition but any() with `throw new UnsupportedWriteConditionError({{name}})`, as the save `npx checkpoint-fencing-codemod upgrade` generates does.',
      inheritedSaveIgnoresCondition:
        'This CheckpointStorage inherits save() from {{base}}, which declares {{count}} of its three parameters, so it never sees the write condition and fencing is silently off. ' +
        'Override save to take (subscriptionId, checkpoint, condition) and evaluate the condition atomically with the write; `npx checkpoint-fencing-codemod upgrade` adds it.',
      missingWriteVersion:
        'This CheckpointStorage has no writeVersion(), so no write condition can be judged and fencing is silently off. ' +
        'Store a version with each checkpoint and read it back in writeVersion(subscriptionId); `npx checkpoint-fencing-codemod upgrade` adds it.',
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
    if (!mayImplementCheckpointStorage(context.sourceCode, types)) {
      return {};
    }
    const check = (
      implementation: ContractImplementation | undefined,
      inherited: InheritedMembers | undefined,
    ): void => {
      if (implementation === undefined) {
        return;
      }
      const assigned =
        implementation.node.type === AST_NODE_TYPES.ObjectExpression
          ? new Map<string, AssignedMember>()
          : assignedMembers(implementation.node, implementation.methods);
      const declaredSave = implementation.methods.get('save');
      const assignedSave = declaredSave === undefined ? assigned.get('save') : undefined;
      const save = declaredSave ?? assignedSave?.value;
      const condition = save === undefined ? undefined : conditionParameter(save);
      if (save !== undefined && condition === undefined) {
        context.report({
          node: assignedSave?.key ?? saveKey(save),
          messageId: 'saveIgnoresCondition',
          data: { count: argumentParameters(save).length },
        });
      } else if (save !== undefined && condition !== undefined && neverReads(save, condition, context.sourceCode)) {
        context.report({
          node: condition,
          messageId: 'saveNeverReadsCondition',
          data: { name: parameterName(condition, context.sourceCode) },
        });
      } else if (
        save === undefined &&
        !implementation.memberNames.has('save') &&
        !assigned.has('save') &&
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
        !assigned.has('writeVersion') &&
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

/** The parameters callers pass arguments to: a TypeScript `this` parameter only types the receiver. */
function argumentParameters(save: TSESTree.FunctionLike): TSESTree.Parameter[] {
  return save.params.filter(
    (parameter) => !(parameter.type === AST_NODE_TYPES.Identifier && parameter.name === 'this'),
  );
}

/** The parameter the condition (the third argument) lands in: the third one, or a rest parameter before it. */
function conditionParameter(save: TSESTree.FunctionLike): TSESTree.Parameter | undefined {
  const parameters = argumentParameters(save);
  return parameters.slice(0, 3).find((parameter) => parameter.type === AST_NODE_TYPES.RestElement) ?? parameters[2];
}

/**
 * Whether `save` has a body that never reads the parameter `condition` (no name it binds is read; `arguments` is not
 * used). A body-less declaration (abstract, overload, `declare`) says nothing either way.
 */
function neverReads(
  save: TSESTree.FunctionLike,
  condition: TSESTree.Parameter,
  sourceCode: Readonly<TSESLint.SourceCode>,
): boolean {
  if (save.body === null || save.body === undefined) {
    return false;
  }
  const readsBinding = parameterVariables(save, condition, sourceCode).some((variable) =>
    variable.references.some((reference) => reference.isRead()),
  );
  const argumentsObject = sourceCode.getScope(save).set.get('arguments');
  return !readsBinding && (argumentsObject === undefined || argumentsObject.references.length === 0);
}

/** How the message names the parameter: its name, or its pattern's text for a destructured one. */
function parameterName(parameter: TSESTree.Parameter, sourceCode: Readonly<TSESLint.SourceCode>): string {
  const target =
    parameter.type === AST_NODE_TYPES.AssignmentPattern
      ? parameter.left
      : parameter.type === AST_NODE_TYPES.RestElement
        ? parameter.argument
        : parameter;
  if (target.type === AST_NODE_TYPES.Identifier) {
    return target.name;
  }
  const annotation = 'typeAnnotation' in target ? target.typeAnnotation : undefined;
  return sourceCode.text.slice(target.range[0], annotation?.range[0] ?? target.range[1]).trim();
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
