import { AST_NODE_TYPES } from '@typescript-eslint/types';
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { parentOf } from '../descendant-nodes.js';
import { perFile, remember } from '../memo.js';
import { findVariable, isParameter, isVariable } from '../scope-variables.js';
import { skipTransparentWrappers, staticMemberName, staticName, staticPropertyKeyName } from '../static-member-name.js';
import { isNumericTokenType, type TypeInformation } from '../type-information.js';
import { typeAnnotationNamesRuntimeExport } from './checkpoint-fencing-imports.js';

/** How a rule decides that a binding holds a fencing token. */
export interface TokenRecognition {
  /** Names that say "fencing token" (`fencingToken`, `fencing_token`), for bindings and for token-source calls. */
  readonly tokenPattern: RegExp;
  /** Present in `useTypeInformation` mode: then a token must also be typed as a bigint or number. */
  readonly types: TypeInformation | undefined;
}

type Scope = TSESLint.Scope.Scope;
type Variable = TSESLint.Scope.Variable;
type SourceCode = Readonly<TSESLint.SourceCode>;

/**
 * Whether `expression` (possibly awaited) calls a fencing-token source: `fencingToken(id)`,
 * `lease.fencingToken(id)`, `lease?.getFencingToken(id)` (any callee named like `tokenPattern`), or with types a
 * callee typed `FencingTokenSource`.
 */
export function isFencingTokenSourceCall(expression: TSESTree.Node, recognition: TokenRecognition): boolean {
  let target = skipTransparentWrappers(expression);
  if (target.type === AST_NODE_TYPES.AwaitExpression) {
    target = skipTransparentWrappers(target.argument);
  }
  if (target.type !== AST_NODE_TYPES.CallExpression) {
    return false;
  }
  const callee = skipTransparentWrappers(target.callee);
  const name = staticName(callee);
  if (name !== undefined && recognition.tokenPattern.test(name)) {
    return true;
  }
  const calleeType = recognition.types?.getTypeAtLocation(callee);
  return calleeType?.aliasSymbol?.getName() === 'FencingTokenSource';
}

/**
 * Whether `variable` holds a fencing token: its annotation names `FencingToken`, it is initialised from a
 * token-source call, or its name (or the property it was destructured from) matches `tokenPattern`. A binding
 * that is called, annotated `FencingTokenSource` or a function type, or initialised with a function is a token
 * source, not a token. With types, the binding must also be typed as a bigint or number.
 */
export function isFencingTokenVariable(variable: Variable, scope: Scope, recognition: TokenRecognition): boolean {
  const definition = variable.defs[0];
  if (definition === undefined || variable.references.some(isCalled)) {
    return false;
  }
  const evidence =
    isParameter(definition) && definition.name.type === AST_NODE_TYPES.Identifier
      ? tokenEvidence(definition.name, undefined, scope, recognition)
      : isVariable(definition)
        ? tokenEvidence(
            definition.name,
            definition.node.id === definition.name ? definition.node.init : null,
            scope,
            recognition,
          )
        : false;
  if (!evidence || recognition.types === undefined) {
    return evidence;
  }
  return isNumericTokenType(
    recognition.types.getTypeAtLocation(definition.name),
    recognition.types.program.getTypeChecker(),
  );
}

function tokenEvidence(
  binding: TSESTree.Identifier,
  initializer: TSESTree.Expression | null | undefined,
  scope: Scope,
  recognition: TokenRecognition,
): boolean {
  const annotation = binding.typeAnnotation?.typeAnnotation;
  if (
    annotation?.type === AST_NODE_TYPES.TSFunctionType ||
    typeAnnotationNamesRuntimeExport(annotation, 'FencingTokenSource', scope)
  ) {
    return false;
  }
  if (initializer != null) {
    const value = skipTransparentWrappers(initializer);
    if (value.type === AST_NODE_TYPES.ArrowFunctionExpression || value.type === AST_NODE_TYPES.FunctionExpression) {
      return false;
    }
    if (isFencingTokenSourceCall(value, recognition)) {
      return true;
    }
  }
  return (
    typeAnnotationNamesRuntimeExport(annotation, 'FencingToken', scope) ||
    recognition.tokenPattern.test(binding.name) ||
    recognition.tokenPattern.test(destructuredKeyOf(binding) ?? '')
  );
}

