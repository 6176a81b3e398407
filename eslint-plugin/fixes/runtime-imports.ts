import { AST_NODE_TYPES } from '@typescript-eslint/types';
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { fillTemplate, listEdits, newImportEdit, TEMPLATES } from '../../vocabulary/member-templates.js';
import type { SourceStyle } from '../../vocabulary/source-style.js';
import { PACKAGE_NAME } from '../../vocabulary/index.js';
import type { TypeInformation } from '../analysis/index.js';
import { attachedCommentsStart, listItem, type FixContext, type TextEdit } from './text-edits.js';

// How a file imports checkpoint-fencing and where a new import goes, read from ESTree as the codemod reads it from
// TypeScript's tree (recipes/add-write-conditions/read-import-facts.ts), so that the fixes import names as it does.

/** The local name an `import x = require('checkpoint-fencing')` gets, unless the file already uses it. */
const NAMESPACE_NAME = 'checkpointFencing';

/** The braces of an `import { … }` or `const { … } = require(…)` with at least one name, and its statement's end. */
interface NamedList {
  readonly braces: readonly [number, number];
  readonly elements: readonly ReturnType<typeof listItem>[];
  readonly statementEnd: number;
}

interface Imported {
  readonly syntax: 'import' | 'require';
  readonly specifier: string;
  readonly typeOnly: boolean;
  readonly namespace: string | undefined;
  readonly named: readonly { readonly imported: string; readonly local: string; readonly typeOnly: boolean }[];
  readonly list: NamedList | undefined;
}

/** How a file imports from checkpoint-fencing: how new code spells a name it already imports, where imports go. */
export interface RuntimeImports {
  /** The local name of `name` when the file imports it (as a value, for `value`), else `undefined`. */
  readonly imported: (name: string, value: boolean) => string | undefined;
  /** A value namespace (`import * as cf`, `import cf = require(…)`) through which every name is reached. */
  readonly namespace: string | undefined;
  /** The `import x = require(…)` a TypeScript file in CommonJS syntax gets: names then go through `x`. */
  readonly newNamespace: string | undefined;
  readonly valueImport: NamedList | undefined;
  readonly typeImport: NamedList | undefined;
  /** After the last import, else after the directive prologue, else before the first statement and its comments. */
  readonly newImport: { readonly at: number; readonly after: 'import' | 'directive' | undefined };
  /** `require` in a CommonJS JavaScript file, where `import` is a syntax error. */
  readonly newImportSyntax: 'import' | 'require';
}

/** Reads how the file imports checkpoint-fencing. */
export function runtimeImports({ sourceCode, filename, types }: FixContext): RuntimeImports {
  const { text, ast } = sourceCode;
  const statements = ast.body;
  const all = statements.map((statement) => importOf(statement, sourceCode));
  const lastImport = statements.findLast((_statement, index) => all[index] !== undefined);
  const imports = all.filter((imported) => imported?.specifier === PACKAGE_NAME) as Imported[];
  // The directive prologue (`'use strict';`) must stay first.
  const firstOther = statements.findIndex((statement) => !isDirective(statement));
  const directive = statements[(firstOther === -1 ? statements.length : firstOther) - 1];
  const first = statements[0];
  const javascript = /\.[cm]?jsx?$/u.test(filename);
  const syntax = javascript && writesCommonJs(statements, text, filename) ? 'require' : 'import';
  const imported = (name: string, value: boolean): string | undefined =>
    imports.flatMap(({ named, typeOnly }) =>
      named.filter((entry) => entry.imported === name && !(value && (typeOnly || entry.typeOnly))),
    )[0]?.local;
  const namespace = imports.find((d) => d.namespace !== undefined && !d.typeOnly)?.namespace;
  const typescriptCommonJs =
    !javascript &&
    ((types !== undefined && compilesToCommonJsOnly(types, ast)) ||
      statements.some(
        (statement) =>
          statement.type === AST_NODE_TYPES.TSExportAssignment ||
          (statement.type === AST_NODE_TYPES.TSImportEqualsDeclaration &&
            statement.moduleReference.type === AST_NODE_TYPES.TSExternalModuleReference),
      ));
  return {
    imported,
    namespace,
    // `import { … }` is not CommonJS syntax under `verbatimModuleSyntax`: without a value import to add names to, a
    // TypeScript file in CommonJS syntax gets `import x = require(…)`.
    newNamespace:
      typescriptCommonJs &&
      namespace === undefined &&
      !imports.some((d) => !d.typeOnly && d.syntax === 'import' && d.list !== undefined)
        ? freeName(NAMESPACE_NAME, text)
        : undefined,
    valueImport: imports.find((d) => d.syntax === syntax && !d.typeOnly && d.list !== undefined)?.list,
    typeImport: imports.find((d) => d.typeOnly && d.list !== undefined)?.list,
    newImport: {
      at:
        lastImport?.range[1] ??
        directive?.range[1] ??
        (first === undefined ? 0 : attachedCommentsStart(sourceCode, first)),
      after: lastImport !== undefined ? 'import' : directive !== undefined ? 'directive' : undefined,
    },
    newImportSyntax: syntax,
  };
}

