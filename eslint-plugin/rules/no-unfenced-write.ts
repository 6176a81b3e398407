import { AST_NODE_TYPES } from '@typescript-eslint/types';
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { findVariable } from '../analysis/find-variable.js';
import { localSpellingOfRuntimeExport } from '../analysis/checkpoint-fencing-imports.js';
import { asSaveCall, isAnyCondition } from '../analysis/checkpoint-save-calls.js';
import { isCheckpointStorageReceiver } from '../analysis/checkpoint-storage-receivers.js';
import { fencingTokenInScope, mayNameFencingTokens } from '../analysis/fencing-token-bindings.js';
import { addRuntimeImport } from '../analysis/runtime-import-fix.js';
import { typeInformationFor } from '../analysis/type-information.js';
import { optionPattern } from '../analysis/option-patterns.js';
import { DEFAULT_TOKEN_PATTERN } from '../../vocabulary/index.js';
import { createRule, type CheckpointFencingRule } from '../create-rule.js';

/** Options of `no-unfenced-write`. */
export interface NoUnfencedWriteOptions {
  /** Regular expression source (case-insensitive) for names that hold a fencing token or call a token source. */
  readonly tokenPattern?: string;
  /** Regular expression source (case-insensitive) for receiver names taken as a checkpoint storage without types. */
  readonly storagePattern?: string;
  /** Decide receivers and tokens by their types; needs `parserOptions.projectService`. */
  readonly useTypeInformation?: boolean;
}

const defaults = {
  tokenPattern: DEFAULT_TOKEN_PATTERN,
  storagePattern: 'storage$|^store$|^checkpoints?_?store$',
  useTypeInformation: false,
} satisfies Required<NoUnfencedWriteOptions>;

/** Message ids of `no-unfenced-write`. */
export type NoUnfencedWriteMessageId = 'unfencedWrite' | 'stampWithToken';

/** Reports an unconditional checkpoint write where a fencing token is in scope. */
export const noUnfencedWrite: CheckpointFencingRule<NoUnfencedWriteMessageId, [NoUnfencedWriteOptions]> = createRule<
  [NoUnfencedWriteOptions],
  NoUnfencedWriteMessageId
>({
  name: 'no-unfenced-write',
  meta: {
    type: 'problem',
    docs: {
      description: 'Disallow unconditional checkpoint writes where a fencing token is in scope',
      recommended: true,
      requiresTypeChecking: false,
      usesTypeInformationWhenAsked: true,
    },
    hasSuggestions: true,
    messages: {
      unfencedWrite:
        'This checkpoint write is unconditional although fencing token `{{token}}` is in scope: a worker that lost its lease ' +
        'can still move the checkpoint backward. Write with CheckpointWriteCondition.notOlderThan({{token}}).',
      stampWithToken: 'Write with CheckpointWriteCondition.notOlderThan({{token}}).',
    },
    schema: [
      {
        type: 'object',
        properties: {
          tokenPattern: { type: 'string', description: 'Case-insensitive regular expression for fencing-token names.' },
          storagePattern: {
            type: 'string',
            description: 'Case-insensitive regular expression for checkpoint-storage receiver names.',
          },
          useTypeInformation: { type: 'boolean', description: 'Decide receivers and tokens by their types.' },
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
    const tokens = { tokenPattern: optionPattern(tokenPatternSource), types };
    const storages = { storagePattern: optionPattern(options.storagePattern ?? defaults.storagePattern), types };
    const { sourceCode } = context;
    return {
      CallExpression(call) {
        const save = asSaveCall(call);
        if (save === undefined || !isUnconditional(call, sourceCode)) {
          return;
        }
        const scope = sourceCode.getScope(call);
        if (!isCheckpointStorageReceiver(save.receiver, scope, storages)) {
          return;
        }
        const token = fencingTokenInScope(call, sourceCode, tokens);
        if (token === undefined) {
          return;
        }
        context.report({
          node: call,
          messageId: 'unfencedWrite',
          data: { token: token.expression },
          suggest: stampSuggestion(call, token.expression, scope, sourceCode.ast),
        });
      },
    };
  },
});

/** `save(id, cp)` or `save(id, cp, CheckpointWriteCondition.any())`; anything else states its own condition. */
function isUnconditional(call: TSESTree.CallExpression, sourceCode: Readonly<TSESLint.SourceCode>): boolean {
  if (call.arguments.some((argument) => argument.type === AST_NODE_TYPES.SpreadElement)) {
    return false;
  }
  if (call.arguments.length === 2) {
    return true;
  }
  const condition = call.arguments[2];
  return call.arguments.length === 3 && condition !== undefined && isAnyCondition(condition, sourceCode);
}

function stampSuggestion(
  call: TSESTree.CallExpression,
  token: string,
  scope: TSESLint.Scope.Scope,
  program: TSESTree.Program,
): TSESLint.SuggestionReportDescriptor<NoUnfencedWriteMessageId>[] {
  const spelling = localSpellingOfRuntimeExport(program, 'CheckpointWriteCondition', scope);
  if (spelling === undefined && findVariable(scope, 'CheckpointWriteCondition') !== null) {
    return [];
  }
  const condition = `${spelling ?? 'CheckpointWriteCondition'}.notOlderThan(${token})`;
  const [, checkpoint, existing] = call.arguments;
  return [
    {
      messageId: 'stampWithToken',
      data: { token },
      *fix(fixer) {
        yield existing === undefined
          ? fixer.insertTextAfter(checkpoint ?? call.callee, `, ${condition}`)
          : fixer.replaceText(existing, condition);
        if (spelling === undefined) {
          yield addRuntimeImport(fixer, program, 'CheckpointWriteCondition');
        }
      },
    },
  ];
}
