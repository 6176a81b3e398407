import { AST_NODE_TYPES } from '@typescript-eslint/types';
import type { TSESTree } from '@typescript-eslint/utils';
import { enclosingFunction } from '../analysis/descendant-nodes.js';
import {
  isFencingTokenVariable,
  tokenPropertyReads,
  mayNameFencingTokens,
} from '../analysis/fencing-token-bindings.js';
import { skipTransparentWrappers } from '../analysis/static-member-name.js';
import { classifyTokenUse } from '../analysis/token-uses.js';
import { typeInformationFor } from '../analysis/type-information.js';
import { optionPattern } from '../analysis/option-patterns.js';
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
      const recognition = { tokenPattern: optionPattern(tokenPatternSource), types };
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
