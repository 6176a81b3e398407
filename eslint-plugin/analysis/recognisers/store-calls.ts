import { AST_NODE_TYPES } from '@typescript-eslint/types';
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { findVariable } from '../scope-variables.js';
import { skipTransparentWrappers, staticMemberName, staticPropertyKeyName } from '../static-member-name.js';

// What the calls in a store's own code do to the backend, by their names and, for SQL, by the statement text: the
// vocabulary the rules about storages share. Names cover Redis clients, key-value and document stores, ORMs and query
// builders; a contract's own members (a storage's `writeVersion`, a dual-anchor store's `findByStreamName`) are added
// by the rule that knows the contract.

/** Calls that read stored state: Redis, key-value and document stores, ORMs. */
export const STORE_READ_METHODS: ReadonlySet<string> = new Set([
  'read',
  'get',
  'hget',
  'hmget',
  'hgetall',
  'mget',
  'getItem',
  'findOne',
  'findOneBy',
  'findUnique',
  'findFirst',
  'findById',
]);

/** Calls that write stored state: Redis, key-value and document stores, ORMs and query builders. */
export const STORE_WRITE_METHODS: ReadonlySet<string> = new Set([
  'set',
  'hset',
  'hmset',
  'mset',
  'setItem',
  'put',
  'save',
  'write',
  'update',
  'updateOne',
  'updateMany',
  'insert',
  'insertOne',
  'upsert',
  'replaceOne',
  'findOneAndUpdate',
  'findOneAndReplace',
  'findByIdAndUpdate',
  'del',
  'hdel',
  'unlink',
  'deleteOne',
  'deleteMany',
]);

/** Calls that make a read and a write one atomic step: optimistic transactions, locks, server-side scripts. */
export const ATOMIC_STEP_METHODS: ReadonlySet<string> = new Set([
  'watch',
  'multi',
  'transaction',
  '$transaction',
  'withTransaction',
  'lock',
  'runExclusive',
  'eval',
  'evalsha',
  'fcall',
]);

/** The statement kinds an SQL text starts with (after any `WITH … AS (…)` prefix). */
const SQL_START = /^\s*(?:select|insert|update|delete|merge|with|upsert|replace|begin|start\s+transaction)\b/iu;
const SQL_READ = /^\s*select\b/iu;
const SQL_WRITE = /^\s*(?:with\b[\s\S]*\)\s*)?(?:update|insert|replace|merge|upsert|delete)\b/iu;
/** Statements that open a transaction: what follows on that connection is one atomic step until the commit. */
const SQL_TRANSACTION = /^\s*(?:begin|start\s+transaction)\b|\bfor\s+(?:no\s+key\s+)?update\b/iu;
/** A `WHERE … version …` clause: the statement judges the version itself, atomically. */
const SQL_VERSION_GUARD = /\bwhere\b[\s\S]*\bversion\b/iu;
/**
 * Method names that run a statement passed as their first argument, whatever its text (node-postgres, mysql2,
 * pg-promise, Prisma). Generic names (`run`, `exec`, `any`) are left out: `Promise.any` and `RegExp#exec` are not SQL.
 */
const STATEMENT_METHODS: ReadonlySet<string> = new Set([
  'query',
  'execute',
  'none',
  'oneOrNone',
  'manyOrNone',
  '$executeRaw',
  '$executeRawUnsafe',
  '$queryRaw',
  '$queryRawUnsafe',
]);

/** What a placeholder for a value the rule cannot see reads as inside a statement's text. */
const UNKNOWN_PART = ' ? ';

/** The property name a call is made through (`b` in `a.b()`, `a?.b()`, `a['b']()`, `#b` in `this.#b()`). */
export function calleeName(call: TSESTree.CallExpression): string | undefined {
  const callee = skipTransparentWrappers(call.callee);
  return callee.type === AST_NODE_TYPES.MemberExpression ? staticMemberName(callee) : undefined;
}

/** A call or tagged template that runs an SQL statement, with the statement's text where the rule can read it. */
export interface SqlStatement {
  readonly node: TSESTree.CallExpression | TSESTree.TaggedTemplateExpression;
  /** The text, with `?` for every part the rule cannot read; `undefined` when not even its start is known. */
  readonly text: string | undefined;
}