/** `fencingToken` for `t` in `const { fencingToken: t } = lease`. */
function destructuredKeyOf(binding: TSESTree.Identifier): string | undefined {
  const holder = binding.parent.type === AST_NODE_TYPES.AssignmentPattern ? binding.parent.parent : binding.parent;
  return holder.type === AST_NODE_TYPES.Property && holder.parent.type === AST_NODE_TYPES.ObjectPattern
    ? staticPropertyKeyName(holder.key, holder.computed)
    : undefined;
}

function isCalled(reference: TSESLint.Scope.Reference): boolean {
  const parent = reference.identifier.parent;
  return parent.type === AST_NODE_TYPES.CallExpression && parent.callee === reference.identifier;
}

/** A fencing token a write could be stamped with, and how to spell it there. */
export interface TokenInScope {
  /** The binding that holds the token, or the object that carries it (`lease` for `lease.fencingToken`). */
  readonly variable: Variable;
  /** The expression that reads the token: `token`, or `lease.fencingToken`. */
  readonly expression: string;
  /**
   * Whether the code path to the write has established that the binding holds no token (inside
   * `if (token === undefined)`, after `if (token !== undefined) return ...`): a write there is sent without one.
   */
  readonly knownAbsent: boolean;
}

/**
 * The fencing token a write at `node` could be stamped with: the innermost token binding in scope, declared before
 * `node`, not shadowed, and whether it is known absent there; failing that, a binding in scope whose token-named
 * property is read (`lease.fencingToken`).
 */
export function fencingTokenInScope(
  node: TSESTree.Node,
  sourceCode: SourceCode,
  recognition: TokenRecognition,
): TokenInScope | undefined {
  const inner: Scope[] = [];
  let carried: TokenInScope | undefined;
  for (let scope: Scope | null = sourceCode.getScope(node); scope !== null; scope = scope.upper) {
    for (const variable of declaredNewestFirst(scope, sourceCode)) {
      if (!isDeclaredBefore(variable, node) || inner.some((shadowing) => shadowing.set.has(variable.name))) {
        continue;
      }
      if (isFencingTokenVariable(variable, scope, recognition)) {
        return { variable, expression: variable.name, knownAbsent: isKnownAbsentAt(node, variable, sourceCode) };
      }
      const member = carried === undefined ? tokenPropertyReads(variable, recognition)[0] : undefined;
      if (member !== undefined) {
        carried = { variable, expression: sourceCode.getText(member), knownAbsent: false };
      }
    }
    inner.push(scope);
  }
  return carried;
}

const declaredByScope = perFile<Scope, readonly Variable[]>();

/**
 * The variables of `scope` that the file declares, the last declared first. Every save asks about the scopes around
 * it, and the global scope alone holds every library global (hundreds with DOM or @types/node), none declared in the
 * file: the list is made once per scope.
 */
function declaredNewestFirst(scope: Scope, sourceCode: SourceCode): readonly Variable[] {
  const known = declaredByScope(sourceCode.ast);
  return (
    known.get(scope) ??
    remember(
      known,
      scope,
      scope.variables
        .filter((variable) => variable.defs[0] !== undefined)
        .sort((a, b) => (b.defs[0]?.name.range[0] ?? 0) - (a.defs[0]?.name.range[0] ?? 0)),
    )
  );
}

/**
 * The reads of `variable`'s token-named properties (`lease.fencingToken`, not `lease.fencingToken(id)`, not an
 * assignment target); with types, only those typed as a bigint or number.
 */
export function tokenPropertyReads(variable: Variable, recognition: TokenRecognition): TSESTree.MemberExpression[] {
  return variable.references.flatMap((reference) => {
    const member = reference.identifier.parent;
    if (member.type !== AST_NODE_TYPES.MemberExpression || member.object !== reference.identifier) {
      return [];
    }
    const name = staticMemberName(member);
    const parent = member.parent;
    const called = parent.type === AST_NODE_TYPES.CallExpression && parent.callee === member;
    const assigned = parent.type === AST_NODE_TYPES.AssignmentExpression && parent.left === member;
    if (name === undefined || !recognition.tokenPattern.test(name) || called || assigned) {
      return [];
    }
    const types = recognition.types;
    return types === undefined || isNumericTokenType(types.getTypeAtLocation(member), types.program.getTypeChecker())
      ? [member]
      : [];
  });
}

