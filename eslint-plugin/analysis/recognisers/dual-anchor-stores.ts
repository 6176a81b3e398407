import { AST_NODE_TYPES } from '@typescript-eslint/types';
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import {
  DUAL_ANCHOR_BASE_STEP_NAMES,
  DUAL_ANCHOR_PARTIAL_OPERATIONS,
  DUAL_ANCHOR_STORE_MEMBER_NAMES,
  type DualAnchorBaseStepName,
  type DualAnchorStoreMemberName,
  type RuntimeExportName,
} from '../../../vocabulary/index.js';
import { descendantNodeList } from '../descendant-nodes.js';
import { EXAMINED_MEMBERS, mayDeclareExaminedMembers } from '../gates/text-gates.js';
import { perFile, remember } from '../memo.js';
import { skipTransparentWrappers, staticMemberName, staticPropertyKeyName } from '../static-member-name.js';
import { typeInformationFor, type TypeInformation } from '../type-information.js';
import {
  classImplementing,
  extendsRuntimeBaseClass,
  objectImplementing,
  type ContractImplementation,
} from './contract-implementations.js';
import {
  ATOMIC_STEP_METHODS,
  calleeName,
  isSqlRead,
  isSqlTransaction,
  isSqlWrite,
  sqlStatementOf,
  STORE_READ_METHODS,
  STORE_WRITE_METHODS,
} from './store-calls.js';

// What the four dual-anchor rules share: which classes and literals are dual-anchor stores, which of their methods
// are the partial operations, and what each call in those methods does to the backend.

const BASE_CLASS: RuntimeExportName = 'DualAnchorCheckpointStoreBase';
const WRITE_FIELDS: DualAnchorBaseStepName = 'writeFields';
const WRITE_RESET: DualAnchorBaseStepName = 'writeReset';
const FIND: DualAnchorStoreMemberName = 'findByStreamName';
const READ_RECORD: DualAnchorBaseStepName = 'readRecord';
const CONTRACT_MEMBERS: ReadonlySet<string> = new Set<string>([
  ...DUAL_ANCHOR_STORE_MEMBER_NAMES,
  ...DUAL_ANCHOR_BASE_STEP_NAMES,
]);
/** The contract's writes, called on the store itself: every partial operation, `save`, and the base's two steps. */
const OWN_WRITES: ReadonlySet<string> = new Set<string>([
  'save',
  ...DUAL_ANCHOR_PARTIAL_OPERATIONS,
  WRITE_FIELDS,
  WRITE_RESET,
]);

type ClassNode = TSESTree.ClassDeclaration | TSESTree.ClassExpression;
type RuleContext = Readonly<TSESLint.RuleContext<string, readonly unknown[]>>;

/** Options of every dual-anchor rule. */
export interface DualAnchorRuleOptions {
  /** Recognise stores by their types (re-exported interfaces, subclasses in other files, literals typed by context). */
  readonly useTypeInformation?: boolean;
}

/** The defaults of {@link DualAnchorRuleOptions}. */
export const DUAL_ANCHOR_RULE_DEFAULTS = { useTypeInformation: false } satisfies Required<DualAnchorRuleOptions>;

/** The options schema of every dual-anchor rule. */
export const DUAL_ANCHOR_RULE_SCHEMA: TSESLint.RuleMetaData<string, unknown, readonly unknown[]>['schema'] = [
  {
    type: 'object',
    properties: {
      useTypeInformation: { type: 'boolean', description: 'Recognise dual-anchor stores by their types.' },
    },
    additionalProperties: false,
  },
];

/** A class or object literal that implements checkpoint-fencing's `DualAnchorCheckpointStore`. */
export interface DualAnchorStore {
  readonly implementation: ContractImplementation;
  /**
   * It extends checkpoint-fencing's `DualAnchorCheckpointStoreBase`, whose atomic steps are the protected
   * `writeFields` (every partial write) and `writeReset` (the guarded reset).
   */
  readonly extendsBase: boolean;
}

/** An operation of a store a rule examines: its name and the function that implements it. */
export interface StoreOperation {
  readonly name: string;
  readonly method: TSESTree.FunctionLike;
}