/**
 * `node` as an SQL statement: a call whose first argument reads as SQL (a string, a template, a concatenation, a
 * `const` of this file, or `{ text }` as node-postgres takes it), a call of a statement-running method (`query`,
 * `execute`, …) with any first argument, or a tagged template whose text reads as SQL (`` sql`UPDATE …` ``).
 */
export function sqlStatementOf(node: TSESTree.Node, scope: TSESLint.Scope.Scope): SqlStatement | undefined {
  if (node.type === AST_NODE_TYPES.TaggedTemplateExpression) {
    const text = templateText(node.quasi);
    return SQL_START.test(text) ? { node, text } : undefined;
  }
  if (node.type !== AST_NODE_TYPES.CallExpression) {
    return undefined;
  }
  const first = node.arguments[0];
  const text = first === undefined ? undefined : staticText(first, scope, new Set());
  if (text !== undefined && SQL_START.test(text)) {
    return { node, text };
  }
  const name = calleeName(node);
  return name !== undefined && STATEMENT_METHODS.has(name) && first !== undefined
    ? { node, text: text !== undefined && text.trim() !== UNKNOWN_PART.trim() ? text : undefined }
    : undefined;
}

/** Whether the statement reads (`SELECT`). */
export function isSqlRead(statement: SqlStatement): boolean {
  return statement.text !== undefined && SQL_READ.test(statement.text) && !SQL_WRITE.test(statement.text);
}

/** Whether the statement writes (`INSERT`, `UPDATE`, `MERGE`, `DELETE`, …, also after a `WITH`). */
export function isSqlWrite(statement: SqlStatement): boolean {
  return statement.text !== undefined && SQL_WRITE.test(statement.text);
}

/** Whether the statement opens a transaction or locks the rows it reads (`BEGIN`, `SELECT … FOR UPDATE`). */
export function isSqlTransaction(statement: SqlStatement): boolean {
  return statement.text !== undefined && SQL_TRANSACTION.test(statement.text);
}

/** Whether the statement judges a version in its own `WHERE`, as one atomic step. */
export function hasSqlVersionGuard(statement: SqlStatement): boolean {
  return statement.text !== undefined && SQL_VERSION_GUARD.test(statement.text);
}

/**
 * The text of an expression built from strings: literals, templates (`?` for each substitution), `+` concatenations,
 * `{ text: … }`, and identifiers bound to a `const` with such an initialiser; `undefined` for anything else.
 */
function staticText(node: TSESTree.Node, scope: TSESLint.Scope.Scope, seen: Set<TSESTree.Node>): string | undefined {
  const target = skipTransparentWrappers(node);
  switch (target.type) {
    case AST_NODE_TYPES.Literal:
      return typeof target.value === 'string' ? target.value : undefined;
    case AST_NODE_TYPES.TemplateLiteral:
      return templateText(target);
    case AST_NODE_TYPES.BinaryExpression: {
      if (target.operator !== '+') {
        return undefined;
      }
      const left = staticText(target.left, scope, seen);
      return left === undefined ? undefined : left + (staticText(target.right, scope, seen) ?? UNKNOWN_PART);
    }
    case AST_NODE_TYPES.ObjectExpression: {
      const text = target.properties.find(
        (property): property is TSESTree.Property =>
          property.type === AST_NODE_TYPES.Property &&
          staticPropertyKeyName(property.key, property.computed) === 'text',
      );
      return text === undefined ? undefined : staticText(text.value, scope, seen);
    }
    case AST_NODE_TYPES.Identifier:
      return constantText(target, scope, seen);
    default:
      return undefined;
  }
}

function constantText(
  identifier: TSESTree.Identifier,
  scope: TSESLint.Scope.Scope,
  seen: Set<TSESTree.Node>,
): string | undefined {
  const definition = findVariable(scope, identifier)?.defs[0];
  const declarator = definition?.node;
  if (
    declarator?.type !== AST_NODE_TYPES.VariableDeclarator ||
    declarator.parent.kind !== 'const' ||
    declarator.init === null ||
    seen.has(declarator)
  ) {
    return undefined;
  }
  seen.add(declarator);
  return staticText(declarator.init, scope, seen);
}

function templateText(template: TSESTree.TemplateLiteral): string {
  return template.quasis.map((quasi) => quasi.value.cooked ?? quasi.value.raw).join(UNKNOWN_PART);
}
