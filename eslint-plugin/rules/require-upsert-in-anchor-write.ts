import { AST_NODE_TYPES } from '@typescript-eslint/types';
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import {
  descendantNodes,
  findVariable,
  parentOf,
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
  methodWithHelpers,
  operationsOf,
  PARTIAL_WRITE_STEPS,
  type SqlStatement,
  sqlStatementOf,
  storeCallKind,
} from '../analysis/recognisers/index.js';
import { DUAL_ANCHOR_PARTIAL_OPERATIONS } from '../../vocabulary/index.js';
import { createRule, type CheckpointFencingRule } from '../create-rule.js';

/** Message ids of `require-upsert-in-anchor-write`. */
export type RequireUpsertInAnchorWriteMessageId =
  'plainUpdate' | 'updateWithoutUpsertOption' | 'builderUpdate' | 'writeOnlyIfExists' | 'addUpsertOption';

type SourceCode = Readonly<TSESLint.SourceCode>;
/** Reports once per node: an operation and the helpers it shares with another are looked at once for each. */
type Report = (
  descriptor: TSESLint.ReportDescriptor<RequireUpsertInAnchorWriteMessageId> & { readonly node: TSESTree.Node },
) => void;

/** Document-store updates that take `(filter, update, options)` and insert only with `upsert: true`. */
const DOCUMENT_UPDATES: ReadonlySet<string> = new Set([
  'updateOne',
  'updateMany',
  'findOneAndUpdate',
  'findByIdAndUpdate',
  'replaceOne',
  'findOneAndReplace',
]);
/** Query-builder and ORM calls that update existing rows only (Knex, Drizzle, Kysely, TypeORM, Sequelize, Prisma). */
const BUILDER_UPDATES: ReadonlySet<string> = new Set(['update', 'updateTable', 'updateMany']);
/** Calls that create a record, so an operation that makes one of them persists on a brand-new stream. */
const INSERTING_CALLS: ReadonlySet<string> = new Set([
  'insert',
  'insertInto',
  'insertOne',
  'upsert',
  'save',
  'onConflict',
  'onConflictDoUpdate',
  'onDuplicateKeyUpdate',
  'merge',
]);
/** Calls that test whether a record exists: `Map#has`, Redis `EXISTS`/`HEXISTS`. */
const EXISTENCE_CHECKS: ReadonlySet<string> = new Set(['has', 'exists', 'hexists']);
const SQL_UPDATE = /^\s*(?:with\b[\s\S]*\)\s*)?update\b/iu;
const SQL_INSERTING = /\b(?:insert|merge|upsert)\b/iu;

/** Reports a partial write of a dual-anchor store that persists nothing on a brand-new stream. */
export const requireUpsertInAnchorWrite: CheckpointFencingRule<
  RequireUpsertInAnchorWriteMessageId,
  [DualAnchorRuleOptions]
