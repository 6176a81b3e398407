import { AST_NODE_TYPES } from '@typescript-eslint/types';
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import {
  parentOf,
  referencedVariable,
  skipTransparentWrappers,
  staticMemberName,
  staticPropertyKeyName,
} from '../analysis/index.js';
import {
  bodyNodes,
  calleeName,
  DUAL_ANCHOR_RULE_DEFAULTS,
  DUAL_ANCHOR_RULE_SCHEMA,
  type DualAnchorRuleOptions,
  type DualAnchorStore,
  dualAnchorStoreListeners,
  hasSqlVersionGuard,
  methodWithHelpers,
  normalizedFieldName,
  operationsOf,
  PARTIAL_WRITE_STEPS,
  sqlStatementOf,
  storeCallKind,
  usesAtomicStep,
} from '../analysis/recognisers/index.js';
import { DUAL_ANCHOR_PARTIAL_OPERATIONS, DUAL_ANCHOR_RECORD_FIELD_NAMES } from '../../vocabulary/index.js';
import { createRule, type CheckpointFencingRule } from '../create-rule.js';

/** Message ids of `no-read-modify-write-anchor`. */
export type NoReadModifyWriteAnchorMessageId = 'readModifyWrite';

type SourceCode = Readonly<TSESLint.SourceCode>;

/** Writes that only create, failing when the record exists. */
const CREATE_ONLY_METHODS: ReadonlySet<string> = new Set([
  'insert',
  'insertOne',
  'insertMany',
  'create',
  'setnx',
  'hsetnx',
]);
/** Calls chained on an insert that turn it into an upsert (Knex, Drizzle, Kysely, TypeORM). */
const UPSERT_CHAIN_METHODS: ReadonlySet<string> = new Set([
  'onConflict',
  'onConflictDoUpdate',
  'onDuplicateKeyUpdate',
  'merge',
  'orUpdate',
]);
/** An SQL `INSERT` that does not update an existing row (no `ON CONFLICT … DO UPDATE`, no `ON DUPLICATE KEY UPDATE`). */
const SQL_CREATE_ONLY = /^\s*insert\b(?![\s\S]*\bon\s+(?:conflict\b[\s\S]*\bdo\s+update|duplicate\s+key\s+update)\b)/iu;
type WriteNode = TSESTree.CallExpression | TSESTree.TaggedTemplateExpression;

/** The record's own fields, as {@link normalizedFieldName} spells them: `lastProcessedToken` is state, not an id. */
const RECORD_FIELDS: ReadonlySet<string> = new Set(
  DUAL_ANCHOR_RECORD_FIELD_NAMES.filter((name) => name !== 'streamName').map(normalizedFieldName),
);

/** Names that identify or version a record rather than hold its state: reading one back is not copying the record. */
const KEY_OR_VERSION: ReadonlySet<string> = new Set([
  'id',
  'key',
  'version',
  'etag',
  'rev',
  'revision',
  'cas',
  'v',
  'rowcount',
  'length',
  'count',
]);

/** Names of the version a write judges itself (optimistic concurrency): `version`, `_version`, `__v`, `revision`. */
const VERSIONS: ReadonlySet<string> = new Set(['version', 'v', 'revision', 'rev', 'etag', 'cas']);
/** Option names that make a write judge an expected version: `expectedVersion`, `expectedRevision`, `ifMatch`. */
const EXPECTED_VERSIONS: ReadonlySet<string> = new Set([
  'expectedversion',
  'expectedrevision',
  'expectedetag',
  'ifmatch',
]);

const TESTS: ReadonlySet<string> = new Set(['===', '!==', '==', '!=', '<', '<=', '>', '>=', 'instanceof', 'in']);

