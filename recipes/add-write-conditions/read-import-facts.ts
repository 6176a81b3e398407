import { ts } from 'ts-morph';
import { PACKAGE_NAME } from '../../vocabulary/index.js';
import type { ImportDeclarationFacts, ImportFacts } from './implementer-facts.js';
import { packageType } from './package-manifest.js';
import { isJavaScriptFile } from './storage-resolver.js';

/** The local name an `import x = require('checkpoint-fencing')` gets, unless the file already uses it. */
const NAMESPACE_NAME = 'checkpointFencing';

/**
 * How `sourceFile` imports from checkpoint-fencing, and where and how a new import would go. `commonJsOnly` is what a
 * type-aware front end knows beyond the file: that it compiles to CommonJS under `verbatimModuleSyntax`, where only
 * `import x = require(…)` can bring in a value.
 */
export function readImportFacts(sourceFile: ts.SourceFile, commonJsOnly = false): ImportFacts {
  const text = sourceFile.text;
  const declarations: ImportDeclarationFacts[] = [];
  const imports = sourceFile.statements.filter(
    (statement) => ts.isImportDeclaration(statement) || ts.isImportEqualsDeclaration(statement) || isRequire(statement),
  );
  for (const statement of imports) {
    const declaration = packageImport(statement, text);
    if (declaration !== undefined) {
      declarations.push(declaration);
    }
  }
  const javascript = isJavaScriptFile(sourceFile);
  const lastImport = imports.at(-1);
  const directives = prologue(sourceFile);
  const firstStatement = sourceFile.statements[0];
  let freeNamespaceName = NAMESPACE_NAME;
  for (let suffix = 2; new RegExp(`\\b${freeNamespaceName}\\b`).test(text); suffix += 1) {
    freeNamespaceName = `${NAMESPACE_NAME}${suffix}`;
  }
  return {
    declarations,
    insertNewImportAt: lastImport?.end ?? directives.at(-1)?.end ?? firstStatement?.getStart() ?? 0,
    afterImport: lastImport !== undefined,
    afterDirective: lastImport === undefined && directives.length > 0,
    typescript: !javascript,
    newImportSyntax: javascript
      ? isCommonJsScript(sourceFile)
        ? 'require'
        : 'import'
      : commonJsOnly || writesCommonJsSyntax(sourceFile)
        ? 'import-equals'
        : 'import',
    freeNamespaceName,
  };
}

/** One import of checkpoint-fencing: `import … from`, `import x = require(…)`, or `const … = require(…)`. */
function packageImport(statement: ts.Statement, text: string): ImportDeclarationFacts | undefined {
  if (ts.isImportDeclaration(statement)) {
    const specifier = statement.moduleSpecifier;
    if (!ts.isStringLiteral(specifier) || specifier.text !== PACKAGE_NAME) {
      return undefined;
    }
    const bindings = statement.importClause?.namedBindings;
    const named = bindings !== undefined && ts.isNamedImports(bindings) ? bindings.elements : undefined;
    return {
      syntax: 'import',
      typeOnly: statement.importClause?.phaseModifier === ts.SyntaxKind.TypeKeyword,
      namespace: bindings !== undefined && ts.isNamespaceImport(bindings) ? bindings.name.text : undefined,
      named: (named ?? []).map((element) => ({
        imported: (element.propertyName ?? element.name).text,
        local: element.name.text,
        typeOnly: element.isTypeOnly,
        text: element.getText(),
      })),
      braces: named === undefined ? undefined : { open: named.pos - 1, close: text.indexOf('}', named.end) },
      ...lastSpecifier(named?.at(-1), text),
      start: statement.getStart(),
      end: statement.end,
    };
  }
  if (ts.isImportEqualsDeclaration(statement)) {
    const reference = statement.moduleReference;
    if (
      !ts.isExternalModuleReference(reference) ||
      !ts.isStringLiteral(reference.expression) ||
      reference.expression.text !== PACKAGE_NAME
    ) {
      return undefined;
    }
    return {
      syntax: 'import',
      typeOnly: statement.isTypeOnly,
      namespace: statement.name.text,
      named: [],
      braces: undefined,
      lastSpecifierEnd: undefined,
      trailingComma: false,
      start: statement.getStart(),
      end: statement.end,
    };
  }
  const declaration = ts.isVariableStatement(statement) ? statement.declarationList.declarations[0] : undefined;
  if (declaration === undefined || requiredModule(declaration.initializer) !== PACKAGE_NAME) {
    return undefined;
  }
  const pattern = declaration.name;
  const elements = ts.isObjectBindingPattern(pattern) ? pattern.elements : undefined;
  return {
    syntax: 'require',
    typeOnly: false,
    namespace: ts.isIdentifier(pattern) ? pattern.text : undefined,
    named: (elements ?? []).flatMap((element) => {
      const imported = element.propertyName ?? element.name;
      return ts.isIdentifier(element.name) && ts.isIdentifier(imported) && element.dotDotDotToken === undefined
        ? [{ imported: imported.text, local: element.name.text, typeOnly: false, text: element.getText() }]
        : [];
    }),
    braces: elements === undefined ? undefined : { open: pattern.getStart(), close: pattern.end - 1 },
    ...lastSpecifier(elements?.at(-1), text),
    start: statement.getStart(),
    end: statement.end,
  };
}