/** What a call in a store's operation does to the backend, when the rules can tell. */
export type StoreCallKind = 'read' | 'write' | 'statement';

/**
 * The listeners that hand `check` every dual-anchor store of a file: classes that implement the interface or extend
 * the base class, and object literals written against the interface. Four rules ask about the same nodes, so each
 * node is recognised once per mode.
 */
export function dualAnchorStoreListeners(
  context: RuleContext,
  options: DualAnchorRuleOptions,
  check: (store: DualAnchorStore) => void,
): TSESLint.RuleListener {
  const types = typeInformationFor(context, options.useTypeInformation ?? DUAL_ANCHOR_RULE_DEFAULTS.useTypeInformation);
  if (!mayDeclareExaminedMembers(context.sourceCode)) {
    return {};
  }
  const visit = (node: ClassNode | TSESTree.ObjectExpression): void => {
    // Every rule looks only at these members, so a class or literal without one needs no recognising (nor types).
    if (!declaresExaminedMember(node)) {
      return;
    }
    const store = dualAnchorStoreOf(node, context.sourceCode, types);
    if (store !== undefined) {
      check(store);
    }
  };
  return { ClassDeclaration: visit, ClassExpression: visit, ObjectExpression: visit };
}

function declaresExaminedMember(node: ClassNode | TSESTree.ObjectExpression): boolean {
  const members: readonly TSESTree.Node[] =
    node.type === AST_NODE_TYPES.ObjectExpression ? node.properties : node.body.body;
  return members.some(
    (member) =>
      (member.type === AST_NODE_TYPES.Property ||
        member.type === AST_NODE_TYPES.MethodDefinition ||
        member.type === AST_NODE_TYPES.PropertyDefinition) &&
      EXAMINED_MEMBERS.has(staticPropertyKeyName(member.key, member.computed) ?? ''),
  );
}

/** The stores of a file by node, recognised once per mode: four rules ask about the same nodes. */
const storesByMode = {
  syntactic: perFile<TSESTree.Node, DualAnchorStore | null>(),
  typed: perFile<TSESTree.Node, DualAnchorStore | null>(),
};

function dualAnchorStoreOf(
  node: ClassNode | TSESTree.ObjectExpression,
  sourceCode: Readonly<TSESLint.SourceCode>,
  types: TypeInformation | undefined,
): DualAnchorStore | undefined {
  const stores = storesByMode[types === undefined ? 'syntactic' : 'typed'](sourceCode.ast);
  const known = stores.get(node);
  if (known !== undefined) {
    return known ?? undefined;
  }
  const store = recognise(node, sourceCode.getScope(node), types);
  stores.set(node, store ?? null);
  return store;
}

/**
 * With types, what the syntax already proves (an import of checkpoint-fencing's own interface or base class) is taken
 * as it is, and the checker is asked only about the rest: the same answers, without type queries for most stores.
 */
function recognise(
  node: ClassNode | TSESTree.ObjectExpression,
  scope: TSESLint.Scope.Scope,
  types: TypeInformation | undefined,
): DualAnchorStore | undefined {
  if (node.type === AST_NODE_TYPES.ObjectExpression) {
    const implementation =
      objectImplementing('DualAnchorCheckpointStore', node, scope, undefined) ??
      (types === undefined ? undefined : objectImplementing('DualAnchorCheckpointStore', node, scope, types));
    return implementation === undefined ? undefined : { implementation, extendsBase: false };
  }
  const implementation =
    classImplementing('DualAnchorCheckpointStore', node, scope, undefined) ??
    (types === undefined ? undefined : classImplementing('DualAnchorCheckpointStore', node, scope, types));
  if (implementation === undefined) {
    return undefined;
  }
  const extendsBase =
    extendsRuntimeBaseClass(node, BASE_CLASS, scope, undefined) ||
    (types !== undefined && extendsRuntimeBaseClass(node, BASE_CLASS, scope, types));
  return { implementation, extendsBase };
}

/**
 * The store's own methods among `names`, plus, for a subclass of the base class, those of its atomic steps
 * (`writeFields`, `writeReset`) that `steps` names.
 */
