import { ts } from 'ts-morph';
import { PACKAGE_NAME } from '../../vocabulary/index.js';
import type { ImportDeclarationFacts, ImportFacts } from './implementer-facts.js';
import { packageType } from './package-manifest.js';
import { afterComma } from './source-style.js';
import { isJavaScriptFile } from './storage-resolver.js';

/** The local name an `import x = require('checkpoint-fencing')` gets, unless the file already uses it. */
const NAMESPACE_NAME = 'checkpointFencing';

/**
 * How `sourceFile` imports from checkpoint-fencing, and where and how a new import would go. `commonJsOnly` is what a
 * type-aware front end knows beyond the file: that it compiles to CommonJS under `verbatimModuleSyntax`, where only
 * `import x = require(…)` can bring in a value.
 */
export function readImportFacts(sourceFile: ts.SourceFile, commonJsOnly = false): ImportFacts {
  const { text, statements } = sourceFile;
  const imports = statements.filter(
    (statement) =>
      ts.isImportDeclaration(statement) ||
      ts.isImportEqualsDeclaration(statement) ||
      requiredModule(statement) !== undefined,
  );
  // The directive prologue (`'use strict';`) must stay first.
  const firstOther = statements.findIndex((s) => !ts.isExpressionStatement(s) || !ts.isStringLiteral(s.expression));
  const directive = statements[(firstOther === -1 ? statements.length : firstOther) - 1];
  const first = statements[0];
  let freeNamespaceName = NAMESPACE_NAME;
  for (let suffix = 2; new RegExp(`\\b${freeNamespaceName}\\b`).test(text); suffix += 1) {
    freeNamespaceName = `${NAMESPACE_NAME}${suffix}`;
  }
  const javascript = isJavaScriptFile(sourceFile);
  return {
    declarations: imports.flatMap((statement) => packageImport(statement, text) ?? []),
    insertNewImportAt:
      imports.at(-1)?.end ?? directive?.end ?? (first === undefined ? 0 : attachedCommentsStart(text, first)),
    insertAfter: imports.length > 0 ? 'import' : directive !== undefined ? 'directive' : undefined,
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
  const span = { start: statement.getStart(), end: statement.end };
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
      ...span,
    };
  }
  if (ts.isImportEqualsDeclaration(statement)) {
    const reference = statement.moduleReference;
    const imported =
      ts.isExternalModuleReference(reference) &&
      ts.isStringLiteral(reference.expression) &&
      reference.expression.text === PACKAGE_NAME;
    return imported
      ? {
          syntax: 'import',
          typeOnly: statement.isTypeOnly,
          namespace: statement.name.text,
          named: [],
          braces: undefined,
          ...lastSpecifier(undefined, text),
          ...span,
        }
      : undefined;
  }
  const declaration = ts.isVariableStatement(statement) ? statement.declarationList.declarations[0] : undefined;
  if (declaration === undefined || requiredModule(statement) !== PACKAGE_NAME) {
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
    ...span,
  };
}

/** Where a name can be added after the last named import, and whether that one has a trailing comma. */
function lastSpecifier(last: ts.Node | undefined, text: string) {
  const { end, comma } = last === undefined ? { end: undefined, comma: false } : afterComma(text, last.end);
  return { lastSpecifierEnd: end, trailingComma: comma };
}

/** The module of `const x = require('…')` (or `const { … } =`), a CommonJS import. */
function requiredModule(statement: ts.Statement): string | undefined {
  const declarations = ts.isVariableStatement(statement) ? statement.declarationList.declarations : [];
  const call = declarations.length === 1 ? declarations[0]?.initializer : undefined;
  const [argument] = call !== undefined && ts.isCallExpression(call) ? call.arguments : [];
  return call !== undefined &&
    ts.isCallExpression(call) &&
    ts.isIdentifier(call.expression) &&
    call.expression.text === 'require' &&
    call.arguments.length === 1 &&
    argument !== undefined &&
    ts.isStringLiteralLike(argument)
    ? argument.text
    : undefined;
}

/**
 * Whether a JavaScript file is a CommonJS module, where `import` is a syntax error: `.cjs`; not `.mjs`; otherwise
 * one without `import`/`export` that uses `require`/`module.exports` or sits in a package not `"type": "module"`.
 * (Not `ts.isExternalModule`: in a program, `moduleDetection` and the package type can force a script to be one.)
 */
function isCommonJsScript(sourceFile: ts.SourceFile): boolean {
  const path = sourceFile.fileName;
  return (
    /\.cjs$/.test(path) ||
    (!/\.mjs$/.test(path) &&
      !sourceFile.statements.some(
        (statement) =>
          ts.isImportDeclaration(statement) ||
          ts.isExportDeclaration(statement) ||
          ts.isExportAssignment(statement) ||
          (ts.canHaveModifiers(statement) &&
            (ts.getModifiers(statement) ?? []).some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)),
      ) &&
      (/\brequire\s*\(|\bmodule\.exports\b|\bexports\.\w/.test(sourceFile.text) || packageType(path) !== 'module'))
  );
}

/** A TypeScript file written in CommonJS syntax (`export =`, `import x = require(…)`), which a new import follows. */
function writesCommonJsSyntax(sourceFile: ts.SourceFile): boolean {
  return sourceFile.statements.some(
    (statement) =>
      (ts.isExportAssignment(statement) && statement.isExportEquals === true) ||
      (ts.isImportEqualsDeclaration(statement) && ts.isExternalModuleReference(statement.moduleReference)),
  );
}

/**
 * Where the comments directly above `node` begin (its JSDoc, line comments), so that new text goes above them rather
 * than between a node and its documentation. A blank line ends the run: a section comment above it stays apart.
 */
export function attachedCommentsStart(text: string, node: ts.Node): number {
  let at = node.getStart();
  for (const range of (ts.getLeadingCommentRanges(text, node.pos) ?? []).reverse()) {
    if (/\n[ \t]*\r?\n/.test(text.slice(range.end, at))) {
      break;
    }
    at = range.pos;
  }
  return at;
}
