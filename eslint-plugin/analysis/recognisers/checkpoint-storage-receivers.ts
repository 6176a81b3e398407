import { AST_NODE_TYPES } from '@typescript-eslint/types';
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { enclosingClass } from '../descendant-nodes.js';
import { findVariable, isParameter, isVariable } from '../scope-variables.js';
import { skipTransparentWrappers, staticMemberName, staticName, staticPropertyKeyName } from '../static-member-name.js';
import type { TypeInformation } from '../type-information.js';
import { refersToRuntimeExport, typeAnnotationNamesRuntimeExport } from './checkpoint-fencing-imports.js';
import { isCheckpointStorageType } from './storage-types.js';

/** How a rule decides that the receiver of a `save` call is a checkpoint storage. */
export interface StorageRecognition {
  /** Syntactic fallback for receivers whose declaration says nothing: matched against the receiver's name. */
  readonly storagePattern: RegExp;
  /** Present in `useTypeInformation` mode: then the receiver's type alone decides. */
  readonly types: TypeInformation | undefined;
}

type Scope = TSESLint.Scope.Scope;

/** What a receiver's own declaration says it is. */
type DeclaredRole = 'storage' | 'writer' | 'unknown';

/**
 * Whether `receiver` (the `x` of `x.save(...)`) is a checkpoint storage. With types: its type is, extends or
 * implements `CheckpointStorage`. Without: its declaration's annotation or `new` expression names one (a
 * `CheckpointStorage` import or a class named `...CheckpointStorage`), never a `FencedCheckpointWriter`, and
 * otherwise its name matches `storagePattern`.
 */
export function isCheckpointStorageReceiver(
  receiver: TSESTree.Node,
  scope: Scope,
  recognition: StorageRecognition,
): boolean {
  const target = skipTransparentWrappers(receiver);
  if (recognition.types !== undefined) {
    return isCheckpointStorageType(recognition.types.getTypeAtLocation(target), recognition.types.program);
  }
  const declared = declaredRoleOf(target, scope);
  if (declared !== 'unknown') {
    return declared === 'storage';
  }
  const name = staticName(target)?.replace(/^#/, '');
  return name !== undefined && recognition.storagePattern.test(name);
}

function declaredRoleOf(target: TSESTree.Node, scope: Scope): DeclaredRole {
  if (target.type === AST_NODE_TYPES.Identifier) {
    const definition = findVariable(scope, target.name)?.defs[0];
    if (isParameter(definition) && definition.name.type === AST_NODE_TYPES.Identifier) {
      return roleOfDeclaration(definition.name.typeAnnotation?.typeAnnotation, undefined, scope);
    }
    if (isVariable(definition) && definition.node.id === definition.name) {
      return roleOfDeclaration(
        definition.node.id.typeAnnotation?.typeAnnotation,
        definition.node.init ?? undefined,
        scope,
      );
    }
    return 'unknown';
  }
  if (target.type === AST_NODE_TYPES.MemberExpression && target.object.type === AST_NODE_TYPES.ThisExpression) {
    const member = classMemberDeclaring(target, staticMemberName(target));
    return member === undefined ? 'unknown' : roleOfDeclaration(member.annotation, member.initializer, scope);
  }
  return 'unknown';
}

function roleOfDeclaration(
  annotation: TSESTree.TypeNode | undefined,
  initializer: TSESTree.Expression | undefined,
  scope: Scope,
): DeclaredRole {
  const constructed =
    initializer !== undefined && initializer.type === AST_NODE_TYPES.NewExpression ? initializer.callee : undefined;
  const typeName = annotation?.type === AST_NODE_TYPES.TSTypeReference ? annotation.typeName : undefined;
  if (
    typeAnnotationNamesRuntimeExport(annotation, 'FencedCheckpointWriter', scope) ||
    (constructed !== undefined && refersToRuntimeExport(constructed, 'FencedCheckpointWriter', scope))
  ) {
    return 'writer';
  }
  if (
    typeAnnotationNamesRuntimeExport(annotation, 'CheckpointStorage', scope) ||
    namesAStorageClass(typeName) ||
    namesAStorageClass(constructed)
  ) {
    return 'storage';
  }
  return 'unknown';
}

/** `InMemoryCheckpointStorage`, `RedisCheckpointStorage`, `cf.InMemoryCheckpointStorage`, a project's `PgCheckpointStorage`. */
function namesAStorageClass(node: TSESTree.Node | undefined): boolean {
  if (node === undefined) {
    return false;
  }
  const name =
    node.type === AST_NODE_TYPES.Identifier
      ? node.name
      : node.type === AST_NODE_TYPES.TSQualifiedName
        ? node.right.name
        : node.type === AST_NODE_TYPES.MemberExpression
          ? staticMemberName(node)
          : undefined;
  return name?.endsWith('CheckpointStorage') ?? false;
}

interface ClassMemberDeclaration {
  readonly annotation: TSESTree.TypeNode | undefined;
  readonly initializer: TSESTree.Expression | undefined;
}

/** The field or constructor parameter property of the class around `member` that declares `this.<name>`. */
function classMemberDeclaring(
  member: TSESTree.MemberExpression,
  name: string | undefined,
): ClassMemberDeclaration | undefined {
  const classNode = enclosingClass(member);
  if (classNode === undefined || name === undefined) {
    return undefined;
  }
  for (const element of classNode.body.body) {
    if (
      element.type === AST_NODE_TYPES.PropertyDefinition &&
      staticPropertyKeyName(element.key, element.computed) === name
    ) {
      return { annotation: element.typeAnnotation?.typeAnnotation, initializer: element.value ?? undefined };
    }
    if (element.type === AST_NODE_TYPES.MethodDefinition && element.kind === 'constructor') {
      for (const parameter of element.value.params) {
        if (
          parameter.type === AST_NODE_TYPES.TSParameterProperty &&
          parameter.parameter.type === AST_NODE_TYPES.Identifier &&
          parameter.parameter.name === name
        ) {
          return { annotation: parameter.parameter.typeAnnotation?.typeAnnotation, initializer: undefined };
        }
      }
    }
  }
  return undefined;
}