function isDeclaredBefore(variable: Variable, node: TSESTree.Node): boolean {
  const definition = variable.defs[0];
  return definition !== undefined && definition.name.range[1] <= node.range[0];
}

/** Whether the code path to `node` has established that `variable` holds no token. */
function isKnownAbsentAt(node: TSESTree.Node, variable: Variable, sourceCode: SourceCode): boolean {
  let child: TSESTree.Node = node;
  for (let parent = parentOf(node); parent !== undefined; child = parent, parent = parentOf(parent)) {
    if (parent.type === AST_NODE_TYPES.IfStatement || parent.type === AST_NODE_TYPES.ConditionalExpression) {
      if (child === parent.consequent && testsPresence(parent.test, variable, sourceCode) === 'absent') {
        return true;
      }
      if (child === parent.alternate && testsPresence(parent.test, variable, sourceCode) === 'present') {
        return true;
      }
    }
    if (parent.type === AST_NODE_TYPES.BlockStatement || parent.type === AST_NODE_TYPES.Program) {
      const before = (parent.body as TSESTree.Node[]).slice(0, (parent.body as TSESTree.Node[]).indexOf(child));
      if (before.some((statement) => exitsWhenPresent(statement, variable, sourceCode))) {
        return true;
      }
    }
    if (variable.scope.block === parent) {
      return false;
    }
  }
  return false;
}

/** `if (token !== undefined) { ...; return ... }` with no else: what follows runs only without a token. */
function exitsWhenPresent(statement: TSESTree.Node, variable: Variable, sourceCode: SourceCode): boolean {
  return (
    statement.type === AST_NODE_TYPES.IfStatement &&
    statement.alternate === null &&
    testsPresence(statement.test, variable, sourceCode) === 'present' &&
    alwaysExits(statement.consequent)
  );
}

function alwaysExits(statement: TSESTree.Statement): boolean {
  if (statement.type === AST_NODE_TYPES.BlockStatement) {
    const last = statement.body.at(-1);
    return last !== undefined && alwaysExits(last);
  }
  return (
    statement.type === AST_NODE_TYPES.ReturnStatement ||
    statement.type === AST_NODE_TYPES.ThrowStatement ||
    statement.type === AST_NODE_TYPES.ContinueStatement ||
    statement.type === AST_NODE_TYPES.BreakStatement
  );
}

/** What a test says about `variable`: `token === undefined`, `!token`, `typeof token === 'undefined'` say absent. */
function testsPresence(
  test: TSESTree.Expression,
  variable: Variable,
  sourceCode: SourceCode,
): 'present' | 'absent' | 'unknown' {
  if (test.type === AST_NODE_TYPES.UnaryExpression && test.operator === '!') {
    const inner = testsPresence(test.argument, variable, sourceCode);
    return inner === 'present' ? 'absent' : inner === 'absent' ? 'present' : 'unknown';
  }
  if (isReferenceTo(test, variable, sourceCode)) {
    return 'present';
  }
  if (test.type !== AST_NODE_TYPES.BinaryExpression || !['===', '==', '!==', '!='].includes(test.operator)) {
    return 'unknown';
  }
  const [subject, other] = isNullishOperand(test.left) ? [test.right, test.left] : [test.left, test.right];
  const negated = test.operator.startsWith('!');
  if (isReferenceTo(subject, variable, sourceCode) && isNullishOperand(other)) {
    return negated ? 'present' : 'absent';
  }
  if (
    subject.type === AST_NODE_TYPES.UnaryExpression &&
    subject.operator === 'typeof' &&
    isReferenceTo(subject.argument, variable, sourceCode) &&
    other.type === AST_NODE_TYPES.Literal &&
    other.value === 'undefined'
  ) {
    return negated ? 'present' : 'absent';
  }
  return 'unknown';
}

function isNullishOperand(node: TSESTree.Node): boolean {
  return (
    (node.type === AST_NODE_TYPES.Identifier && node.name === 'undefined') ||
    (node.type === AST_NODE_TYPES.Literal && node.value === null) ||
    (node.type === AST_NODE_TYPES.UnaryExpression && node.operator === 'void')
  );
}

function isReferenceTo(node: TSESTree.Node, variable: Variable, sourceCode: SourceCode): boolean {
  return node.type === AST_NODE_TYPES.Identifier && findVariable(sourceCode.getScope(node), node) === variable;
}
