import { AST_NODE_TYPES } from '@typescript-eslint/types';
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { findVariable, isVariable, skipTransparentWrappers, typeInformationFor } from '../analysis/index.js';
import { mayNameFencingTokens } from '../analysis/gates/index.js';
import {
  asSaveCall,
  fencingTokenInScope,
  importedName,
  isAnyCondition,
  isCheckpointStorageReceiver,
} from '../analysis/recognisers/index.js';
import { DEFAULT_TOKEN_PATTERN, PACKAGE_NAME, type RuntimeExportName } from '../../vocabulary/index.js';
import { createRule, type CheckpointFencingRule } from '../create-rule.js';
import { fixContext, runtimeImportEdits, runtimeImports, type FixContext } from '../fixes/index.js';

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

/** The runtime's write conditions, whose `notOlderThan` the suggestion writes. */
const WRITE_CONDITION = 'CheckpointWriteCondition' satisfies RuntimeExportName;

/** Message ids of `no-unfenced-write`. */
export type NoUnfencedWriteMessageId = 'unfencedWrite' | 'unfencedFallback' | 'stampWithToken';

/**
 * Reports an unconditional checkpoint write where a fencing token is in scope, and a write that falls back to one
 * where the token is missing.
 */
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
      unfencedFallback:
        'This checkpoint write falls back to an unconditional one where fencing token `{{token}}` is missing, and a node ' +
        "that holds no lease then moves the checkpoint back over the new holder's. Write nothing without a token (throw, " +
        'or let FencedCheckpointWriter refuse), and stamp every write with CheckpointWriteCondition.notOlderThan({{token}}).',
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
    const tokens = { tokenPattern: new RegExp(tokenPatternSource, 'iu'), types };
    const storages = { storagePattern: new RegExp(options.storagePattern ?? defaults.storagePattern, 'iu'), types };
    const { sourceCode } = context;
    const fixes = fixContext(context, types);
    return {
      CallExpression(call) {
        const save = asSaveCall(call);
        const writes = save === undefined ? [] : unconditionalWrites(call, sourceCode);
        if (save === undefined || writes.length === 0) {
          return;
        }
        const scope = sourceCode.getScope(call);
        if (!isCheckpointStorageReceiver(save.receiver, scope, storages)) {
          return;
        }
        for (const write of writes) {
          // Where the any() is written decides whether the token is known absent; failing a token there, the token
          // in scope where the write is sent (an any() kept in a constant outside the function).
          const token =
            fencingTokenInScope(write.at, sourceCode, tokens) ??
            (write.at === call ? undefined : fencingTokenInScope(call, sourceCode, tokens));
          if (token === undefined) {
            continue;
          }
          if (token.knownAbsent || write.chosen) {
            context.report({ node: call, messageId: 'unfencedFallback', data: { token: token.expression } });
          } else {
            context.report({
              node: call,
              messageId: 'unfencedWrite',
              data: { token: token.expression },
              suggest: stampSuggestion(call, token.expression, scope, fixes),
            });
          }
          return;
        }
      },
    };
  },
});

/** An unconditional write a save may send: where its `any()` is written, and whether a `?:`, `??`, `||` or `&&` chose it. */
interface UnconditionalWrite {
  /** The `any()` call, or the save itself when it has two arguments. */
  readonly at: TSESTree.Node;
  readonly chosen: boolean;
}

/**
 * The unconditional writes `save(id, cp, condition)` may send: a two-argument save, or each `any()` its condition may
 * be, through `?:`, `??`, `||`, `&&` and `const` bindings (`token === undefined ? any() : notOlderThan(token)`).
 * Any other condition states its own fence.
 */
function unconditionalWrites(
  call: TSESTree.CallExpression,
  sourceCode: Readonly<TSESLint.SourceCode>,
): UnconditionalWrite[] {
  if (call.arguments.some((argument) => argument.type === AST_NODE_TYPES.SpreadElement)) {
    return [];
  }
  if (call.arguments.length === 2) {
    return [{ at: call, chosen: false }];
  }
  const condition = call.arguments[2];
  return call.arguments.length === 3 && condition !== undefined
    ? anyConditionsIn(condition, false, sourceCode, new Set())
    : [];
}