export function operationsOf(
  store: DualAnchorStore,
  names: readonly string[],
  steps: readonly DualAnchorBaseStepName[],
): StoreOperation[] {
  const wanted = store.extendsBase ? [...names, ...steps] : names;
  return wanted.flatMap((name) => {
    const method = store.implementation.methods.get(name);
    return method?.body == null ? [] : [{ name, method }];
  });
}

/** The store's atomic steps a rule about every partial write examines besides the partial operations themselves. */
export const PARTIAL_WRITE_STEPS: readonly DualAnchorBaseStepName[] = [WRITE_FIELDS, WRITE_RESET];

/** The base class's step that carries the reset. */
export const RESET_STEP: DualAnchorBaseStepName = WRITE_RESET;

/** The base class's step that carries every partial write but the reset. */
export const FIELDS_STEP: DualAnchorBaseStepName = WRITE_FIELDS;

const bodyNodesByMethod = perFile<TSESTree.FunctionLike, readonly TSESTree.Node[]>();

/**
 * The nodes of `method`'s body that run as part of it: the body itself and everything in it but nested functions.
 * Four rules walk the same operations and helpers, so each body is walked once.
 */
export function bodyNodes(
  method: TSESTree.FunctionLike,
  sourceCode: Readonly<TSESLint.SourceCode>,
): readonly TSESTree.Node[] {
  const known = bodyNodesByMethod(sourceCode.ast);
  return (
    known.get(method) ??
    remember(
      known,
      method,
      method.body == null ? [] : descendantNodeList(method.body, sourceCode.visitorKeys, true, [method.body]),
    )
  );
}

/**
 * `method` and every helper of the store it calls, directly or further down: `this.helper()` or `this.#helper()`
 * where the helper is a method of the same class or literal that is not itself part of the contract (those are the
 * store's own reads and writes).
 */
export function methodWithHelpers(
  store: DualAnchorStore,
  method: TSESTree.FunctionLike,
  sourceCode: Readonly<TSESLint.SourceCode>,
): readonly TSESTree.FunctionLike[] {
  const { helpers } = storeMemo(store, sourceCode);
  const known = helpers.get(method);
  if (known !== undefined) {
    return known;
  }
  const found = [method];
  for (let index = 0; index < found.length; index += 1) {
    const current = found[index];
    for (const node of current === undefined ? [] : bodyNodes(current, sourceCode)) {
      const helper = node.type === AST_NODE_TYPES.CallExpression ? helperOf(node, store) : undefined;
      if (helper !== undefined && !found.includes(helper)) {
        found.push(helper);
      }
    }
  }
  helpers.set(method, found);
  return found;
}

/** What the rules have worked out about one store, for the next rule that asks the same. */
interface StoreMemo {
  readonly helpers: Map<TSESTree.FunctionLike, readonly TSESTree.FunctionLike[]>;
  readonly callKinds: Map<TSESTree.CallExpression, StoreCallKind | undefined>;
}

const memoByStore = perFile<DualAnchorStore, StoreMemo>();

function storeMemo(store: DualAnchorStore, sourceCode: Readonly<TSESLint.SourceCode>): StoreMemo {
  const known = memoByStore(sourceCode.ast);
  return known.get(store) ?? remember(known, store, { helpers: new Map(), callKinds: new Map() });
}

/** The helper method `call` calls on the store itself, if it is one. */
function helperOf(call: TSESTree.CallExpression, store: DualAnchorStore): TSESTree.FunctionLike | undefined {
  const callee = skipTransparentWrappers(call.callee);
  if (callee.type !== AST_NODE_TYPES.MemberExpression || callee.object.type !== AST_NODE_TYPES.ThisExpression) {
    return undefined;
  }
  const name = staticMemberName(callee);
  return name === undefined || CONTRACT_MEMBERS.has(name) ? undefined : store.implementation.methods.get(name);
}

/**
 * What `call` does to the backend: a read (the store's `findByStreamName`/`readRecord`, `GET`, `HGETALL`, `findOne`,
 * an SQL `SELECT`, …), a write (the store's own writes, `HSET`, `updateOne`, an SQL `INSERT`/`UPDATE`, …), a
 * statement whose text the rule cannot read, or nothing it can tell. A helper of the store counts as what it does.
 */
