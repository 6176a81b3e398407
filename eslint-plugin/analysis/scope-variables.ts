import { AST_NODE_TYPES } from '@typescript-eslint/types';
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';

// Variables in scope: the one a name refers to, the kind of its definition, the ones a parameter declares.

type Scope = TSESLint.Scope.Scope;
type Definition = TSESLint.Scope.Definition;

/**
 * The variable a name, or an identifier, refers to from `scope`: declared there or in an enclosing scope, the
 * nearest one winning. For an identifier the search starts in the innermost scope around it. The same as
 * `findVariable` of `@eslint-community/eslint-utils`, written here so the plugin loads without it.
 */
export function findVariable(
  scope: Scope,
  nameOrIdentifier: string | TSESTree.Identifier,
): TSESLint.Scope.Variable | null {
  const name = typeof nameOrIdentifier === 'string' ? nameOrIdentifier : nameOrIdentifier.name;
  let current: Scope | null =
    typeof nameOrIdentifier === 'string' ? scope : innermostScope(scope, nameOrIdentifier.range[0]);
  for (; current !== null; current = current.upper) {
    const variable = current.set.get(name);
    if (variable !== undefined) {
      return variable;
    }
  }
  return null;
}

/** The root of the syntax tree `scope` belongs to: the key its file's shared answers are kept under. */
export function fileOf(scope: Scope): TSESTree.Program {
  let outermost = scope;
  while (outermost.upper !== null) {
    outermost = outermost.upper;
  }
  // The scope with no upper one is the global scope, whose block is the program.
  return outermost.block;
}

function innermostScope(scope: Scope, offset: number): Scope {
  for (const child of scope.childScopes) {
    const [start, end] = child.block.range;
    if (start <= offset && offset < end) {
      return innermostScope(child, offset);
    }
  }
  return scope;
}

/**
 * The variables `parameter` of `fn` declares: its name, or every name a destructuring pattern binds. A parameter
 * declares them through the function, so they are the function's variables whose name lies inside the parameter.
 */
export function parameterVariables(
  fn: TSESTree.FunctionLike,
  parameter: TSESTree.Parameter,
  sourceCode: Readonly<TSESLint.SourceCode>,
): TSESLint.Scope.Variable[] {
  const [start, end] = parameter.range;
  return sourceCode
    .getDeclaredVariables(fn)
    .filter((variable) =>
      variable.defs.some((definition) => start <= definition.name.range[0] && definition.name.range[1] <= end),
    );
}

/** The pattern a parameter binds: itself, the left side of its default (`id = 'x'`), or its rest element's argument. */
export function parameterBinding(parameter: TSESTree.Parameter): TSESTree.Node {
  return parameter.type === AST_NODE_TYPES.AssignmentPattern
    ? parameter.left
    : parameter.type === AST_NODE_TYPES.RestElement
      ? parameter.argument
      : parameter;
}

/** The variable an identifier refers to, from the scope it is in. */
export function referencedVariable(
  identifier: TSESTree.Identifier,
  sourceCode: Readonly<TSESLint.SourceCode>,
): TSESLint.Scope.Variable | undefined {
  return (
    sourceCode.getScope(identifier).references.find((reference) => reference.identifier === identifier)?.resolved ??
    undefined
  );
}

// The kind of a scope definition, checked by its string value: scope-manager's DefinitionType enum is a value of
// typescript-eslint's ts-eslint module, whose loading pulls in ESLint's classes and the whole scope manager when the
// plugin loads, for three strings.

/** A binding made by an import specifier. */
export function isImportBinding(
  definition: Definition | undefined,
): definition is TSESLint.Scope.Definitions.ImportBindingDefinition {
  return kindOf(definition) === 'ImportBinding';
}

/** A function or method parameter. */
export function isParameter(
  definition: Definition | undefined,
): definition is TSESLint.Scope.Definitions.ParameterDefinition {
  return kindOf(definition) === 'Parameter';
}

/** A `const`, `let` or `var` declarator. */
export function isVariable(
  definition: Definition | undefined,
): definition is TSESLint.Scope.Definitions.VariableDefinition {
  return kindOf(definition) === 'Variable';
}

/** The definition's kind as the plain string the enum member stands for. */
function kindOf(definition: Definition | undefined): string | undefined {
  return definition?.type;
}
