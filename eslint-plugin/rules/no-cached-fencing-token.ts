import { AST_NODE_TYPES } from '@typescript-eslint/types';
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import {
  enclosingClass,
  enclosingFunction,
  findVariable,
  skipTransparentWrappers,
  staticMemberName,
  staticPropertyKeyName,
} from '../analysis/index.js';
import { mayNameFencingTokens } from '../analysis/gates/index.js';
import {
  isFencingTokenSourceCall,
  isFencingTokenVariable,
  refersToRuntimeExport,
  type TokenRecognition,
} from '../analysis/recognisers/index.js';
import { DEFAULT_TOKEN_PATTERN } from '../../vocabulary/index.js';
import { createRule, type CheckpointFencingRule } from '../create-rule.js';

/** Options of `no-cached-fencing-token`. */
export interface NoCachedFencingTokenOptions {
  /** Regular expression source (case-insensitive) for names that hold a fencing token or call a token source. */
  readonly tokenPattern?: string;
}

/** Message ids of `no-cached-fencing-token`. */
export type NoCachedFencingTokenMessageId = 'cachedToken';

const defaults = { tokenPattern: DEFAULT_TOKEN_PATTERN } satisfies Required<NoCachedFencingTokenOptions>;

/** Where a token can be cached: a field of one class, or a variable declared outside the function that writes. */
type CacheKey = TSESLint.Scope.Variable | `${number}:${string}`;

interface CachedRead {
  readonly node: TSESTree.Node;
  /** The function that stored the token; `undefined` at module level. */
  readonly storedIn: TSESTree.Node | undefined;
}

interface ConditionUse {
  readonly key: CacheKey;
  readonly name: string;
  readonly argument: TSESTree.Node;
}

