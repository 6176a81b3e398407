import type { ts as Typescript } from 'ts-morph';
import { PACKAGE_NAME } from '../../vocabulary/index.js';
import type { ImportDeclarationFacts, ImportFacts } from './implementer-facts.js';
import { isJavaScriptFile } from './jsdoc-nodes.js';
import { ts } from './typescript.js';

/** How `sourceFile` imports from checkpoint-fencing, and where a new import would go. */
export function readImportFacts(sourceFile: Typescript.SourceFile): ImportFacts {
  const text = sourceFile.text;
  const declarations: ImportDeclarationFacts[] = [];
  const imports = sourceFile.statements.filter(
    (statement) => ts.isImportDeclaration(statement) || ts.isImportEqualsDeclaration(statement),
  );
  for (const statement of imports) {
    if (ts.isImportDeclaration(statement)) {
      const specifier = statement.moduleSpecifier;
      if (!ts.isStringLiteral(specifier) || specifier.text !== PACKAGE_NAME) {
        continue;
      }
      const bindings = statement.importClause?.namedBindings;
      const named = bindings !== undefined && ts.isNamedImports(bindings) ? bindings.elements : undefined;
      const last = named?.at(-1);
      let lastSpecifierEnd = last?.end;
      let trailingComma = false;
      const comma = lastSpecifierEnd === undefined ? null : /^\s*,/.exec(text.slice(lastSpecifierEnd));
      if (comma !== null && lastSpecifierEnd !== undefined) {
        trailingComma = true;
        lastSpecifierEnd += comma[0].length;
      }
      declarations.push({
        typeOnly: statement.importClause?.phaseModifier === ts.SyntaxKind.TypeKeyword,
        namespace: bindings !== undefined && ts.isNamespaceImport(bindings) ? bindings.name.text : undefined,
        named: (named ?? []).map((element) => ({
          imported: (element.propertyName ?? element.name).text,
          local: element.name.text,
          typeOnly: element.isTypeOnly,
          text: element.getText(),
        })),
        braces: named === undefined ? undefined : { open: named.pos - 1, close: text.indexOf('}', named.end) },
        lastSpecifierEnd,
        trailingComma,
        start: statement.getStart(),
        end: statement.end,
      });
    } else {
      const reference = statement.moduleReference;
      if (
        ts.isExternalModuleReference(reference) &&
        ts.isStringLiteral(reference.expression) &&
        reference.expression.text === PACKAGE_NAME
      ) {
        declarations.push({
          typeOnly: statement.isTypeOnly,
          namespace: statement.name.text,
          named: [],
          braces: undefined,
          lastSpecifierEnd: undefined,
          trailingComma: false,
          start: statement.getStart(),
          end: statement.end,
        });
      }
    }
  }
  const lastImport = imports.at(-1);
  const firstStatement = sourceFile.statements[0];
  return {
    declarations,
    insertNewImportAt: lastImport?.end ?? firstStatement?.getStart() ?? 0,
    afterImport: lastImport !== undefined,
    typescript: !isJavaScriptFile(sourceFile),
  };
}
