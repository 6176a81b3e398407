import { AST_NODE_TYPES } from '@typescript-eslint/types';
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import type { DualAnchorStoreMemberName, RuntimeExportName, StorageMemberName } from '../../../vocabulary/index.js';
import { heritageMayReachPackage, nameMayReachPackage, namesClassOrInterface } from '../gates/package-reach.js';
import { perFile } from '../memo.js';
import { fileOf } from '../scope-variables.js';
import { staticPropertyKeyName } from '../static-member-name.js';
import type { TypeInformation } from '../type-information.js';
import { refersToRuntimeExport } from './checkpoint-fencing-imports.js';
import { jsDocImplementsContract } from './jsdoc-implements.js';
import {
  declaredTypeOfLiteral,
  namesContractInterface,
  namesContractType,
  sameFileBaseClass,
  typeArgumentsOf,
  type ContractName,
} from './storage-declarations.js';
import { extendsRuntimeClass, isContractType } from './storage-types.js';

/** A class or object literal that implements a checkpoint-fencing contract, with the members it declares itself. */
export interface ContractImplementation {
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

/** The class of checkpoint-fencing that implements a contract, for users to extend instead of implementing it all. */
const CONTRACT_BASE_CLASS: Readonly<Record<ContractName, RuntimeExportName>> = {
  CheckpointStorage: 'CheckpointStorageBase',
  DualAnchorCheckpointStore: 'DualAnchorCheckpointStoreBase',
};

/** A member every implementation of a contract declares: a literal typed only by its context is asked about with it. */
const MEMBER_HINT: Readonly<Record<ContractName, string>> = {
  CheckpointStorage: 'save' satisfies StorageMemberName,
  DualAnchorCheckpointStore: 'saveSeen' satisfies DualAnchorStoreMemberName,
};

/**
 * `classNode` as an implementation of `contract` when it says `implements <contract>` (the checkpoint-fencing
 * import, aliased or through a namespace, or an interface or alias of this file derived from it), extends the
 * contract's base class from checkpoint-fencing, or extends a class of this file that does either; with types, when
 * its instance type is, extends or implements checkpoint-fencing's contract (through a superclass, or an interface
 * re-declared under another name).
 */
export function classImplementing(
  contract: ContractName,
  classNode: ClassNode,
  scope: Scope,
  types: TypeInformation | undefined,
): ContractImplementation | undefined {
  return remembered(contract, classNode, scope, types, () => implementationOfClass(contract, classNode, scope, types));
}

type Answers = (file: TSESTree.Program) => Map<TSESTree.Node, ContractImplementation | null>;

/**
 * What the rules found each class or literal of a file to implement, by contract and mode: several rules ask about
 * the same node (the two storage rules, in the syntactic config the same question), and each question is answered
 * once.
 */
const answersByQuestion: Readonly<Record<ContractName, { readonly syntactic: Answers; readonly typed: Answers }>> = {
  CheckpointStorage: { syntactic: perFile(), typed: perFile() },
  DualAnchorCheckpointStore: { syntactic: perFile(), typed: perFile() },
};

function remembered(
  contract: ContractName,
  node: TSESTree.Node,
  scope: Scope,
  types: TypeInformation | undefined,
  answer: () => ContractImplementation | undefined,
): ContractImplementation | undefined {
  const answers = answersByQuestion[contract][types === undefined ? 'syntactic' : 'typed'](fileOf(scope));
  const known = answers.get(node);
  if (known !== undefined) {
    return known ?? undefined;
  }
  const found = answer();
  answers.set(node, found ?? null);
  return found;
}

function implementationOfClass(
  contract: ContractName,
  classNode: ClassNode,
  scope: Scope,
  types: TypeInformation | undefined,
): ContractImplementation | undefined {
  const clauses = implementsClauses(classNode);
  const clause = clauses.find((candidate) => namesContractInterface(candidate.expression, contract, scope));
  // What the file spells settles it without the checker, in both modes (ADR 0311).
  const implementsContract =
    clause !== undefined ||
    declaresThroughSameFileBases(classNode, scope, (node) => declares(node, contract, scope)) ||
    (types !== undefined && isContractTypeByHeritage(classNode, types, contract));
  if (!implementsContract) {
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
 * Whether `classNode` extends checkpoint-fencing's class `className` (`class S extends DualAnchorCheckpointStoreBase`),
 * itself or through classes of this file; with types, anywhere up its chain of base classes.
 */
export function extendsRuntimeBaseClass(
  classNode: ClassNode,
  className: RuntimeExportName,
  scope: Scope,
  types: TypeInformation | undefined,
): boolean {
  if (classNode.superClass === null) {
    return false;
  }
  if (types !== undefined) {
    return (
      heritageMayReachPackage(types.esTreeNodeToTSNodeMap.get(classNode), types.program) &&
      extendsRuntimeClass(types.getTypeAtLocation(classNode), types.program, className)
    );
  }
  return declaresThroughSameFileBases(classNode, scope, (node) => extendsDirectly(node, className, scope));
}

/**
 * With types: whether `classNode`'s instance type is the contract's, asked only if its heritage may lead there. A
 * class without a heritage clause or a JSDoc `@implements` has none, and is never asked.
 */
function isContractTypeByHeritage(classNode: ClassNode, types: TypeInformation, contract: ContractName): boolean {
  return (
    heritageMayReachPackage(types.esTreeNodeToTSNodeMap.get(classNode), types.program) &&
    isContractType(types.getTypeAtLocation(classNode), types.program, contract)
  );
}

/** Whether `classNode` or a class of this file it extends, directly or further up, satisfies `test`. */
function declaresThroughSameFileBases(
  classNode: ClassNode,
  scope: Scope,
  test: (node: ClassNode) => boolean,
  seen = new Set<ClassNode>(),
): boolean {
  if (test(classNode)) {
    return true;
  }
  const base = sameFileBaseClass(classNode, scope);
  if (base === undefined || seen.has(base)) {
    return false;
  }
  seen.add(base);
  return declaresThroughSameFileBases(base, scope, test, seen);
}

/**
 * What `classNode`'s own heritage clauses say: `implements <contract>` (in JavaScript, a JSDoc `@implements`), or
 * `extends` the contract's base class.
 */
function declares(classNode: ClassNode, contract: ContractName, scope: Scope): boolean {
  return (
    implementsClauses(classNode).some((clause) => namesContractInterface(clause.expression, contract, scope)) ||
    jsDocImplementsContract(classNode, contract) ||
    extendsDirectly(classNode, CONTRACT_BASE_CLASS[contract], scope)
  );
}

function extendsDirectly(classNode: ClassNode, className: RuntimeExportName, scope: Scope): boolean {
  return classNode.superClass !== null && refersToRuntimeExport(classNode.superClass, className, scope);
}

/**
 * `object` as an implementation of `contract` when the type it is written against names it
 * (`const s: CheckpointStorage = {...}`, `{...} satisfies CheckpointStorage`, `{...} as CheckpointStorage`, returned
 * from a function declared to return one); with types, also when its contextual type is one (an argument to a
 * parameter of that type). With types, a literal with no declared type is asked about only when it declares
 * {@link MEMBER_HINT}, a member every implementation of the contract has.
 */
export function objectImplementing(
  contract: ContractName,
  object: TSESTree.ObjectExpression,
  scope: Scope,
  types: TypeInformation | undefined,
): ContractImplementation | undefined {
  return remembered(contract, object, scope, types, () => implementationOfObject(contract, object, scope, types));
}

function implementationOfObject(
  contract: ContractName,
  object: TSESTree.ObjectExpression,
  scope: Scope,
  types: TypeInformation | undefined,
): ContractImplementation | undefined {
  const declared = declaredTypeOfLiteral(object);
  const declaresHint = object.properties.some(
    (property) => property.type === AST_NODE_TYPES.Property && keyName(property) === MEMBER_HINT[contract],
  );
  const implementsContract =
    namesContractType(declared, contract, scope) ||
    (types !== undefined &&
      (declared !== undefined || declaresHint) &&
      isContextually(contract, object, declared, types));
  if (!implementsContract) {
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
  };
}

function isContextually(
  contract: ContractName,
  object: TSESTree.ObjectExpression,
  declared: TSESTree.TypeNode | undefined,
  types: TypeInformation,
): boolean {
  if (declared !== undefined) {
    return (
      typeNodeMayReachPackage(declared, types) &&
      isContractType(types.getTypeAtLocation(declared), types.program, contract)
    );
  }
  const contextual = types.program.getTypeChecker().getContextualType(types.esTreeNodeToTSNodeMap.get(object));
  return contextual !== undefined && isContractType(contextual, types.program, contract);
}

/**
 * Whether an annotation may name the contract: `as const`, a written-out object or function type, a primitive, an
 * array or a tuple cannot; a reference may through its name, or through its type arguments when it names no class or
 * interface (`Readonly<CheckpointStorage>`); anything else is left to the checker.
 */
function typeNodeMayReachPackage(node: TSESTree.TypeNode, types: TypeInformation): boolean {
  if (node.type !== AST_NODE_TYPES.TSTypeReference) {
    return !NEVER_A_STORAGE.has(node.type);
  }
  if (node.typeName.type === AST_NODE_TYPES.Identifier && node.typeName.name === 'const') {
    return false;
  }
  const name = types.esTreeNodeToTSNodeMap.get(node.typeName);
  return (
    nameMayReachPackage(name, types.program) ||
    (!namesClassOrInterface(name, types.program) &&
      typeArgumentsOf(node).some((argument) => typeNodeMayReachPackage(argument, types)))
  );
}

/** Annotations that cannot type a storage. */
const NEVER_A_STORAGE: ReadonlySet<AST_NODE_TYPES> = new Set([
  AST_NODE_TYPES.TSTypeLiteral,
  AST_NODE_TYPES.TSFunctionType,
  AST_NODE_TYPES.TSConstructorType,
  AST_NODE_TYPES.TSArrayType,
  AST_NODE_TYPES.TSTupleType,
  AST_NODE_TYPES.TSLiteralType,
  AST_NODE_TYPES.TSTemplateLiteralType,
  AST_NODE_TYPES.TSAnyKeyword,
  AST_NODE_TYPES.TSUnknownKeyword,
  AST_NODE_TYPES.TSNeverKeyword,
  AST_NODE_TYPES.TSObjectKeyword,
  AST_NODE_TYPES.TSStringKeyword,
  AST_NODE_TYPES.TSNumberKeyword,
  AST_NODE_TYPES.TSBigIntKeyword,
  AST_NODE_TYPES.TSBooleanKeyword,
  AST_NODE_TYPES.TSSymbolKeyword,
  AST_NODE_TYPES.TSUndefinedKeyword,
  AST_NODE_TYPES.TSNullKeyword,
  AST_NODE_TYPES.TSVoidKeyword,
]);

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
