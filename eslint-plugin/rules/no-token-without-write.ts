import { AST_NODE_TYPES } from '@typescript-eslint/types';
import type { TSESTree } from '@typescript-eslint/utils';
import {
  enclosingFunction,
  parentOf,
  skipTransparentWrappers,
  staticMemberName,
  staticName,
  typeInformationFor,
} from '../analysis/index.js';
import { mayNameFencingTokens } from '../analysis/gates/index.js';
import { isFencingTokenVariable, tokenPropertyReads } from '../analysis/recognisers/index.js';
import { DEFAULT_TOKEN_PATTERN } from '../../vocabulary/index.js';
import { createRule, type CheckpointFencingRule } from '../create-rule.js';

/** Options of `no-token-without-write`. */
export interface NoTokenWithoutWriteOptions {
  /** Regular expression source (case-insensitive) for names that hold a fencing token or call a token source. */
  readonly tokenPattern?: string;
  /** Count a binding as a token only when its type is a bigint or number; needs `parserOptions.projectService`. */
  readonly useTypeInformation?: boolean;
}

/** Message ids of `no-token-without-write`. */
export type NoTokenWithoutWriteMessageId = 'tokenNeverFences';

const defaults = {
  tokenPattern: DEFAULT_TOKEN_PATTERN,
  useTypeInformation: false,
} satisfies Required<NoTokenWithoutWriteOptions>;

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

/** Reports a fencing token obtained in a function that is only logged or stored in a field there. */
export const noTokenWithoutWrite: CheckpointFencingRule<NoTokenWithoutWriteMessageId, [NoTokenWithoutWriteOptions]> =
  createRule<[NoTokenWithoutWriteOptions], NoTokenWithoutWriteMessageId>({
    name: 'no-token-without-write',
    meta: {
      type: 'problem',
      docs: {
        description: 'Disallow obtaining a fencing token that never reaches a write condition',
        recommended: true,
        requiresTypeChecking: false,
        usesTypeInformationWhenAsked: true,
      },
      messages: {
        tokenNeverFences:
          'Fencing token `{{token}}` is obtained here but only {{uses}} in this function: a token copied into a log field without a target check ' +
          'provides no fencing. Pass it to the write as CheckpointWriteCondition.notOlderThan({{token}}).',
      },
      schema: [
        {
          type: 'object',
          properties: {
            tokenPattern: {
              type: 'string',
              description: 'Case-insensitive regular expression for fencing-token names.',
            },
            useTypeInformation: {
              type: 'boolean',
              description: 'Count a binding as a token only when typed as a bigint or number.',
            },
          },
          additionalProperties: false,
        },
      ],
      defaultOptions: [defaults],
    },
    create(context, [options]) {
      const types = typeInformationFor(context, options.useTypeInformation ?? defaults.useTypeInformation);
      const tokenPatternSource = options.tokenPattern ?? defaults.tokenPattern;
      if (!mayNameFencingTokens(context.sourceCode, tokenPatternSource)) {
        return {};
      }
      const recognition = { tokenPattern: new RegExp(tokenPatternSource, 'iu'), types };
      const { sourceCode } = context;
      return {
        VariableDeclarator(declarator) {
          if (
            declarator.init === null ||
            !isObtainedByCall(declarator.init) ||
            enclosingFunction(declarator) === undefined
          ) {
            return;
          }
          const scope = sourceCode.getScope(declarator);
          for (const variable of sourceCode.getDeclaredVariables(declarator)) {
            // Where the value goes is cheap to see; whether it is a token may need types, so that is asked last.
            const ownReads = variable.references
              .filter((reference) => reference.isRead())
              .map((reference) => reference.identifier);
            const isToken = onlyLoggedOrStored(ownReads) && isFencingTokenVariable(variable, scope, recognition);
            // A token held as a property (`lease.fencingToken`) is followed through its property reads instead.
            const reads = isToken ? ownReads : tokenPropertyReads(variable, recognition);
            if (!onlyLoggedOrStored(reads)) {
              continue;
            }
            const uses = new Set(reads.map(classifyTokenUse));
            const token = isToken || reads[0] === undefined ? variable.name : sourceCode.getText(reads[0]);
            const described = [
              uses.has('logged') ? 'logged' : undefined,
              uses.has('storedInField') ? 'stored in a field' : undefined,
            ]
              .filter((use) => use !== undefined)
              .join(' and ');
            const binding = variable.defs[0]?.name;
            context.report({
              node: binding ?? declarator,
              messageId: 'tokenNeverFences',
              data: { token, uses: described },
            });
          }
        },
      };
    },
  });

/** Whether every read only logs, stores or tests the value, and at least one logs or stores it. */
function onlyLoggedOrStored(reads: readonly TSESTree.Node[]): boolean {
  const uses = new Set(reads.map(classifyTokenUse));
  return !uses.has('mayReachWrite') && (uses.has('logged') || uses.has('storedInField'));
}

/** `await lease.fencingToken(id)`, `source(id)`, `await lease.acquire(id)`: a value obtained here, not passed in. */
function isObtainedByCall(init: TSESTree.Expression): boolean {
  let value = skipTransparentWrappers(init);
  if (value.type === AST_NODE_TYPES.AwaitExpression) {
    value = skipTransparentWrappers(value.argument);
  }
  return value.type === AST_NODE_TYPES.CallExpression;
}

/**
 * Where a read of a token goes: into a log line or telemetry field, into an object field, into a test
 * (`token === undefined`), or anywhere else, which may reach a write condition.
 */
type TokenUse = 'logged' | 'storedInField' | 'tested' | 'mayReachWrite';

/** Classifies one read of a token binding (`identifier` is the reference). */
function classifyTokenUse(identifier: TSESTree.Node): TokenUse {
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
function isLoggingCall(call: TSESTree.CallExpression): boolean {
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
  const ownerName = staticName(owner);
  return ownerName !== undefined && LOGGER_NAME.test(ownerName.replace(/^#/u, ''));
}
