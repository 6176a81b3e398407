import { AST_NODE_TYPES } from '@typescript-eslint/types';
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { staticPropertyKeyName } from './static-member-name.js';
import {
  declaredTypeOfLiteral,
  namesStorageInterface,
  namesStorageType,
  sameFileBaseClass,
} from './storage-declarations.js';
import { inheritedMembers, isCheckpointStorageType, type InheritedMembers } from './storage-types.js';
import type { TypeInformation } from './type-information.js';

/** A class or object literal that implements `CheckpointStorage`, with the members it declares itself. */
export interface CheckpointStorageImplementation {
  readonly node: TSESTree.ClassDeclaration | TSESTree.ClassExpression | TSESTree.ObjectExpression;
  /** Where to report a problem with the implementation as a whole: the class name or the `implements` clause. */
  readonly reportNode: TSESTree.Node;
  /** Declared methods by name (`#x` for private ones); a member whose value is not a function is absent. */
  readonly methods: ReadonlyMap<string, TSESTree.FunctionLike>;
  /** Declared member names, functions or not. */
  readonly memberNames: ReadonlySet<string>;
  /** Members may come from elsewhere (a superclass, a spread, a computed key): absence proves nothing. */
  readonly mayInheritMembers: boolean;
  /** With types, for a class: what its base classes provide. */
  readonly inherited: InheritedMembers | undefined;
}

type Scope = TSESLint.Scope.Scope;
type ClassNode = TSESTree.ClassDeclaration | TSESTree.ClassExpression;

/**
 * `classNode` as a storage implementation when it says `implements CheckpointStorage` (the checkpoint-fencing
 * import, aliased or through a namespace, or an interface or alias of this file derived from it) or extends a class
 * of this file that does; with types, when its instance type is, extends or implements checkpoint-fencing's
 * `CheckpointStorage` (through a superclass, or an interface re-declared under another name).
 */
export function classImplementingCheckpointStorage(
  classNode: ClassNode,
  scope: Scope,
  types: TypeInformation | undefined,
): CheckpointStorageImplementation | undefined {
  const clauses = implementsClauses(classNode);
  const clause = clauses.find((candidate) => namesStorageInterface(candidate.expression, scope));
  // Only a class with a heritage clause can be a storage by type; asking no other keeps type-aware linting cheap.
  const worthAsking = clauses.length > 0 || classNode.superClass !== null;
  const implementsStorage =
    types === undefined
      ? clause !== undefined || implementsThroughSameFileBase(classNode, scope, new Set())
      : worthAsking && isCheckpointStorageType(types.getTypeAtLocation(classNode), types.program.getTypeChecker());
  if (!implementsStorage) {
    return undefined;
  }
  const methods = new Map<string, TSESTree.FunctionLike>();
  const memberNames = new Set<string>();
  let computed = false;
  for (const element of classNode.body.body) {
    if (
      element.type === AST_NODE_TYPES.StaticBlock ||
      element.type === AST_NODE_TYPES.TSIndexSignature ||
      element.static
    ) {
      continue;
    }
    const name = staticPropertyKeyName(element.key, element.computed);
    if (name === undefined) {
      computed = true;
      continue;
    }
    memberNames.add(name);
    const value = element.value;
    if (value !== null && isFunction(value)) {
      methods.set(name, value);
    }
  }
  return {
    node: classNode,
    reportNode: classNode.id ?? clause ?? classNode,
    methods,
    memberNames,
    mayInheritMembers: computed || classNode.superClass !== null,
    inherited:
      types === undefined || classNode.superClass === null
        ? undefined
        : inheritedMembers(types.esTreeNodeToTSNodeMap.get(classNode), types.program.getTypeChecker()),
  };
}

function implementsThroughSameFileBase(classNode: ClassNode, scope: Scope, seen: Set<ClassNode>): boolean {
  const base = sameFileBaseClass(classNode, scope);
  if (base === undefined || seen.has(base)) {
    return false;
  }
  seen.add(base);
  return (
    implementsClauses(base).some((clause) => namesStorageInterface(clause.expression, scope)) ||
    implementsThroughSameFileBase(base, scope, seen)
  );
}

/**
 * `object` as a storage implementation when the type it is written against names `CheckpointStorage`
 * (`const s: CheckpointStorage = {...}`, `{...} satisfies CheckpointStorage`, `{...} as CheckpointStorage`, returned
 * from a function declared to return one); with types, also when its contextual type is a `CheckpointStorage` (an
 * argument to a parameter of that type).
 */
export function objectImplementingCheckpointStorage(
  object: TSESTree.ObjectExpression,
  scope: Scope,
  types: TypeInformation | undefined,
): CheckpointStorageImplementation | undefined {
  const declared = declaredTypeOfLiteral(object);
  const declaresSave = object.properties.some(
    (property) => property.type === AST_NODE_TYPES.Property && keyName(property) === 'save',
  );
  const implementsStorage =
    types === undefined
      ? namesStorageType(declared, scope)
      : (declared !== undefined || declaresSave) && isContextuallyCheckpointStorage(object, declared, types);
  if (!implementsStorage) {
    return undefined;
  }
  const methods = new Map<string, TSESTree.FunctionLike>();
  const memberNames = new Set<string>();
  let unknownMembers = false;
  for (const property of object.properties) {
    const name =
      property.type === AST_NODE_TYPES.Property ? staticPropertyKeyName(property.key, property.computed) : undefined;
    if (property.type !== AST_NODE_TYPES.Property || name === undefined) {
      unknownMembers = true;
      continue;
    }
    memberNames.add(name);
    if (isFunction(property.value)) {
      methods.set(name, property.value);
    }
  }
  return {
    node: object,
    reportNode: declared ?? object,
    methods,
    memberNames,
    mayInheritMembers: unknownMembers,
    inherited: undefined,
  };
}

function isContextuallyCheckpointStorage(
  object: TSESTree.ObjectExpression,
  declared: TSESTree.TypeNode | undefined,
  types: TypeInformation,
): boolean {
  const checker = types.program.getTypeChecker();
  if (declared !== undefined) {
    return isCheckpointStorageType(types.getTypeAtLocation(declared), checker);
  }
  const contextual = checker.getContextualType(types.esTreeNodeToTSNodeMap.get(object));
  return contextual !== undefined && isCheckpointStorageType(contextual, checker);
}

/** A class's `implements` clauses; JavaScript parsers (espree) leave the property out, though the TS-ESTree types say it is always there. */
function implementsClauses(classNode: ClassNode): readonly TSESTree.TSClassImplements[] {
  const { implements: clauses } = classNode as { readonly implements?: readonly TSESTree.TSClassImplements[] };
  return clauses ?? [];
}

function keyName(member: { readonly key: TSESTree.Node; readonly computed: boolean }): string | undefined {
  return staticPropertyKeyName(member.key, member.computed);
}

function isFunction(node: TSESTree.Node): node is TSESTree.FunctionLike {
  return (
    node.type === AST_NODE_TYPES.FunctionExpression ||
    node.type === AST_NODE_TYPES.ArrowFunctionExpression ||
    node.type === AST_NODE_TYPES.TSEmptyBodyFunctionExpression
  );
}
