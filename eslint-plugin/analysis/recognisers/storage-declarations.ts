import { AST_NODE_TYPES } from '@typescript-eslint/types';
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import type { RuntimeExportName } from '../../../vocabulary/index.js';
import { enclosingFunction } from '../descendant-nodes.js';
import { findVariable } from '../scope-variables.js';
import { fileImportsPackage, refersToRuntimeExport } from './checkpoint-fencing-imports.js';

type Scope = TSESLint.Scope.Scope;
type ClassNode = TSESTree.ClassDeclaration | TSESTree.ClassExpression;

/** An interface of checkpoint-fencing that users implement: `CheckpointStorage` or `DualAnchorCheckpointStore`. */
export type ContractName = Extract<RuntimeExportName, 'CheckpointStorage' | 'DualAnchorCheckpointStore'>;

/**
 * Whether `node` (a heritage expression or a type name) names `contract` from checkpoint-fencing, or an interface or
 * type alias of this file derived from it (`interface Listable extends CheckpointStorage`,
 * `type Port = CheckpointStorage`): what the upgrade's name resolver also follows, without types.
 */
export function namesContractInterface(
  node: TSESTree.Node,
  contract: ContractName,
  scope: Scope,
  seen = new Set<TSESTree.Node>(),
): boolean {
  // Every chain of interfaces and aliases that names the contract ends at an import of checkpoint-fencing.
  if (!fileImportsPackage(scope)) {
    return false;
  }
  if (refersToRuntimeExport(node, contract, scope)) {
    return true;
  }
  if (node.type !== AST_NODE_TYPES.Identifier) {
    return false;
  }
  const declaration = findVariable(scope, node.name)?.defs.find(
    (definition) =>
      definition.node.type === AST_NODE_TYPES.TSInterfaceDeclaration ||
      definition.node.type === AST_NODE_TYPES.TSTypeAliasDeclaration,
  )?.node;
  if (declaration === undefined || seen.has(declaration)) {
    return false;
  }
  seen.add(declaration);
  if (declaration.type === AST_NODE_TYPES.TSInterfaceDeclaration) {
    // typescript-eslint 5 leaves `extends` out of an interface that has none, though its types say it is there.
    const { extends: heritage = [] } = declaration as { readonly extends?: readonly TSESTree.TSInterfaceHeritage[] };
    return heritage.some((base) => namesContractInterface(base.expression, contract, scope, seen));
  }
  return (
    declaration.type === AST_NODE_TYPES.TSTypeAliasDeclaration &&
    namesContractType(declaration.typeAnnotation, contract, scope, seen)
  );
}

/**
 * Whether a type annotation is such a contract type, a union of one with `null`/`undefined`, an intersection with
 * one among its members (`CheckpointStorage & Closeable`), or TypeScript's `Readonly<>` of one.
 */
export function namesContractType(
  annotation: TSESTree.TypeNode | undefined,
  contract: ContractName,
  scope: Scope,
  seen = new Set<TSESTree.Node>(),
): boolean {
  if (annotation === undefined) {
    return false;
  }
  if (annotation.type === AST_NODE_TYPES.TSUnionType) {
    const present = annotation.types.filter(
      (member) => member.type !== AST_NODE_TYPES.TSUndefinedKeyword && member.type !== AST_NODE_TYPES.TSNullKeyword,
    );
    return present.length > 0 && present.every((member) => namesContractType(member, contract, scope, seen));
  }
  if (annotation.type === AST_NODE_TYPES.TSIntersectionType) {
    return annotation.types.some((member) => namesContractType(member, contract, scope, seen));
  }
  const readonlyOf = readonlyArgument(annotation, scope);
  if (readonlyOf !== undefined) {
    return namesContractType(readonlyOf, contract, scope, seen);
  }
  return (
    annotation.type === AST_NODE_TYPES.TSTypeReference &&
    namesContractInterface(annotation.typeName, contract, scope, seen)
  );
}

/** `T` of `Readonly<T>` when `Readonly` is TypeScript's (a lib type, declared nowhere in the file). */
function readonlyArgument(annotation: TSESTree.TypeNode, scope: Scope): TSESTree.TypeNode | undefined {
  if (
    annotation.type !== AST_NODE_TYPES.TSTypeReference ||
    annotation.typeName.type !== AST_NODE_TYPES.Identifier ||
    annotation.typeName.name !== 'Readonly' ||
    typeArgumentsOf(annotation).length !== 1
  ) {
    return undefined;
  }
  // typescript-eslint's scope manager knows lib types as variables without definitions.
  const declared = findVariable(scope, 'Readonly')?.defs.length ?? 0;
  return declared === 0 ? typeArgumentsOf(annotation)[0] : undefined;
}

/** The class a class extends, when it is declared in this file: `class Pg extends SqlStorage` with `SqlStorage` here. */
export function sameFileBaseClass(classNode: ClassNode, scope: Scope): ClassNode | undefined {
  const superClass = classNode.superClass;
  if (superClass?.type !== AST_NODE_TYPES.Identifier) {
    return undefined;
  }
  const definition = findVariable(scope, superClass.name)?.defs.find(
    (candidate) =>
      candidate.node.type === AST_NODE_TYPES.ClassDeclaration || candidate.node.type === AST_NODE_TYPES.ClassExpression,
  );
  return definition?.node.type === AST_NODE_TYPES.ClassDeclaration ||
    definition?.node.type === AST_NODE_TYPES.ClassExpression
    ? definition.node
    : undefined;
}

/**
 * The type a storage literal is written against, in the positions the upgrade recognises too: a variable's
 * annotation, `satisfies`, `as`, and the declared return type of the function returning it (a promise of one for an
 * async factory).
 */
export function declaredTypeOfLiteral(object: TSESTree.ObjectExpression): TSESTree.TypeNode | undefined {
  const parent = object.parent;
  if (parent.type === AST_NODE_TYPES.VariableDeclarator && parent.init === object) {
    return parent.id.typeAnnotation?.typeAnnotation;
  }
  if (
    parent.type === AST_NODE_TYPES.TSSatisfiesExpression ||
    parent.type === AST_NODE_TYPES.TSAsExpression ||
    parent.type === AST_NODE_TYPES.TSTypeAssertion
  ) {
    return parent.typeAnnotation;
  }
  const returning =
    parent.type === AST_NODE_TYPES.ReturnStatement
      ? enclosingFunction(parent)
      : parent.type === AST_NODE_TYPES.ArrowFunctionExpression && parent.body === object
        ? parent
        : undefined;
  return awaitedType(returning?.returnType?.typeAnnotation);
}

/** `Promise<T>` unwrapped to `T`. */
function awaitedType(annotation: TSESTree.TypeNode | undefined): TSESTree.TypeNode | undefined {
  if (
    annotation?.type === AST_NODE_TYPES.TSTypeReference &&
    annotation.typeName.type === AST_NODE_TYPES.Identifier &&
    annotation.typeName.name === 'Promise'
  ) {
    return typeArgumentsOf(annotation)[0];
  }
  return annotation;
}

/** The type arguments of a type reference, which typescript-eslint 5 calls `typeParameters`. */
export function typeArgumentsOf(reference: TSESTree.TSTypeReference): readonly TSESTree.TypeNode[] {
  // Read only where `typeArguments` is missing: typescript-eslint 6 and 7 warn of a deprecation when it is read.
  const instantiation =
    reference.typeArguments ??
    (reference as { readonly typeParameters?: TSESTree.TSTypeParameterInstantiation }).typeParameters;
  return instantiation?.params ?? [];
}
