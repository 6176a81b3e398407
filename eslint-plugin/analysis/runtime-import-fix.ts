import { AST_NODE_TYPES } from '@typescript-eslint/types';
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { PACKAGE_NAME, type RuntimeExportName } from '../../vocabulary/index.js';
import { runtimeValueImports } from './checkpoint-fencing-imports.js';

/**
 * The fix that imports value `exportName` from checkpoint-fencing under its own name: appended to an existing
 * named import of the module when there is one, else a new import after the last import (or at the top), in the
 * quote style the file already uses.
 */
export function addRuntimeImport(
  fixer: TSESLint.RuleFixer,
  program: TSESTree.Program,
  exportName: RuntimeExportName,
): TSESLint.RuleFix {
  for (const declaration of runtimeValueImports(program)) {
    const named = declaration.specifiers.filter((specifier) => specifier.type === AST_NODE_TYPES.ImportSpecifier);
    const last = named.at(-1);
    if (last !== undefined) {
      return fixer.insertTextAfter(last, `, ${exportName}`);
    }
  }
  const imports = program.body.filter((statement) => statement.type === AST_NODE_TYPES.ImportDeclaration);
  const quote = imports[0]?.source.raw.startsWith('"') === true ? '"' : "'";
  const statement = `import { ${exportName} } from ${quote}${PACKAGE_NAME}${quote};`;
  const lastImport = imports.at(-1);
  if (lastImport !== undefined) {
    return fixer.insertTextAfter(lastImport, `\n${statement}`);
  }
  const first = program.body[0];
  return first === undefined
    ? fixer.insertTextAfterRange([0, 0], statement)
    : fixer.insertTextBefore(first, `${statement}\n`);
}
