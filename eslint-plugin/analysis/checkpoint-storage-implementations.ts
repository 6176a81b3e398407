import { AST_NODE_TYPES } from '@typescript-eslint/types';
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { refersToRuntimeExport, typeAnnotationNamesRuntimeExport } from './checkpoint-fencing-imports.js';
import { staticPropertyKeyName } from './static-member-name.js';
import { isCheckpointStorageType, type TypeInformation } from './type-information.js';

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
}

type Scope = TSESLint.Scope.Scope;
type ClassNode = TSESTree.ClassDeclaration | TSESTree.ClassExpression;

/**
 * `classNode` as a storage implementation when it says `implements CheckpointStorage` (the checkpoint-fencing
 * import, aliased or through a namespace); with types, when its instance type is, extends or implements a
 * `CheckpointStorage` (through a superclass, or an interface re-declared under another name).
 */
export function classImplementingCheckpointStorage(
  classNode: ClassNode,
  scope: Scope,
  types: TypeInformation | undefined,
): CheckpointStorageImplementation | undefined {
  const clauses = implementsClauses(classNode);
  const clause = clauses.find((candidate) => refersToRuntimeExport(candidate.expression, 'CheckpointStorage', scope));
  // Only a class with a heritage clause can be a storage by type; asking no other keeps type-aware linting cheap.
  const worthAsking = clauses.length > 0 || classNode.superClass !== null;
  const implementsStorage =
    types === undefined
      ? clause !== undefined
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
  };
}

/**
 * `object` as a storage implementation when its declared type names `CheckpointStorage`
 * (`const s: CheckpointStorage = {...}`, `{...} satisfies CheckpointStorage`, `{...} as CheckpointStorage`); with
 * types, also when its contextual type is a `CheckpointStorage` (an argument to a parameter of that type).
 */
export function objectImplementingCheckpointStorage(
  object: TSESTree.ObjectExpression,
  scope: Scope,
  types: TypeInformation | undefined,
): CheckpointStorageImplementation | undefined {
  const declared = declaredTypeOf(object);
  const declaresSave = object.properties.some(
    (property) => property.type === AST_NODE_TYPES.Property && keyName(property) === 'save',
  );
  const implementsStorage =
    types === undefined
      ? typeAnnotationNamesRuntimeExport(declared, 'CheckpointStorage', scope)
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
  return { node: object, reportNode: declared ?? object, methods, memberNames, mayInheritMembers: unknownMembers };
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

function declaredTypeOf(object: TSESTree.ObjectExpression): TSESTree.TypeNode | undefined {
  const parent = object.parent;
  if (parent.type === AST_NODE_TYPES.VariableDeclarator && parent.init === object) {
    return parent.id.typeAnnotation?.typeAnnotation;
  }
  if (parent.type === AST_NODE_TYPES.TSSatisfiesExpression || parent.type === AST_NODE_TYPES.TSAsExpression) {
    return parent.typeAnnotation;
  }
  return undefined;
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