> = createRule<[DualAnchorRuleOptions], RequireUpsertInAnchorWriteMessageId>({
  name: 'require-upsert-in-anchor-write',
  meta: {
    type: 'problem',
    docs: {
      description:
        'Require every partial operation of a DualAnchorCheckpointStore to upsert, so it persists on a brand-new stream',
      recommended: true,
      requiresTypeChecking: false,
      usesTypeInformationWhenAsked: true,
    },
    hasSuggestions: true,
    messages: {
      plainUpdate:
        'This partial write is a plain `UPDATE`, and no other write of this operation creates the row: on a brand-new stream it matches no ' +
        'row and persists nothing, while the caller goes on ' +
        'believing its position is durable (the first `saveSeen` of a new stream is such a write). Upsert only this operation’s columns: ' +
        '`INSERT … ON CONFLICT (…) DO UPDATE SET …`, or `MERGE`.',
      updateWithoutUpsertOption:
        'This `{{method}}` has no `upsert: true`, and no other write of this operation creates the document: on a brand-new stream it matches ' +
        'no document and persists nothing, while the caller goes on believing its position is durable. Pass `upsert: true`.',
      builderUpdate:
        'This `{{method}}` changes existing rows only, and this operation never creates one: on a brand-new stream it persists nothing, while the ' +
        'caller goes on believing its position is durable. Use the upsert of your query builder or ORM ' +
        '(`insert(…).onConflict(…).merge()`, `onConflictDoUpdate`, `upsert`).',
      writeOnlyIfExists:
        'This write runs only when `{{check}}` finds the record: on a brand-new stream it persists nothing, while the caller goes on believing ' +
        'its position is durable. Write unconditionally, as one upsert of this operation’s own fields.',
      addUpsertOption: 'Pass `upsert: true`.',
    },
    schema: DUAL_ANCHOR_RULE_SCHEMA,
    defaultOptions: [DUAL_ANCHOR_RULE_DEFAULTS],
  },
  create(context, [options]) {
    const { sourceCode } = context;
    return dualAnchorStoreListeners(context, options, (store) => {
      const reported = new Set<TSESTree.Node>();
      const report: Report = (descriptor) => {
        if (!reported.has(descriptor.node)) {
          reported.add(descriptor.node);
          context.report(descriptor);
        }
      };
      for (const operation of operationsOf(store, DUAL_ANCHOR_PARTIAL_OPERATIONS, PARTIAL_WRITE_STEPS)) {
        const methods = methodWithHelpers(store, operation.method, sourceCode);
        const nodes = methods.flatMap((method) => bodyNodes(method, sourceCode));
        const statements = nodes
          .map((node) => sqlStatementOf(node, sourceCode.getScope(node)))
          .filter((statement) => statement !== undefined);
        const calls = nodes.filter((node) => node.type === AST_NODE_TYPES.CallExpression);
        // An operation with one write that creates the record (or may: options the rule cannot read) may update it
        // further with writes that do not.
        const creates =
          statements.some((statement) => isInserting(statement)) ||
          calls.some(
            (call) =>
              INSERTING_CALLS.has(calleeName(call) ?? '') ||
              (isDocumentUpdate(call) && upsertOf(call, sourceCode) !== 'absent'),
          );
        if (!creates) {
          for (const statement of statements.filter((candidate) => SQL_UPDATE.test(candidate.text ?? ''))) {
            report({ node: statement.node, messageId: 'plainUpdate' });
          }
          for (const call of calls) {
            checkUpdateCall(call, sourceCode, report);
          }
        }
        for (const method of methods) {
          if (method.body?.type === AST_NODE_TYPES.BlockStatement) {
            checkExistenceGuards(method.body, store, sourceCode, report);
          }
        }
      }
    });
  },
});

function isInserting(statement: SqlStatement): boolean {
  return statement.text !== undefined && !SQL_UPDATE.test(statement.text) && SQL_INSERTING.test(statement.text);
}

/** `updateOne(filter, update, options?)` and its kin: an update that inserts only with `upsert: true`. */
function isDocumentUpdate(call: TSESTree.CallExpression): boolean {
  return DOCUMENT_UPDATES.has(calleeName(call) ?? '') && call.arguments.length >= 2;
}

/**
 * A query-builder or ORM update. An `update` that takes a function is an in-memory one (Immutable's
 * `map.update(key, fn)`, lodash's `_.update(object, path, fn)`): no builder's update takes a callback.
 */
function isBuilderUpdate(call: TSESTree.CallExpression, method: string): boolean {
  return (
    BUILDER_UPDATES.has(method) &&
    !call.arguments.some(
      (argument) =>
        argument.type === AST_NODE_TYPES.ArrowFunctionExpression || argument.type === AST_NODE_TYPES.FunctionExpression,
    )
  );
}

/** What a call's options (its third argument) say about `upsert`. */
function upsertOf(call: TSESTree.CallExpression, sourceCode: SourceCode): 'true' | 'absent' | 'unknown' {
  const options = call.arguments[2];
  return options === undefined ? 'absent' : upsertOption(options, sourceCode);
}

/** In an operation that never creates the record: a document update without `upsert: true`, or a builder update. */
function checkUpdateCall(call: TSESTree.CallExpression, sourceCode: SourceCode, report: Report): void {
  const method = calleeName(call);
  if (method === undefined || !settlesAsWrite(call)) {
    return;
  }
  const documentUpdate = isDocumentUpdate(call);
  if ((!documentUpdate && !isBuilderUpdate(call, method)) || upsertOf(call, sourceCode) !== 'absent') {
    return;
  }
  if (!documentUpdate) {
    report({ node: call, messageId: 'builderUpdate', data: { method } });
    return;
  }
  report({
    node: call,
    messageId: 'updateWithoutUpsertOption',
    data: { method },
    suggest: upsertSuggestion(call, call.arguments[2]),
  });
}

