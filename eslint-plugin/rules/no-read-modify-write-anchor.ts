import { AST_NODE_TYPES } from '@typescript-eslint/types';
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import {
  bodyNodes,
  DUAL_ANCHOR_RULE_DEFAULTS,
  DUAL_ANCHOR_RULE_SCHEMA,
  dualAnchorStoreListeners,
  methodWithHelpers,
  operationsOf,
  PARTIAL_WRITE_STEPS,
  storeCallKind,
  usesAtomicStep,
  type DualAnchorRuleOptions,
  type DualAnchorStore,
} from '../analysis/dual-anchor-stores.js';
import { namesExpectedVersion, namesVersion } from '../analysis/anchor-field-names.js';
import { parentOf } from '../analysis/descendant-nodes.js';
import { skipTransparentWrappers, staticMemberName, staticPropertyKeyName } from '../analysis/static-member-name.js';
import { calleeName, hasSqlVersionGuard, sqlStatementOf } from '../analysis/store-calls.js';
import { carriersOf, variablesAssigned } from '../analysis/value-flow.js';
import { DUAL_ANCHOR_PARTIAL_OPERATIONS } from '../../vocabulary/index.js';
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
          for (const method of methodWithHelpers(store, operation.method, sourceCode.visitorKeys)) {
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
  for (const node of bodyNodes(method, sourceCode.visitorKeys)) {
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
