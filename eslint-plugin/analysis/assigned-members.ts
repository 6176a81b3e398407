import { AST_NODE_TYPES } from '@typescript-eslint/types';
import type { TSESTree } from '@typescript-eslint/utils';
import { isFunctionNode } from './descendant-nodes.js';
import { skipTransparentWrappers, staticMemberName, staticPropertyKeyName } from './static-member-name.js';

/** A member a class gives its value as an instance is made, instead of declaring it as a method. */
export interface AssignedMember {
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
export function assignedMembers(
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