/**
 * The edits that import `types` (type-only) and `values` from checkpoint-fencing: merged into the file's import of
 * the package (in place while its statement fits, else broken one name a line), else a new import statement.
 */
export function runtimeImportEdits(
  text: string,
  imports: RuntimeImports,
  style: SourceStyle,
  { types, values }: { readonly types: readonly string[]; readonly values: readonly string[] },
): TextEdit[] {
  if (imports.newNamespace !== undefined) {
    const statement = fillTemplate(TEMPLATES.namespaceImport, { namespace: imports.newNamespace }, '', style);
    return types.length + values.length === 0
      ? []
      : [newImportEdit(imports.newImport, statement.join(style.newline), style.newline)];
  }
  const typeNames = types.map((name) => `type ${name}`);
  // Adds names to the braces of `list`: in place when its statement still fits, else broken one name a line.
  const merged = ({ braces, elements, statementEnd }: NamedList, added: readonly string[]) =>
    listEdits(text, style, braces, elements, added, { lineEnd: statementEnd });
  const { valueImport, typeImport } = imports;
  if (valueImport !== undefined) {
    return merged(valueImport, [...typeNames, ...values]);
  }
  const edits = typeImport === undefined ? [] : merged(typeImport, types);
  const added = [...(typeImport === undefined ? typeNames : []), ...values];
  if (added.length > 0) {
    const template = imports.newImportSyntax === 'require' ? TEMPLATES.requireImport : TEMPLATES.valueImport;
    const statement = fillTemplate(template, { names: added }, '', style).join(style.newline);
    edits.push(newImportEdit(imports.newImport, statement, style.newline, typeImport?.statementEnd));
  }
  return edits;
}

/**
 * With types, whether the file compiles to CommonJS under `verbatimModuleSyntax`, where a value needs
 * `import x = require`: typed-project.ts's `emitsCommonJs`.
 */
function compilesToCommonJsOnly(types: TypeInformation, program: TSESTree.Program): boolean {
  const options = types.program.getCompilerOptions();
  // `ts.ModuleKind` values, spelled out: plugin code does not load the compiler (ADR 0304).
  const [commonJs, node16, nodeNext] = [1, 100, 199];
  const kind: number | undefined = options.module;
  const format: number | undefined = types.esTreeNodeToTSNodeMap.get(program).impliedNodeFormat;
  return (
    options.verbatimModuleSyntax === true &&
    (kind !== undefined && kind >= node16 && kind <= nodeNext ? format === commonJs : kind === commonJs)
  );
}

/** `name`, or `name2`, `name3`… when the file already uses it. */
function freeName(name: string, text: string, suffix = 1): string {
  const candidate = suffix === 1 ? name : `${name}${suffix}`;
  return new RegExp(`\\b${candidate}\\b`, 'u').test(text) ? freeName(name, text, suffix + 1) : candidate;
}

function isDirective(statement: TSESTree.ProgramStatement): boolean {
  return (
    statement.type === AST_NODE_TYPES.ExpressionStatement &&
    statement.expression.type === AST_NODE_TYPES.Literal &&
    typeof statement.expression.value === 'string'
  );
}

/** The name a specifier or destructured key spells. */
function nameOf(node: TSESTree.Node): string | undefined {
  return node.type === AST_NODE_TYPES.Identifier
    ? node.name
    : node.type === AST_NODE_TYPES.Literal && typeof node.value === 'string'
      ? node.value
      : undefined;
}

/** The braces around `elements`, the tokens just outside the first and the last. */
function braces(sourceCode: Readonly<TSESLint.SourceCode>, elements: readonly TSESTree.Node[]): [number, number] {
  const [first, last] = [elements[0], elements.at(-1)];
  const open = first && sourceCode.getTokenBefore(first);
  const close = last && sourceCode.getTokenAfter(last, { filter: (token) => token.value === '}' });
  return [open?.range[0] ?? 0, close?.range[0] ?? 0];
}