/** Reports a partial write of a dual-anchor store that reads the record and writes it back whole. */
export const noReadModifyWriteAnchor: CheckpointFencingRule<NoReadModifyWriteAnchorMessageId, [DualAnchorRuleOptions]> =
  createRule<[DualAnchorRuleOptions], NoReadModifyWriteAnchorMessageId>({
    name: 'no-read-modify-write-anchor',
    meta: {
      type: 'problem',
      docs: {
        description:
          'Disallow partial operations of a DualAnchorCheckpointStore that read the record and write it back whole',
        recommended: true,
        requiresTypeChecking: false,
        usesTypeInformationWhenAsked: true,
      },
      messages: {
        readModifyWrite:
          'This partial write saves back what `{{read}}` read (line {{line}}): the other anchor has its own writer, and a write of it between the read and this one ' +
          'is undone, its stale value brought back. Write only this operation’s own fields in one targeted atomic upsert ' +
          '(a partial `$set` with `upsert: true`, an `HSET` of its fields, `INSERT … ON CONFLICT DO UPDATE SET` of its columns).',
      },
      schema: DUAL_ANCHOR_RULE_SCHEMA,
      defaultOptions: [DUAL_ANCHOR_RULE_DEFAULTS],
    },
    create(context, [options]) {
      const { sourceCode } = context;
      return dualAnchorStoreListeners(context, options, (store) => {
        const reported = new Set<TSESTree.Node>();
        for (const operation of operationsOf(store, DUAL_ANCHOR_PARTIAL_OPERATIONS, PARTIAL_WRITE_STEPS)) {
          for (const method of methodWithHelpers(store, operation.method, sourceCode)) {
            for (const { read, write } of readModifyWrites(method, store, sourceCode)) {
              if (!reported.has(write)) {
                reported.add(write);
                context.report({
                  node: write,
                  messageId: 'readModifyWrite',
                  data: { read: sourceCode.getText(read.callee), line: read.loc.start.line },
                });
              }
            }
          }
        }
      });
    },
  });

/**
 * The writes in `method` whose arguments carry a record read by an awaited call of the same method: the read value
 * itself, a copy or a function of it, or a field of it other than an id or a version, through any variables it is
 * stored in. A read never awaited (a `Map` in memory) is one step with the write and is left alone, as is a method
 * that makes read and write one atomic step.
 */
function readModifyWrites(
  method: TSESTree.FunctionLike,
  store: DualAnchorStore,
  sourceCode: SourceCode,
): { read: TSESTree.CallExpression; write: WriteNode }[] {
  if (usesAtomicStep(method, sourceCode)) {
    return [];
  }
  const found: { read: TSESTree.CallExpression; write: WriteNode }[] = [];
  for (const node of bodyNodes(method, sourceCode)) {
    if (node.type === AST_NODE_TYPES.CallExpression && storeCallKind(node, store, sourceCode) === 'read') {
      const write = writeCarrying(node, store, sourceCode);
      if (write !== undefined) {
        found.push({ read: node, write });
      }
    }
  }
  return found;
}

/**
 * The first write that the value of `read` reaches once awaited, following it through the variables it is stored in.
 * The await must be the read's own: a value handed to another call first (`cache.get(k)` passed to an async helper)
 * is no longer the record the store holds once that call is awaited.
 */
function writeCarrying(
  read: TSESTree.CallExpression,
  store: DualAnchorStore,
  sourceCode: SourceCode,
): WriteNode | undefined {
  const pending: { start: TSESTree.Node; awaited: boolean; handedOn: boolean }[] = [
    { start: read, awaited: false, handedOn: false },
  ];
  const followed = new Set<TSESLint.Scope.Variable>();
  for (let next = pending.shift(); next !== undefined; next = pending.shift()) {
    let { awaited, handedOn } = next;
    for (const step of carriersOf(next.start)) {
      awaited ||= step.node.type === AST_NODE_TYPES.AwaitExpression && !handedOn;
      if (awaited && isWriteOf(step, store, sourceCode)) {
        return step.node as WriteNode;
      }
      handedOn ||= step.node.type === AST_NODE_TYPES.CallExpression || step.node.type === AST_NODE_TYPES.NewExpression;
      for (const variable of variablesAssigned(step, sourceCode)) {
        if (!followed.has(variable)) {
          followed.add(variable);
          pending.push(
            ...variable.references
              .filter((reference) => reference.isRead())
              .map((reference) => ({ start: reference.identifier, awaited, handedOn })),
          );
        }
      }
    }
  }
  return undefined;
}