function anyConditionsIn(
  expression: TSESTree.Node,
  chosen: boolean,
  sourceCode: Readonly<TSESLint.SourceCode>,
  followed: Set<TSESLint.Scope.Variable>,
): UnconditionalWrite[] {
  const value = skipTransparentWrappers(expression);
  if (value.type === AST_NODE_TYPES.ConditionalExpression) {
    return [value.consequent, value.alternate].flatMap((branch) => anyConditionsIn(branch, true, sourceCode, followed));
  }
  if (value.type === AST_NODE_TYPES.LogicalExpression) {
    return [value.left, value.right].flatMap((side) => anyConditionsIn(side, true, sourceCode, followed));
  }
  if (value.type === AST_NODE_TYPES.Identifier) {
    const initializer = constInitializer(value, sourceCode, followed);
    return initializer === undefined ? [] : anyConditionsIn(initializer, chosen, sourceCode, followed);
  }
  return isAnyCondition(value, sourceCode) ? [{ at: value, chosen }] : [];
}

/** What `const name = …` bound `identifier` to, once per variable (so `const a = b, b = a` ends). */
function constInitializer(
  identifier: TSESTree.Identifier,
  sourceCode: Readonly<TSESLint.SourceCode>,
  followed: Set<TSESLint.Scope.Variable>,
): TSESTree.Expression | undefined {
  const variable = findVariable(sourceCode.getScope(identifier), identifier);
  const definition = variable?.defs[0];
  if (
    variable === null ||
    followed.has(variable) ||
    !isVariable(definition) ||
    definition.parent.kind !== 'const' ||
    definition.node.id !== definition.name
  ) {
    return undefined;
  }
  followed.add(variable);
  return definition.node.init ?? undefined;
}

function stampSuggestion(
  call: TSESTree.CallExpression,
  token: string,
  scope: TSESLint.Scope.Scope,
  fixes: FixContext,
): TSESLint.SuggestionReportDescriptor<NoUnfencedWriteMessageId>[] {
  const { sourceCode } = fixes;
  const spelling = localSpellingOfRuntimeExport(sourceCode.ast, WRITE_CONDITION, scope);
  if (spelling === undefined && findVariable(scope, WRITE_CONDITION) !== null) {
    return [];
  }
  // Else the import is added as the codemod adds its own: merged into the file's import of the package, or a new
  // statement in the file's quotes and semicolons (in a CommonJS TypeScript file, `import x = require(…)`).
  const imports = spelling === undefined ? runtimeImports(fixes) : undefined;
  const namespace = imports?.newNamespace;
  const condition = `${spelling ?? (namespace === undefined ? '' : `${namespace}.`) + WRITE_CONDITION}.notOlderThan(${token})`;
  const [, checkpoint, existing] = call.arguments;
  return [
    {
      messageId: 'stampWithToken',
      data: { token },
      *fix(fixer) {
        yield existing === undefined
          ? fixer.insertTextAfter(checkpoint ?? call.callee, `, ${condition}`)
          : fixer.replaceText(existing, condition);
        const edits =
          imports === undefined
            ? []
            : runtimeImportEdits(sourceCode.text, imports, fixes.style(), { types: [], values: [WRITE_CONDITION] });
        for (const edit of edits) {
          yield fixer.replaceTextRange([edit.start, edit.end], edit.text);
        }
      },
    },
  ];
}

/**
 * How code at `scope` can spell runtime value export `exportName` without a new import: the local name of a value
 * import (`WC` for `import { CheckpointWriteCondition as WC }`), or `ns.exportName` for a namespace import;
 * `undefined` when neither exists or the local name is shadowed at `scope`.
 */
function localSpellingOfRuntimeExport(
  program: TSESTree.Program,
  exportName: RuntimeExportName,
  scope: TSESLint.Scope.Scope,
): string | undefined {
  for (const declaration of runtimeValueImports(program)) {
    for (const specifier of declaration.specifiers) {
      if (
        specifier.type === AST_NODE_TYPES.ImportDefaultSpecifier ||
        (specifier.type === AST_NODE_TYPES.ImportSpecifier && specifier.importKind === 'type')
      ) {
        continue;
      }
      const spelling =
        specifier.type === AST_NODE_TYPES.ImportNamespaceSpecifier
          ? `${specifier.local.name}.${exportName}`
          : importedName(specifier) === exportName
            ? specifier.local.name
            : undefined;
      const localName = specifier.local.name;
      if (spelling !== undefined && findVariable(scope, localName)?.defs[0]?.node === specifier) {
        return spelling;
      }
    }
  }
  return undefined;
}

/** The value import declarations of checkpoint-fencing (`import type` ones cannot provide a value). */
function runtimeValueImports(program: TSESTree.Program): TSESTree.ImportDeclaration[] {
  return program.body.filter(
    (statement): statement is TSESTree.ImportDeclaration =>
      statement.type === AST_NODE_TYPES.ImportDeclaration &&
      statement.source.value === PACKAGE_NAME &&
      statement.importKind !== 'type',
  );
}