/** What `statement` imports from which module: `import …`, `import x = require(…)` or `const … = require(…)`. */
function importOf(
  statement: TSESTree.ProgramStatement,
  sourceCode: Readonly<TSESLint.SourceCode>,
): Imported | undefined {
  if (statement.type === AST_NODE_TYPES.ImportDeclaration) {
    const named = statement.specifiers.filter((s) => s.type === AST_NODE_TYPES.ImportSpecifier);
    return {
      syntax: 'import',
      specifier: statement.source.value,
      typeOnly: statement.importKind === 'type',
      namespace: statement.specifiers.find((s) => s.type === AST_NODE_TYPES.ImportNamespaceSpecifier)?.local.name,
      named: named.map((s) => ({
        imported: nameOf(s.imported) ?? '',
        local: s.local.name,
        typeOnly: s.importKind === 'type',
      })),
      list:
        named.length === 0
          ? undefined
          : {
              braces: braces(sourceCode, named),
              elements: named.map((s) => listItem(s, sourceCode.text)),
              statementEnd: statement.range[1],
            },
    };
  }
  if (statement.type === AST_NODE_TYPES.TSImportEqualsDeclaration) {
    const reference = statement.moduleReference;
    return reference.type === AST_NODE_TYPES.TSExternalModuleReference
      ? {
          syntax: 'import',
          specifier: reference.expression.value,
          typeOnly: statement.importKind === 'type',
          namespace: statement.id.name,
          named: [],
          list: undefined,
        }
      : undefined;
  }
  const [declaration, ...others] = statement.type === AST_NODE_TYPES.VariableDeclaration ? statement.declarations : [];
  const call = others.length === 0 ? declaration?.init : undefined;
  const argument =
    call?.type === AST_NODE_TYPES.CallExpression &&
    call.callee.type === AST_NODE_TYPES.Identifier &&
    call.callee.name === 'require' &&
    call.arguments.length === 1
      ? call.arguments[0]
      : undefined;
  const specifier =
    argument?.type === AST_NODE_TYPES.Literal && typeof argument.value === 'string'
      ? argument.value
      : argument?.type === AST_NODE_TYPES.TemplateLiteral && argument.expressions.length === 0
        ? (argument.quasis[0]?.value.cooked ?? undefined)
        : undefined;
  if (declaration === undefined || specifier === undefined || statement.type !== AST_NODE_TYPES.VariableDeclaration) {
    return undefined;
  }
  const pattern = declaration.id;
  const elements = pattern.type === AST_NODE_TYPES.ObjectPattern ? pattern.properties : [];
  const named = elements.flatMap((element) => {
    const value = element.type === AST_NODE_TYPES.Property ? element.value : undefined;
    const local = value?.type === AST_NODE_TYPES.AssignmentPattern ? value.left : value;
    return element.type === AST_NODE_TYPES.Property && local?.type === AST_NODE_TYPES.Identifier
      ? [{ imported: sourceCode.getText(element.key), local: local.name, typeOnly: false }]
      : [];
  });
  // A rest element must stay last, so names cannot be added after it: the file gets a require of its own.
  const restLast = elements.at(-1)?.type === AST_NODE_TYPES.RestElement;
  return {
    syntax: 'require',
    specifier,
    typeOnly: false,
    namespace: pattern.type === AST_NODE_TYPES.Identifier ? pattern.name : undefined,
    named,
    list:
      elements.length > 0 && !restLast
        ? {
            braces: braces(sourceCode, elements),
            elements: elements.map((element) => listItem(element, sourceCode.text)),
            statementEnd: statement.range[1],
          }
        : undefined,
  };
}

/**
 * Whether a JavaScript file writes CommonJS, which a new import follows: `.cjs`, or, not `.mjs`, a file without
 * `import` or `export` that uses `require` or `module.exports`. (The codemod also asks the nearest package.json's
 * `type` when a file shows neither; a lint fix does not read the disk for that.)
 */
function writesCommonJs(statements: readonly TSESTree.ProgramStatement[], text: string, filename: string): boolean {
  const esm = statements.some(
    (statement) =>
      statement.type === AST_NODE_TYPES.ImportDeclaration ||
      statement.type === AST_NODE_TYPES.ExportNamedDeclaration ||
      statement.type === AST_NODE_TYPES.ExportDefaultDeclaration ||
      statement.type === AST_NODE_TYPES.ExportAllDeclaration,
  );
  return (
    /\.cjs$/u.test(filename) ||
    (!/\.mjs$/u.test(filename) && !esm && /\brequire\s*\(|\bmodule\.exports\b|\bexports\.\w/u.test(text))
  );
}