/**
 * Whether `step` hands the value to a write as one of its values: not as an SQL text, not to a write that judges a
 * version itself (an SQL `WHERE … version`, an expected version or revision among its options, a filter on the
 * version), which makes read and write a compare-and-set.
 */
function isWriteOf(
  step: { readonly node: TSESTree.Node; readonly from: TSESTree.Node },
  store: DualAnchorStore,
  sourceCode: SourceCode,
): boolean {
  const { node, from } = step;
  if (node.type === AST_NODE_TYPES.TaggedTemplateExpression) {
    const statement = sqlStatementOf(node, sourceCode.getScope(node));
    return statement !== undefined && !hasSqlVersionGuard(statement);
  }
  if (node.type !== AST_NODE_TYPES.CallExpression || skipTransparentWrappers(node.callee) === from) {
    return false;
  }
  const kind = storeCallKind(node, store, sourceCode);
  if ((kind !== 'write' && kind !== 'statement') || judgesVersion(node)) {
    return false;
  }
  const statement = sqlStatementOf(node, sourceCode.getScope(node));
  if (statement !== undefined) {
    return node.arguments[0] !== from && !hasSqlVersionGuard(statement) && !SQL_CREATE_ONLY.test(statement.text ?? '');
  }
  return !createsOnly(node);
}

/**
 * An insert that fails when the record exists (`insertOne`, `insert` without an `onConflict(…).merge()`, `HSETNX`):
 * if another writer created the record meanwhile it fails loudly, so it can bring back nothing.
 */
function createsOnly(call: TSESTree.CallExpression): boolean {
  if (!CREATE_ONLY_METHODS.has(calleeName(call) ?? '')) {
    return false;
  }
  for (
    let child: TSESTree.Node = call, parent = parentOf(call);
    parent !== undefined;
    child = parent, parent = parentOf(parent)
  ) {
    if (parent.type === AST_NODE_TYPES.MemberExpression && parent.object === child) {
      if (UPSERT_CHAIN_METHODS.has(staticMemberName(parent) ?? '')) {
        return false;
      }
    } else if (!(parent.type === AST_NODE_TYPES.CallExpression && parent.callee === child)) {
      return true;
    }
  }
  return true;
}

/** `replaceOne(filter, doc, { expectedVersion })`, `updateOne({ _id, version: read.version }, …)`. */
function judgesVersion(call: TSESTree.CallExpression): boolean {
  return call.arguments.some((argument, index) =>
    objectKeys(argument).some((key) => namesExpectedVersion(key) || (index === 0 && namesVersion(key))),
  );
}

function objectKeys(node: TSESTree.Node): string[] {
  const object = skipTransparentWrappers(node);
  return object.type === AST_NODE_TYPES.ObjectExpression
    ? object.properties.flatMap((property) =>
        property.type === AST_NODE_TYPES.Property ? [staticPropertyKeyName(property.key, property.computed) ?? ''] : [],
      )
    : [];
}

// Where a value read from a store goes inside one function: which expressions around it still carry it (a copy, a
// spread, a function of it, a choice between it and a default) and which only test it or pick its key or version.

/** A step of a value up the tree: the expression `node` that now carries the value its child `from` held. */
interface CarrierStep {
  readonly node: TSESTree.Node;
  readonly from: TSESTree.Node;
}

/**
 * The expressions that carry the value of `start` outward, innermost first, ending at the first one that does not
 * (a test, a pick of an id or version, a statement). A call carries the values of its arguments (`JSON.parse(raw)`,
 * `encode(record)`), so the chain passes through the calls a value is handed to.
 */