/** What an options argument says about `upsert`; a spread, a computed value or an options object built elsewhere is unknown. */
function upsertOption(options: TSESTree.Node, sourceCode: SourceCode): 'true' | 'absent' | 'unknown' {
  const object = objectLiteralOf(options, sourceCode);
  if (object === undefined || object.properties.some((property) => property.type !== AST_NODE_TYPES.Property)) {
    return 'unknown';
  }
  const upsert = object.properties.find(
    (property): property is TSESTree.Property =>
      property.type === AST_NODE_TYPES.Property && staticPropertyKeyName(property.key, property.computed) === 'upsert',
  );
  if (upsert === undefined) {
    return 'absent';
  }
  const value = skipTransparentWrappers(upsert.value);
  return value.type === AST_NODE_TYPES.Literal && typeof value.value === 'boolean'
    ? value.value
      ? 'true'
      : 'absent'
    : 'unknown';
}

/** The object literal an options argument is, written inline or as a `const` of this file. */
function objectLiteralOf(node: TSESTree.Node, sourceCode: SourceCode): TSESTree.ObjectExpression | undefined {
  const target = skipTransparentWrappers(node);
  if (target.type === AST_NODE_TYPES.ObjectExpression) {
    return target;
  }
  if (target.type !== AST_NODE_TYPES.Identifier) {
    return undefined;
  }
  const declarator = findVariable(sourceCode.getScope(target), target)?.defs[0]?.node;
  return declarator?.type === AST_NODE_TYPES.VariableDeclarator &&
    declarator.parent.kind === 'const' &&
    declarator.init !== null &&
    skipTransparentWrappers(declarator.init).type === AST_NODE_TYPES.ObjectExpression
    ? (skipTransparentWrappers(declarator.init) as TSESTree.ObjectExpression)
    : undefined;
}

/** Adds `upsert: true` where the call's own text can take it: a missing options argument, or an inline options object. */
function upsertSuggestion(
  call: TSESTree.CallExpression,
  options: TSESTree.Node | undefined,
): TSESLint.SuggestionReportDescriptor<RequireUpsertInAnchorWriteMessageId>[] {
  if (options === undefined) {
    const update = call.arguments[1];
    return update === undefined
      ? []
      : [{ messageId: 'addUpsertOption', fix: (fixer) => fixer.insertTextAfter(update, ', { upsert: true }') }];
  }
  const object = skipTransparentWrappers(options);
  if (object.type !== AST_NODE_TYPES.ObjectExpression) {
    return [];
  }
  const existing = object.properties.find(
    (property): property is TSESTree.Property =>
      property.type === AST_NODE_TYPES.Property && staticPropertyKeyName(property.key, property.computed) === 'upsert',
  );
  const first = object.properties[0];
  return [
    {
      messageId: 'addUpsertOption',
      fix: (fixer) =>
        existing !== undefined
          ? fixer.replaceText(existing.value, 'true')
          : first !== undefined
            ? fixer.insertTextBefore(first, 'upsert: true, ')
            : fixer.replaceText(object, '{ upsert: true }'),
    },
  ];
}

/**
 * Whether the promise of `call` is settled as a write: awaited or returned, through any chain of calls on it
 * (`db.update(t).set(v).where(w)`), and not a hash being fed (`createHash('sha1').update(x).digest()`).
 */
function settlesAsWrite(call: TSESTree.CallExpression): boolean {
  let child: TSESTree.Node = call;
  for (let parent = parentOf(call); parent !== undefined; child = parent, parent = parentOf(parent)) {
    switch (parent.type) {
      case AST_NODE_TYPES.MemberExpression:
        if (parent.object !== child || staticMemberName(parent) === 'digest') {
          return false;
        }
        break;
      case AST_NODE_TYPES.CallExpression:
        if (parent.callee !== child) {
          return false;
        }
        break;
      case AST_NODE_TYPES.ChainExpression:
      case AST_NODE_TYPES.TSNonNullExpression:
      case AST_NODE_TYPES.TSAsExpression:
        break;
      case AST_NODE_TYPES.AwaitExpression:
      case AST_NODE_TYPES.ReturnStatement:
        return true;
      case AST_NODE_TYPES.ArrowFunctionExpression:
        return parent.body === child;
      default:
        return false;
    }
  }
  return false;
}

/**
 * Writes that run only when the record exists: inside `if (<exists>) { … }` with no write on the other branch, or
 * after `if (<absent>) return;`. Existence is a `has`/`exists`/`hexists` call, or the value of an awaited read.
 */