/** Reports a write condition built from a token that was read once into a field or outer variable. */
export const noCachedFencingToken: CheckpointFencingRule<NoCachedFencingTokenMessageId, [NoCachedFencingTokenOptions]> =
  createRule<[NoCachedFencingTokenOptions], NoCachedFencingTokenMessageId>({
    name: 'no-cached-fencing-token',
    meta: {
      type: 'problem',
      docs: {
        description: 'Disallow write conditions built from a fencing token cached in a field or module variable',
        recommended: true,
        requiresTypeChecking: false,
        usesTypeInformationWhenAsked: false,
      },
      messages: {
        cachedToken:
          '`{{name}}` holds a fencing token read once (line {{line}}) and reused for this write; by now the lease may have changed hands, ' +
          'and the stale token fences nothing it should. Read the token right before every write: notOlderThan(await <lease>.fencingToken(id)).',
      },
      schema: [
        {
          type: 'object',
          properties: {
            tokenPattern: {
              type: 'string',
              description: 'Case-insensitive regular expression for fencing-token names.',
            },
          },
          additionalProperties: false,
        },
      ],
      defaultOptions: [defaults],
    },
    create(context, [options]) {
      const tokenPatternSource = options.tokenPattern ?? defaults.tokenPattern;
      if (!mayNameFencingTokens(context.sourceCode, tokenPatternSource)) {
        return {};
      }
      const recognition: TokenRecognition = {
        tokenPattern: new RegExp(tokenPatternSource, 'iu'),
        types: undefined,
      };
      const { sourceCode } = context;
      const reads = new Map<CacheKey, CachedRead[]>();
      const uses: ConditionUse[] = [];
      const classIds = new Map<TSESTree.Node, number>();
      const fieldKey = (member: TSESTree.Node): CacheKey | undefined => {
        const target = skipTransparentWrappers(member);
        if (target.type !== AST_NODE_TYPES.MemberExpression || target.object.type !== AST_NODE_TYPES.ThisExpression) {
          return undefined;
        }
        const classNode = enclosingClass(target);
        const name = staticMemberName(target);
        if (classNode === undefined || name === undefined) {
          return undefined;
        }
        const id = classIds.get(classNode) ?? classIds.size;
        classIds.set(classNode, id);
        return `${id}:${name}`;
      };
      const outerVariableKey = (node: TSESTree.Node): CacheKey | undefined => {
        const target = skipTransparentWrappers(node);
        if (target.type !== AST_NODE_TYPES.Identifier) {
          return undefined;
        }
        const variable = findVariable(sourceCode.getScope(target), target);
        const declaredIn = variable?.defs[0] === undefined ? undefined : enclosingFunction(variable.defs[0].name);
        return variable !== null && declaredIn !== enclosingFunction(target) ? variable : undefined;
      };
      const isTokenValue = (value: TSESTree.Node): boolean => {
        if (isFencingTokenSourceCall(value, recognition)) {
          return true;
        }
        const target = skipTransparentWrappers(value);
        if (target.type !== AST_NODE_TYPES.Identifier) {
          return false;
        }
        const scope = sourceCode.getScope(target);
        const variable = findVariable(scope, target);
        return variable !== null && isFencingTokenVariable(variable, scope, recognition);
      };
      const remember = (key: CacheKey | undefined, node: TSESTree.Node): void => {
        if (key !== undefined) {
          reads.set(key, [...(reads.get(key) ?? []), { node, storedIn: enclosingFunction(node) }]);
        }
      };
      return {
        AssignmentExpression(assignment) {
          if (assignment.operator === '=' && isTokenValue(assignment.right)) {
            remember(fieldKey(assignment.left) ?? outerVariableKey(assignment.left), assignment);
          }
        },
        PropertyDefinition(field) {
          const name = staticPropertyKeyName(field.key, field.computed);
          if (
            field.value !== null &&
            !field.static &&
            name !== undefined &&
            isFencingTokenSourceCall(field.value, recognition)
          ) {
            const id = classIds.get(field.parent.parent) ?? classIds.size;
            classIds.set(field.parent.parent, id);
            remember(`${id}:${name}`, field);
          }
        },
        VariableDeclarator(declarator) {
          if (
            declarator.init !== null &&
            isFencingTokenSourceCall(declarator.init, recognition) &&
            enclosingFunction(declarator) === undefined
          ) {
            for (const variable of sourceCode.getDeclaredVariables(declarator)) {
              remember(variable, declarator);
            }
          }
        },
        CallExpression(call) {
          const callee = skipTransparentWrappers(call.callee);
          const argument = call.arguments[0];
          if (
            argument === undefined ||
            callee.type !== AST_NODE_TYPES.MemberExpression ||
            staticMemberName(callee) !== 'notOlderThan' ||
            !refersToRuntimeExport(callee.object, 'CheckpointWriteCondition', sourceCode.getScope(call))
          ) {
            return;
          }
          const operand = cachedOperand(argument);
          const key = fieldKey(operand) ?? outerVariableKey(operand);
          if (key !== undefined) {
            uses.push({ key, name: sourceCode.getText(operand), argument });
          }
        },
        'Program:exit'() {
          for (const use of uses) {
            const stored = reads.get(use.key) ?? [];
            const writer = enclosingFunction(use.argument);
            const refreshedHere = stored.some(
              (read) => read.storedIn === writer && read.node.range[0] < use.argument.range[0],
            );
            const first = stored[0];
            if (first !== undefined && !refreshedHere) {
              context.report({
                node: use.argument,
                messageId: 'cachedToken',
                data: { name: use.name, line: first.node.loc.start.line },
              });
            }
          }
        },
      };
    },
  });

/** The field or variable a condition argument reads: `this.#token` in `this.#token!`, `this.#token as bigint`, `this.#token ?? 0n`. */
function cachedOperand(argument: TSESTree.Node): TSESTree.Node {
  const operand = skipTransparentWrappers(argument);
  return operand.type === AST_NODE_TYPES.LogicalExpression && operand.operator === '??'
    ? cachedOperand(operand.left)
    : operand;
}
