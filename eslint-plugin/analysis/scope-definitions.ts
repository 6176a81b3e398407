import type { TSESLint } from '@typescript-eslint/utils';

// The kind of a scope definition, checked by its string value: scope-manager's DefinitionType enum is a value of
// typescript-eslint's ts-eslint module, whose loading pulls in ESLint's classes and the whole scope manager when the
// plugin loads, for three strings.

type Definition = TSESLint.Scope.Definition;

/** A binding made by an import specifier. */
export function isImportBinding(
  definition: Definition | undefined,
): definition is TSESLint.Scope.Definitions.ImportBindingDefinition {
  return definition?.type === 'ImportBinding';
}

/** A function or method parameter. */
export function isParameter(
  definition: Definition | undefined,
): definition is TSESLint.Scope.Definitions.ParameterDefinition {
  return definition?.type === 'Parameter';
}

/** A `const`, `let` or `var` declarator. */
export function isVariable(
  definition: Definition | undefined,
): definition is TSESLint.Scope.Definitions.VariableDefinition {
  return definition?.type === 'Variable';
}
