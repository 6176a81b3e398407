import { dirname, resolve } from 'node:path';
import type { ts as Typescript } from 'ts-morph';
import { attachedCommentsStart, ts } from './typescript.js';
import { CONDITION_TYPE, PACKAGE_NAME, UNSUPPORTED_ERROR } from '../../vocabulary/index.js';
import type { ImportFacts } from './upgrade-data.js';
import { nearestManifestField } from './workspace-layout.js';
import { importBindings, isJavaScriptFile } from './storage-resolver.js';

/** The local name an `import x = require('checkpoint-fencing')` gets, unless the file already uses it. */
const NAMESPACE_NAME = 'checkpointFencing';

/**
 * How `sourceFile` imports from checkpoint-fencing, and where and how a new import goes. `commonJsOnly`: the file
 * compiles to CommonJS under `verbatimModuleSyntax` (known to a typed front end): values need `import x = require`.
 */
export function readImportFacts(sourceFile: Typescript.SourceFile, commonJsOnly = false): ImportFacts {
  const { text, statements } = sourceFile;
  const allImports = statements.map(importOf);
  const lastImport = statements.findLast((_statement, index) => allImports[index] !== undefined);
  const imports = allImports.flatMap((imported) => (imported?.specifier === PACKAGE_NAME ? [imported] : []));
  // The directive prologue (`'use strict';`) must stay first.
  const firstOther = statements.findIndex((s) => !ts.isExpressionStatement(s) || !ts.isStringLiteral(s.expression));
  const directive = statements[(firstOther === -1 ? statements.length : firstOther) - 1];
  const first = statements[0];
  const javascript = isJavaScriptFile(sourceFile);
  const commonJs = writesCommonJs(sourceFile, javascript);
  const syntax = javascript && commonJs ? 'require' : 'import';
  const existing = (imported: string, value: boolean): string | undefined =>
    imports.flatMap(({ named, typeOnly }) =>
      named.filter((name) => name.imported === imported && !(value && (typeOnly || name.typeOnly))),
    )[0]?.local;
  const conditionType = existing(CONDITION_TYPE, false);
  const unsupportedError = existing(UNSUPPORTED_ERROR, true);
  const valueNamespace = imports.find((d) => d.namespace !== undefined && !d.typeOnly)?.namespace;
  // `import { … }` is not CommonJS syntax under `verbatimModuleSyntax`: without a value import to add names to, a
  // TypeScript file in CommonJS syntax gets `import x = require(…)`.
  const newNamespace =
    !javascript &&
    (commonJsOnly || commonJs) &&
    valueNamespace === undefined &&
    unsupportedError === undefined &&
    !imports.some((d) => !d.typeOnly && d.syntax === 'import' && d.list)
      ? freeName(NAMESPACE_NAME, text)
      : undefined;
  const namespace = valueNamespace ?? newNamespace;
  const qualified = (name: string): string => (namespace === undefined ? name : `${namespace}.${name}`);
  return {
    typescript: !javascript,
    names: {
      conditionType: javascript ? undefined : (conditionType ?? qualified(CONDITION_TYPE)),
      unsupportedError: unsupportedError ?? qualified(UNSUPPORTED_ERROR),
    },
    missing: {
      conditionType: !javascript && valueNamespace === undefined && conditionType === undefined,
      unsupportedError: valueNamespace === undefined && unsupportedError === undefined,
    },
    newNamespace,
    valueImport: imports.find((d) => d.syntax === syntax && !d.typeOnly && d.list !== undefined)?.list,
    typeImport: imports.find((d) => d.typeOnly && d.list !== undefined)?.list,
    newImport: {
      at: lastImport?.end ?? directive?.end ?? (first === undefined ? 0 : attachedCommentsStart(text, first)),
      after: lastImport !== undefined ? 'import' : directive !== undefined ? 'directive' : undefined,
    },
    newImportSyntax: syntax,
  };
}

/** `name`, or `name2`, `name3`… when the file already uses it. */
function freeName(name: string, text: string, suffix = 1): string {
  const candidate = suffix === 1 ? name : `${name}${suffix}`;
  return new RegExp(`\\b${candidate}\\b`).test(text) ? freeName(name, text, suffix + 1) : candidate;
}

/** What `statement` imports from which module: `import …`, `import x = require(…)` or `const … = require(…)`. */
function importOf(statement: Typescript.Statement) {
  const imported = importBindings(statement);
  if (imported !== undefined) {
    const bindings = ts.isImportDeclaration(statement) ? statement.importClause?.namedBindings : undefined;
    const list = bindings && ts.isNamedImports(bindings) && bindings.elements.length > 0 ? bindings : undefined;
    return { syntax: 'import' as const, ...imported, list };
  }
  const [declaration, ...others] = ts.isVariableStatement(statement) ? statement.declarationList.declarations : [];
  const call = others.length === 0 ? declaration?.initializer : undefined;
  const isRequire =
    call && ts.isCallExpression(call) && ts.isIdentifier(call.expression) && call.arguments.length === 1;
  const argument = isRequire && call.expression.text === 'require' ? call.arguments[0] : undefined;
  if (declaration === undefined || argument === undefined || !ts.isStringLiteralLike(argument)) {
    return undefined;
  }
  const pattern = declaration.name;
  const elements = ts.isObjectBindingPattern(pattern) ? pattern.elements : [];
  const named = elements.filter((element) => ts.isIdentifier(element.name) && element.dotDotDotToken === undefined);
  const restLast = elements.at(-1)?.dotDotDotToken !== undefined;
  return {
    syntax: 'require' as const,
    specifier: argument.text,
    typeOnly: false,
    namespace: ts.isIdentifier(pattern) ? pattern.text : undefined,
    named: named.map((element) => ({
      imported: (element.propertyName ?? element.name).getText(),
      local: element.name.getText(),
      typeOnly: false,
    })),
    // A rest element must stay last, so names cannot be added after it: the file gets a require of its own.
    list: ts.isObjectBindingPattern(pattern) && elements.length > 0 && !restLast ? pattern : undefined,
  };
}

/**
 * Whether the file writes CommonJS, which a new import follows. TypeScript: `export =` or `import x = require(…)`.
 * JavaScript, where `import` is then a syntax error: `.cjs`; not `.mjs`; otherwise a file without `import`/`export` that
 * uses `require`/`module.exports` or sits in a package not `"type": "module"`. (Not `ts.isExternalModule`: in a
 * program, `moduleDetection` and the package type can force a script to be one.)
 */
function writesCommonJs({ fileName: path, statements, text }: Typescript.SourceFile, javascript: boolean): boolean {
  if (!javascript) {
    return statements.some(
      (statement) =>
        (ts.isExportAssignment(statement) && statement.isExportEquals === true) ||
        (ts.isImportEqualsDeclaration(statement) && ts.isExternalModuleReference(statement.moduleReference)),
    );
  }
  const esm = statements.some(
    (statement) =>
      ts.isImportDeclaration(statement) ||
      ts.isExportDeclaration(statement) ||
      ts.isExportAssignment(statement) ||
      (ts.canHaveModifiers(statement) &&
        ts.getModifiers(statement)?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)),
  );
  const commonJsText = /\brequire\s*\(|\bmodule\.exports\b|\bexports\.\w/.test(text);
  return (
    /\.cjs$/.test(path) ||
    (!/\.mjs$/.test(path) &&
      !esm &&
      (commonJsText || nearestManifestField(dirname(resolve(path)), 'type') !== 'module'))
  );
}
