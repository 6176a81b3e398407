import { AST_NODE_TYPES } from '@typescript-eslint/types';
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { RUNTIME_MODULES, type RuntimeExportName } from '../../../vocabulary/index.js';
import { once } from '../memo.js';
import { fileOf, findVariable, isImportBinding } from '../scope-variables.js';
import { skipTransparentWrappers, staticMemberName } from '../static-member-name.js';

type Scope = TSESLint.Scope.Scope;

/**
 * Whether `node` names runtime export `exportName` in `scope`: an identifier bound by `import { exportName as x }`
 * from checkpoint-fencing or checkpoint-fencing/dual-anchor (aliases included, shadowing respected), or
 * `ns.exportName` / `ns['exportName']` / `ns.exportName` in a type position, where `ns` is bound by
 * `import * as ns from 'checkpoint-fencing'` (or the dual-anchor entry).
 */
export function refersToRuntimeExport(node: TSESTree.Node, exportName: RuntimeExportName, scope: Scope): boolean {
  if (!fileImportsPackage(scope)) {
    return false;
  }
  const target = skipTransparentWrappers(node);
  if (target.type === AST_NODE_TYPES.Identifier) {
    return importedNameOf(target, scope) === exportName;
  }
  if (target.type === AST_NODE_TYPES.MemberExpression) {
    return staticMemberName(target) === exportName && isRuntimeNamespace(target.object, scope);
  }
  if (target.type === AST_NODE_TYPES.TSQualifiedName) {
    return target.right.name === exportName && isRuntimeNamespace(target.left, scope);
  }
  return false;
}

/** Whether a type annotation (`x: CheckpointStorage`, `x: cf.CheckpointStorage | undefined`) names `exportName`. */
export function typeAnnotationNamesRuntimeExport(
  annotation: TSESTree.TypeNode | undefined,
  exportName: RuntimeExportName,
  scope: Scope,
): boolean {
  if (annotation === undefined) {
    return false;
  }
  if (annotation.type === AST_NODE_TYPES.TSUnionType) {
    return annotation.types.some((member) => typeAnnotationNamesRuntimeExport(member, exportName, scope));
  }
  return (
    annotation.type === AST_NODE_TYPES.TSTypeReference && refersToRuntimeExport(annotation.typeName, exportName, scope)
  );
}

/**
 * Whether the file `scope` belongs to has an import declaration of checkpoint-fencing, at top level or in a
 * `declare module` block: without one no name in it refers to a runtime export, which most files of a project show
 * at the cost of one look at their statements.
 */
export function fileImportsPackage(scope: Scope): boolean {
  return importsPackage(fileOf(scope));
}

const importsPackage = once((file: TSESTree.Program) => containsRuntimeImport(file.body));

function containsRuntimeImport(statements: readonly TSESTree.Node[]): boolean {
  return statements.some((statement) => {
    const declaration = statement.type === AST_NODE_TYPES.ExportNamedDeclaration ? statement.declaration : statement;
    return declaration?.type === AST_NODE_TYPES.TSModuleDeclaration
      ? declaration.body?.type === AST_NODE_TYPES.TSModuleBlock && containsRuntimeImport(declaration.body.body)
      : isRuntimeImportDeclaration(statement);
  });
}

/** The exported name an import specifier binds (`a` in `import { a as b }`, also for string names `import { 'a' as b }`). */
export function importedName(specifier: TSESTree.ImportSpecifier): string {
  return specifier.imported.type === AST_NODE_TYPES.Identifier ? specifier.imported.name : specifier.imported.value;
}

function importedNameOf(identifier: TSESTree.Identifier, scope: Scope): string | undefined {
  const definition = findVariable(scope, identifier.name)?.defs[0];
  if (!isImportBinding(definition) || definition.node.type !== AST_NODE_TYPES.ImportSpecifier) {
    return undefined;
  }
  return isRuntimeImportDeclaration(definition.parent) ? importedName(definition.node) : undefined;
}

function isRuntimeNamespace(node: TSESTree.Node, scope: Scope): boolean {
  if (node.type !== AST_NODE_TYPES.Identifier) {
    return false;
  }
  const definition = findVariable(scope, node.name)?.defs[0];
  return (
    isImportBinding(definition) &&
    definition.node.type === AST_NODE_TYPES.ImportNamespaceSpecifier &&
    isRuntimeImportDeclaration(definition.parent)
  );
}

function isRuntimeImportDeclaration(declaration: TSESTree.Node): boolean {
  return declaration.type === AST_NODE_TYPES.ImportDeclaration && isRuntimeModule(declaration.source.value);
}

/** Whether `specifier` names the runtime or its dual-anchor entry, where the names the rules recognise come from. */
export function isRuntimeModule(specifier: string | undefined): boolean {
  return specifier !== undefined && RUNTIME_MODULES.includes(specifier);
}