function* carriersOf(start: TSESTree.Node): Generator<CarrierStep> {
  let child = start;
  for (let parent = parentOf(start); parent !== undefined && carries(child, parent); parent = parentOf(parent)) {
    yield { node: parent, from: child };
    child = parent;
  }
}

/** The variables `step`'s expression is stored in: a declarator's, an assigned identifier, an object assigned into. */
function variablesAssigned(step: CarrierStep, sourceCode: SourceCode): readonly TSESLint.Scope.Variable[] {
  const { node, from } = step;
  if (node.type === AST_NODE_TYPES.VariableDeclarator && node.init === from) {
    return sourceCode.getDeclaredVariables(node);
  }
  if (node.type === AST_NODE_TYPES.AssignmentExpression && node.right === from) {
    const root = rootIdentifier(node.left);
    const variable = root === undefined ? undefined : referencedVariable(root, sourceCode);
    return variable === undefined ? [] : [variable];
  }
  return [];
}

/** The identifier a member chain starts from: `record` in `record.a.b`, `rows` in `rows[0]?.x`. */
function rootIdentifier(node: TSESTree.Node): TSESTree.Identifier | undefined {
  let current = node;
  while (current.type === AST_NODE_TYPES.MemberExpression || current.type === AST_NODE_TYPES.ChainExpression) {
    current = current.type === AST_NODE_TYPES.MemberExpression ? current.object : current.expression;
  }
  return current.type === AST_NODE_TYPES.Identifier ? current : undefined;
}

/** Whether `parent` still carries the value `child` holds: not a test, nor a pick of its key or version. */
function carries(child: TSESTree.Node, parent: TSESTree.Node): boolean {
  switch (parent.type) {
    case AST_NODE_TYPES.AwaitExpression:
    case AST_NODE_TYPES.ChainExpression:
    case AST_NODE_TYPES.TSAsExpression:
    case AST_NODE_TYPES.TSNonNullExpression:
    case AST_NODE_TYPES.TSSatisfiesExpression:
    case AST_NODE_TYPES.TSTypeAssertion:
    case AST_NODE_TYPES.SpreadElement:
    case AST_NODE_TYPES.ArrayExpression:
    case AST_NODE_TYPES.ObjectExpression:
    case AST_NODE_TYPES.TemplateLiteral:
    case AST_NODE_TYPES.TaggedTemplateExpression:
    case AST_NODE_TYPES.CallExpression:
    case AST_NODE_TYPES.NewExpression:
    case AST_NODE_TYPES.LogicalExpression:
    case AST_NODE_TYPES.VariableDeclarator:
      return true;
    case AST_NODE_TYPES.Property:
      return parent.value === child;
    case AST_NODE_TYPES.AssignmentExpression:
      return parent.right === child;
    case AST_NODE_TYPES.ConditionalExpression:
      return parent.test !== child;
    case AST_NODE_TYPES.BinaryExpression:
      return !TESTS.has(parent.operator);
    case AST_NODE_TYPES.UnaryExpression:
      return parent.operator === '-' || parent.operator === '+';
    case AST_NODE_TYPES.MemberExpression: {
      if (parent.object !== child) {
        return false;
      }
      const name = staticMemberName(parent);
      return name === undefined || !namesKeyOrVersion(name);
    }
    default:
      return false;
  }
}

/** Whether `name` is a record's version, as a filter on it makes a compare-and-set: `version`, `_version`, `__v`. */
function namesVersion(name: string): boolean {
  return VERSIONS.has(normalizedFieldName(name));
}

/** Whether `name` is an option that makes a write judge an expected version: `expectedVersion`, `ifMatch`. */
function namesExpectedVersion(name: string): boolean {
  return EXPECTED_VERSIONS.has(normalizedFieldName(name));
}

/** Whether `name` identifies or versions a record (`id`, `streamId`, `version`, `_id`, `__v`, `rowCount`). */
function namesKeyOrVersion(name: string): boolean {
  const plain = normalizedFieldName(name);
  return KEY_OR_VERSION.has(plain) || (plain.endsWith('id') && !RECORD_FIELDS.has(plain));
}