export function storeCallKind(
  call: TSESTree.CallExpression,
  store: DualAnchorStore,
  sourceCode: Readonly<TSESLint.SourceCode>,
): StoreCallKind | undefined {
  const { callKinds } = storeMemo(store, sourceCode);
  if (callKinds.has(call)) {
    return callKinds.get(call);
  }
  const kind = judgeStoreCall(call, store, sourceCode);
  callKinds.set(call, kind);
  return kind;
}

function judgeStoreCall(
  call: TSESTree.CallExpression,
  store: DualAnchorStore,
  sourceCode: Readonly<TSESLint.SourceCode>,
): StoreCallKind | undefined {
  const helper = helperOf(call, store);
  if (helper !== undefined) {
    return helperKind(helper, store, sourceCode, new Set());
  }
  const statement = sqlStatementOf(call, sourceCode.getScope(call));
  if (statement !== undefined) {
    return isSqlWrite(statement) ? 'write' : isSqlRead(statement) ? 'read' : 'statement';
  }
  const name = calleeName(call);
  if (name === undefined) {
    return undefined;
  }
  if (name === FIND || name === READ_RECORD || STORE_READ_METHODS.has(name)) {
    return 'read';
  }
  return OWN_WRITES.has(name) || STORE_WRITE_METHODS.has(name) ? 'write' : undefined;
}

function helperKind(
  helper: TSESTree.FunctionLike,
  store: DualAnchorStore,
  sourceCode: Readonly<TSESLint.SourceCode>,
  seen: Set<TSESTree.FunctionLike>,
): StoreCallKind | undefined {
  if (seen.has(helper)) {
    return undefined;
  }
  seen.add(helper);
  let kind: StoreCallKind | undefined;
  for (const node of bodyNodes(helper, sourceCode)) {
    if (node.type !== AST_NODE_TYPES.CallExpression) {
      continue;
    }
    const inner = helperOf(node, store);
    const found =
      inner === undefined ? storeCallKind(node, store, sourceCode) : helperKind(inner, store, sourceCode, seen);
    if (found === 'write') {
      return 'write';
    }
    kind = found === 'read' || kind === 'read' ? 'read' : (found ?? kind);
  }
  return kind;
}

/**
 * Whether `method` makes its reads and writes one atomic step: an optimistic transaction (`watch`/`multi`), a
 * transaction or lock callback, a server-side script (`eval`, `evalsha`, `fcall`), or SQL that opens a transaction or
 * locks the rows it reads (`BEGIN`, `SELECT … FOR UPDATE`).
 */
export function usesAtomicStep(method: TSESTree.FunctionLike, sourceCode: Readonly<TSESLint.SourceCode>): boolean {
  const known = atomicByMethod(sourceCode.ast);
  return known.get(method) ?? remember(known, method, makesAtomicStep(method, sourceCode));
}

const atomicByMethod = perFile<TSESTree.FunctionLike, boolean>();

function makesAtomicStep(method: TSESTree.FunctionLike, sourceCode: Readonly<TSESLint.SourceCode>): boolean {
  for (const node of bodyNodes(method, sourceCode)) {
    if (node.type === AST_NODE_TYPES.CallExpression && ATOMIC_STEP_METHODS.has(calleeName(node) ?? '')) {
      return true;
    }
    if (node.type === AST_NODE_TYPES.CallExpression || node.type === AST_NODE_TYPES.TaggedTemplateExpression) {
      const statement = sqlStatementOf(node, sourceCode.getScope(node));
      if (statement !== undefined && isSqlTransaction(statement)) {
        return true;
      }
    }
  }
  return false;
}

/**
 * A record field's name as the rules compare it: lower case, without `_` and `-`, so every spelling of one field
 * matches (`lastProcessedToken`, the SQL column `last_processed_token`, a hash field or document key).
 */
export function normalizedFieldName(name: string): string {
  return name.replace(/[-_]/gu, '').toLowerCase();
}
