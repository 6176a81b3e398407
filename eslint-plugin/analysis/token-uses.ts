import { AST_NODE_TYPES } from '@typescript-eslint/types';
import type { TSESTree } from '@typescript-eslint/utils';
import { skipTransparentWrappers, staticMemberName } from './static-member-name.js';
import { parentOf } from './descendant-nodes.js';

/**
 * Where a read of a token goes: into a log line or telemetry field, into an object field, into a test
 * (`token === undefined`), or anywhere else, which may reach a write condition.
 */
export type TokenUse = 'logged' | 'storedInField' | 'tested' | 'mayReachWrite';

const LOG_METHODS: ReadonlySet<string> = new Set([
  'log',
  'info',
  'warn',
  'error',
  'debug',
  'trace',
  'fatal',
  'verbose',
]);
const TELEMETRY_METHODS: ReadonlySet<string> = new Set([
  'setAttribute',
  'setAttributes',
  'addEvent',
  'setTag',
  'setContext',
]);
const LOGGER_NAME = /^(?:console|log|logger|.*Logger|span|.*Span)$/u;
const COMPARISONS: ReadonlySet<string> = new Set(['===', '!==', '==', '!=', '<', '<=', '>', '>=']);

/** Classifies one read of a token binding (`identifier` is the reference). */
export function classifyTokenUse(identifier: TSESTree.Node): TokenUse {
  let child: TSESTree.Node = identifier;
  for (let parent = parentOf(identifier); parent !== undefined; child = parent, parent = parentOf(parent)) {
    switch (parent.type) {
      case AST_NODE_TYPES.TSNonNullExpression:
      case AST_NODE_TYPES.TSAsExpression:
      case AST_NODE_TYPES.ChainExpression:
      case AST_NODE_TYPES.TemplateLiteral:
      case AST_NODE_TYPES.ObjectExpression:
      case AST_NODE_TYPES.ArrayExpression:
        continue;
      case AST_NODE_TYPES.Property:
        if (parent.value === child) {
          continue;
        }
        return 'mayReachWrite';
      case AST_NODE_TYPES.MemberExpression:
        // `token.toString()` renders the token; any other member read passes something on.
        if (parent.object === child && staticMemberName(parent) === 'toString') {
          continue;
        }
        return 'mayReachWrite';
      case AST_NODE_TYPES.BinaryExpression:
        if (COMPARISONS.has(parent.operator)) {
          return 'tested';
        }
        if (parent.operator === '+') {
          continue;
        }
        return 'mayReachWrite';
      case AST_NODE_TYPES.UnaryExpression:
        return parent.operator === '!' || parent.operator === 'typeof' ? 'tested' : 'mayReachWrite';
      case AST_NODE_TYPES.IfStatement:
      case AST_NODE_TYPES.ConditionalExpression:
        return parent.test === child ? 'tested' : 'mayReachWrite';
      case AST_NODE_TYPES.AssignmentExpression:
        return parent.right === child && skipTransparentWrappers(parent.left).type === AST_NODE_TYPES.MemberExpression
          ? 'storedInField'
          : 'mayReachWrite';
      case AST_NODE_TYPES.CallExpression:
        // `token.toString()` and `String(token)` only render the token: follow where the text goes.
        if (parent.callee === child || isRenderingCall(parent)) {
          continue;
        }
        return isLoggingCall(parent) ? 'logged' : 'mayReachWrite';
      default:
        return 'mayReachWrite';
    }
  }
  return 'mayReachWrite';
}

function isRenderingCall(call: TSESTree.CallExpression): boolean {
  return call.callee.type === AST_NODE_TYPES.Identifier && call.callee.name === 'String';
}

/** `console.info(...)`, `logger.warn(...)`, `this.log.debug(...)`, `span.setAttribute(...)`, `log(...)`, `this.log(...)`. */
export function isLoggingCall(call: TSESTree.CallExpression): boolean {
  const callee = skipTransparentWrappers(call.callee);
  if (callee.type === AST_NODE_TYPES.Identifier) {
    return callee.name === 'log';
  }
  if (callee.type !== AST_NODE_TYPES.MemberExpression) {
    return false;
  }
  const method = staticMemberName(callee);
  if (method === 'log' || method === '#log') {
    return true;
  }
  if (method === undefined || !(LOG_METHODS.has(method) || TELEMETRY_METHODS.has(method))) {
    return false;
  }
  const owner = skipTransparentWrappers(callee.object);
  const ownerName =
    owner.type === AST_NODE_TYPES.Identifier
      ? owner.name
      : owner.type === AST_NODE_TYPES.MemberExpression
        ? staticMemberName(owner)
        : undefined;
  return ownerName !== undefined && LOGGER_NAME.test(ownerName.replace(/^#/u, ''));
}