function checkExistenceGuards(
  body: TSESTree.BlockStatement,
  store: DualAnchorStore,
  sourceCode: SourceCode,
  report: Report,
): void {
  const firstWrite = (nodes: Iterable<TSESTree.Node>): TSESTree.CallExpression | undefined => {
    for (const node of nodes) {
      if (node.type === AST_NODE_TYPES.CallExpression && storeCallKind(node, store, sourceCode) === 'write') {
        return node;
      }
    }
    return undefined;
  };
  const within = (node: TSESTree.Node | null): TSESTree.Node[] =>
    node === null ? [] : [node, ...descendantNodes(node, sourceCode.visitorKeys, true)];
  for (const node of [body, ...descendantNodes(body, sourceCode.visitorKeys, true)]) {
    if (node.type !== AST_NODE_TYPES.BlockStatement) {
      continue;
    }
    node.body.forEach((statement, index) => {
      if (statement.type !== AST_NODE_TYPES.IfStatement) {
        return;
      }
      const guard = existenceTest(statement.test, store, sourceCode);
      if (guard === undefined) {
        return;
      }
      const write =
        guard.polarity === 'exists'
          ? firstWrite(within(statement.alternate)) === undefined
            ? firstWrite(within(statement.consequent))
            : undefined
          : returnsWithoutWriting(statement.consequent, firstWrite, within)
            ? firstWrite(node.body.slice(index + 1).flatMap(within))
            : undefined;
      if (write !== undefined) {
        report({ node: write, messageId: 'writeOnlyIfExists', data: { check: sourceCode.getText(guard.check) } });
      }
    });
  }
}

function returnsWithoutWriting(
  consequent: TSESTree.Statement,
  firstWrite: (nodes: Iterable<TSESTree.Node>) => TSESTree.CallExpression | undefined,
  within: (node: TSESTree.Node | null) => TSESTree.Node[],
): boolean {
  const last = consequent.type === AST_NODE_TYPES.BlockStatement ? consequent.body.at(-1) : consequent;
  return last?.type === AST_NODE_TYPES.ReturnStatement && firstWrite(within(consequent)) === undefined;
}

/** What `test` says about the record: it exists (`has(…)`, `found`), or it is absent (`!(await exists(…))`, `found === undefined`). */
function existenceTest(
  test: TSESTree.Expression,
  store: DualAnchorStore,
  sourceCode: SourceCode,
): { polarity: 'exists' | 'absent'; check: TSESTree.Node } | undefined {
  const node = skipTransparentWrappers(test);
  if (node.type === AST_NODE_TYPES.UnaryExpression && node.operator === '!') {
    const inner = existenceTest(node.argument, store, sourceCode);
    return inner === undefined ? undefined : { ...inner, polarity: inner.polarity === 'exists' ? 'absent' : 'exists' };
  }
  if (node.type === AST_NODE_TYPES.AwaitExpression) {
    return existenceTest(node.argument, store, sourceCode);
  }
  if (node.type === AST_NODE_TYPES.CallExpression && EXISTENCE_CHECKS.has(calleeName(node) ?? '')) {
    return { polarity: 'exists', check: node.callee };
  }
  if (node.type === AST_NODE_TYPES.Identifier) {
    return isAwaitedRead(node, store, sourceCode) ? { polarity: 'exists', check: node } : undefined;
  }
  if (
    node.type === AST_NODE_TYPES.BinaryExpression &&
    ['===', '!==', '==', '!='].includes(node.operator) &&
    node.left.type === AST_NODE_TYPES.Identifier &&
    isNothing(node.right) &&
    isAwaitedRead(node.left, store, sourceCode)
  ) {
    return { polarity: node.operator.startsWith('!') ? 'exists' : 'absent', check: node.left };
  }
  return undefined;
}

function isNothing(node: TSESTree.Node): boolean {
  return (
    (node.type === AST_NODE_TYPES.Literal && node.value === null) ||
    (node.type === AST_NODE_TYPES.Identifier && node.name === 'undefined')
  );
}

/** Whether `identifier` is a `const` holding an awaited read of the store: `const found = await this.findByStreamName(name)`. */
function isAwaitedRead(identifier: TSESTree.Identifier, store: DualAnchorStore, sourceCode: SourceCode): boolean {
  const declarator = findVariable(sourceCode.getScope(identifier), identifier)?.defs[0]?.node;
  if (declarator?.type !== AST_NODE_TYPES.VariableDeclarator || declarator.init === null) {
    return false;
  }
  const init = skipTransparentWrappers(declarator.init);
  const read = init.type === AST_NODE_TYPES.AwaitExpression ? skipTransparentWrappers(init.argument) : undefined;
  return read?.type === AST_NODE_TYPES.CallExpression && storeCallKind(read, store, sourceCode) === 'read';
}
