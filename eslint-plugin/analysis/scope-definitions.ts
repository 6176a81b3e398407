import type { TSESLint } from '@typescript-eslint/utils';

// The kind of a scope definition, checked by its string value: scope-manager's DefinitionType enum is a value of
// typescript-eslint's ts-eslint module, whose loading pulls in ESLint's classes and the whole scope manager when the
// plugin loads, for three strings.

type Definition = TSESLint.Scope.Definition;

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