/** Where a name can be added after the last named import, and whether that one has a trailing comma. */
function lastSpecifier(
  last: ts.Node | undefined,
  text: string,
): { lastSpecifierEnd: number | undefined; trailingComma: boolean } {
  if (last === undefined) {
    return { lastSpecifierEnd: undefined, trailingComma: false };
  }
  const comma = /^\s*,/.exec(text.slice(last.end));
  return comma === null
    ? { lastSpecifierEnd: last.end, trailingComma: false }
    : { lastSpecifierEnd: last.end + comma[0].length, trailingComma: true };
}

/** `const x = require('…')` (or `const { … } =`): a CommonJS import, after which a new one goes. */
function isRequire(statement: ts.Statement): boolean {
  return (
    ts.isVariableStatement(statement) &&
    statement.declarationList.declarations.length === 1 &&
    requiredModule(statement.declarationList.declarations[0]?.initializer) !== undefined
  );
}

function requiredModule(expression: ts.Expression | undefined): string | undefined {
  if (
    expression !== undefined &&
    ts.isCallExpression(expression) &&
    ts.isIdentifier(expression.expression) &&
    expression.expression.text === 'require' &&
    expression.arguments.length === 1
  ) {
    const [argument] = expression.arguments;
    return argument !== undefined && ts.isStringLiteralLike(argument) ? argument.text : undefined;
  }
  return undefined;
}

/** The directive prologue (`'use strict';`), which must stay first: a new import goes after it. */
function prologue(sourceFile: ts.SourceFile): ts.Statement[] {
  const directives: ts.Statement[] = [];
  for (const statement of sourceFile.statements) {
    if (!ts.isExpressionStatement(statement) || !ts.isStringLiteral(statement.expression)) {
      break;
    }
    directives.push(statement);
  }
  return directives;
}

/**
 * Whether a JavaScript file is a CommonJS module, where `import` is a syntax error: `.cjs`; not `.mjs`; otherwise
 * one that uses no `import`/`export` and either uses `require`/`module.exports` or sits in a package that is not
 * `"type": "module"`.
 */
function isCommonJsScript(sourceFile: ts.SourceFile): boolean {
  const path = sourceFile.fileName;
  if (/\.cjs$/.test(path)) {
    return true;
  }
  if (/\.mjs$/.test(path)) {
    return false;
  }
  const esm = sourceFile.statements.some(
    (statement) =>
      ts.isImportDeclaration(statement) ||
      ts.isExportDeclaration(statement) ||
      ts.isExportAssignment(statement) ||
      (ts.canHaveModifiers(statement) &&
        (ts.getModifiers(statement) ?? []).some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)),
  );
  if (esm) {
    return false;
  }
  return /\brequire\s*\(|\bmodule\.exports\b|\bexports\.\w/.test(sourceFile.text) || packageType(path) !== 'module';
}

/** A TypeScript file written in CommonJS syntax (`export =`, `import x = require(…)`), which a new import follows. */
function writesCommonJsSyntax(sourceFile: ts.SourceFile): boolean {
  return sourceFile.statements.some(
    (statement) =>
      (ts.isExportAssignment(statement) && statement.isExportEquals === true) ||
      (ts.isImportEqualsDeclaration(statement) && ts.isExternalModuleReference(statement.moduleReference)),
  );
}
