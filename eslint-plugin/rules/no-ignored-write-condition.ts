import { AST_NODE_TYPES } from '@typescript-eslint/types';
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import {
  isFunctionNode,
  parameterBinding,
  parameterVariables,
  skipTransparentWrappers,
  staticMemberName,
  staticPropertyKeyName,
  type TypeInformation,
  typeInformationFor,
} from '../analysis/index.js';
import { mayImplementCheckpointStorage } from '../analysis/gates/index.js';
import {
  classImplementing,
  type ContractImplementation,
  type InheritedMembers,
  inheritedMembers,
  objectImplementing,
} from '../analysis/recognisers/index.js';
import { createRule, type CheckpointFencingRule } from '../create-rule.js';
import { asOneFix, fixContext, storageUpgrade, type StorageUpgrade } from '../fixes/index.js';

/** Options of `no-ignored-write-condition`. */
export interface NoIgnoredWriteConditionOptions {
  /** Recognise implementations by their types (re-exported interfaces, contextually typed object literals). */
  readonly useTypeInformation?: boolean;
}

/** Message ids of `no-ignored-write-condition`. */
export type NoIgnoredWriteConditionMessageId =
  | 'saveIgnoresCondition'
  | 'saveNeverReadsCondition'
  | 'inheritedSaveIgnoresCondition'
  | 'missingWriteVersion'
  | 'upgradeStorage';

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
    hasSuggestions: true,
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
      upgradeStorage:
        'Make the edit `npx checkpoint-fencing-codemod upgrade` makes here: {{change}}, under a TODO to evaluate conditions atomically.',
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
    const fixes = fixContext(context, types);
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
      // The codemod's edit of the storage, offered on each report it clears: written once, and only on a report.
      let suggestions: Suggestion[] | undefined;
      const suggest = () =>
        (suggestions ??= upgradeSuggestions(storageUpgrade(implementation, assigned, fixes), context.sourceCode.text));
      const declaredSave = implementation.methods.get('save');
      const assignedSave = declaredSave === undefined ? assigned.get('save') : undefined;
      const save = declaredSave ?? assignedSave?.value;
      const condition = save === undefined ? undefined : conditionParameter(save);
      if (save !== undefined && condition === undefined) {
        context.report({
          node: assignedSave?.key ?? saveKey(save),
          messageId: 'saveIgnoresCondition',
          data: { count: argumentParameters(save).length },
          suggest: suggest(),
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
        context.report({ node: implementation.reportNode, messageId: 'missingWriteVersion', suggest: suggest() });
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
        check(objectImplementing('CheckpointStorage', object, context.sourceCode.getScope(object), types), undefined);
      },
    };
  },
});

type Suggestion = TSESLint.SuggestionReportDescriptor<NoIgnoredWriteConditionMessageId>;

/** The suggestion that makes the codemod's edit of a storage, where the fix writes one. */
function upgradeSuggestions(upgrade: StorageUpgrade | undefined, text: string): Suggestion[] {
  return upgrade === undefined
    ? []
    : [
        {
          messageId: 'upgradeStorage',
          data: { change: upgrade.change },
          fix: (fixer) => asOneFix(fixer, text, upgrade.edits),
        },
      ];
}

/** With types, what a storage class gets from its base classes. */
function inheritedFrom(
  classNode: TSESTree.ClassDeclaration | TSESTree.ClassExpression,
  types: TypeInformation | undefined,
): InheritedMembers | undefined {
  return types === undefined || classNode.superClass === null
    ? undefined
    : inheritedMembers(types.esTreeNodeToTSNodeMap.get(classNode), types.program);
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
  const target = parameterBinding(parameter);
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

/** A member a class gives its value as an instance is made, instead of declaring it as a method. */
interface AssignedMember {
  /** Where the value is given: the field's key, or the property of `this.name = …` in the constructor. */
  readonly key: TSESTree.Node;
  /**
   * The function the member gets where the rules can see it: one written there, or a method of the class bound to the
   * instance (`this.method.bind(this)`). `undefined` for any other value (a parameter, an import, a call's result),
   * which says nothing about the member.
   */
  readonly value: TSESTree.FunctionLike | undefined;
}

/**
 * The members `classNode` assigns instead of declaring as methods, by name: a field whose initialiser is not itself a
 * function (`save = this.write.bind(this)`), and `this.name = …` among the constructor's own statements, which runs
 * after the field initialisers and so wins. `methods` are the class's own methods by name, where a bound one is looked
 * up: the house style that types fields from the contract (`save: CheckpointStorage['save']`) and fills them in the
 * constructor.
 */
function assignedMembers(
  classNode: TSESTree.ClassDeclaration | TSESTree.ClassExpression,
  methods: ReadonlyMap<string, TSESTree.FunctionLike>,
): ReadonlyMap<string, AssignedMember> {
  const assigned = new Map<string, AssignedMember>();
  let constructorBody: readonly TSESTree.Statement[] = [];
  for (const element of classNode.body.body) {
    if (element.type === AST_NODE_TYPES.MethodDefinition && element.kind === 'constructor') {
      constructorBody = element.value.body?.body ?? [];
    } else if (element.type === AST_NODE_TYPES.PropertyDefinition && !element.static && element.value !== null) {
      const name = staticPropertyKeyName(element.key, element.computed);
      if (name !== undefined && !methods.has(name)) {
        assigned.set(name, { key: element.key, value: functionOf(element.value, methods) });
      }
    }
  }
  for (const statement of constructorBody) {
    const assignment = statement.type === AST_NODE_TYPES.ExpressionStatement ? statement.expression : undefined;
    if (
      assignment?.type !== AST_NODE_TYPES.AssignmentExpression ||
      assignment.operator !== '=' ||
      assignment.left.type !== AST_NODE_TYPES.MemberExpression ||
      assignment.left.object.type !== AST_NODE_TYPES.ThisExpression
    ) {
      continue;
    }
    const name = staticMemberName(assignment.left);
    if (name !== undefined) {
      assigned.set(name, { key: assignment.left.property, value: functionOf(assignment.right, methods) });
    }
  }
  return assigned;
}

/** The function `value` is: itself, or the class's method it binds to the instance, with no argument fixed. */
function functionOf(
  value: TSESTree.Expression,
  methods: ReadonlyMap<string, TSESTree.FunctionLike>,
): TSESTree.FunctionLike | undefined {
  const node = skipTransparentWrappers(value);
  if (isFunctionNode(node)) {
    return node;
  }
  if (node.type !== AST_NODE_TYPES.CallExpression || node.callee.type !== AST_NODE_TYPES.MemberExpression) {
    return undefined;
  }
  const bound = skipTransparentWrappers(node.callee.object);
  // `bind(this, id)` fixes leading arguments, which shifts which parameter the condition lands in.
  const bindsToInstance =
    staticMemberName(node.callee) === 'bind' &&
    node.arguments.length === 1 &&
    node.arguments[0]?.type === AST_NODE_TYPES.ThisExpression;
  const name =
    bindsToInstance &&
    bound.type === AST_NODE_TYPES.MemberExpression &&
    bound.object.type === AST_NODE_TYPES.ThisExpression
      ? staticMemberName(bound)
      : undefined;
  return name === undefined ? undefined : methods.get(name);
}
