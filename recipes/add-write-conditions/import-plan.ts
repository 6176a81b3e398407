import type { RuntimeExportName } from '../../vocabulary/index.js';
import type { ImportDeclarationFacts, ImportFacts } from './implementer-facts.js';
import { CONDITION_TYPE, fillTemplate, TEMPLATES } from './member-templates.js';
import { columns, lineIndent, type SourceStyle } from './source-style.js';
import type { TextEdit } from './upgrade-file-text.js';

const UNSUPPORTED_ERROR: RuntimeExportName = 'UnsupportedWriteConditionError';

/** How generated code refers to the two names it needs, e.g. `CheckpointWriteCondition` or `cf.CheckpointWriteCondition`. */
export interface GeneratedNames {
  /** The type of a condition; `undefined` in JavaScript, where no type is written. */
  readonly conditionType: string | undefined;
  readonly unsupportedError: string;
}

/** What the generated members of one file refer to. */
export interface ImportNeeds {
  readonly conditionType: boolean;
  readonly unsupportedError: boolean;
}

/**
 * How generated code spells the names it needs: through a namespace import (an existing one, or the
 * `import x = require(…)` a file in CommonJS syntax gets), an existing (possibly aliased) named import, or the
 * export's own name, which {@link importEdits} then imports.
 */
export function generatedNames(facts: ImportFacts): GeneratedNames {
  const namespace = valueNamespace(facts) ?? plannedNamespace(facts);
  if (namespace !== undefined) {
    return {
      conditionType: facts.typescript ? (existingType(facts) ?? `${namespace}.${CONDITION_TYPE}`) : undefined,
      unsupportedError: existingError(facts) ?? `${namespace}.${UNSUPPORTED_ERROR}`,
    };
  }
  return {
    conditionType: facts.typescript ? (existingType(facts) ?? CONDITION_TYPE) : undefined,
    unsupportedError: existingError(facts) ?? UNSUPPORTED_ERROR,
  };
}

/**
 * The edits that import what generated code needs and the file lacks: merged into the file's existing value import
 * from checkpoint-fencing (or the type into its type-only import), or one new import when there is nowhere to merge
 * into: `import { … } from`, `const { … } = require(…)` in a CommonJS script, or `import x = require(…)` in a
 * TypeScript file in CommonJS syntax. A merged or new import that no longer fits the file's width is broken one name
 * a line, as Prettier does.
 */
export function importEdits(source: string, facts: ImportFacts, style: SourceStyle, needs: ImportNeeds): TextEdit[] {
  if (valueNamespace(facts) !== undefined) {
    return [];
  }
  const missingType = needs.conditionType && facts.typescript && existingType(facts) === undefined;
  const missingError = needs.unsupportedError && existingError(facts) === undefined;
  const namespace = plannedNamespace(facts);
  if (namespace !== undefined) {
    const statement = fillTemplate(TEMPLATES.namespaceImport, { namespace }, '', style).join(style.newline);
    return missingType || missingError ? [newImport(source, facts, style, statement)] : [];
  }
  const syntax = facts.newImportSyntax === 'require' ? 'require' : 'import';
  const valueImport = facts.declarations.find(
    (declaration) =>
      declaration.syntax === syntax && !declaration.typeOnly && declaration.lastSpecifierEnd !== undefined,
  );
  const typeImport = facts.declarations.find(
    (declaration) => declaration.typeOnly && declaration.lastSpecifierEnd !== undefined,
  );
  const edits: TextEdit[] = [];
  const added: string[] = [];
  if (valueImport !== undefined) {
    const names = [...(missingType ? [`type ${CONDITION_TYPE}`] : []), ...(missingError ? [UNSUPPORTED_ERROR] : [])];
    edits.push(...mergeInto(source, valueImport, names, style));
  } else {
    if (missingType && typeImport !== undefined) {
      edits.push(...mergeInto(source, typeImport, [CONDITION_TYPE], style));
    } else if (missingType) {
      added.push(`type ${CONDITION_TYPE}`);
    }
    if (missingError) {
      added.push(UNSUPPORTED_ERROR);
    }
  }
  if (added.length > 0) {
    const template = syntax === 'require' ? TEMPLATES.requireImport : TEMPLATES.valueImport;
    const statement = fillTemplate(template, { names: added }, '', style).join(style.newline);
    edits.push(newImport(source, facts, style, statement, typeImport?.end));
  }
  return edits;
}

/** A new import statement: after `anchor` or the file's last import, else after its directives, else first. */
function newImport(
  source: string,
  facts: ImportFacts,
  style: SourceStyle,
  statement: string,
  anchor?: number,
): TextEdit {
  if (anchor !== undefined || facts.afterImport) {
    const at = anchor ?? facts.insertNewImportAt;
    return { start: at, end: at, text: `${style.newline}${statement}` };
  }
  if (facts.afterDirective) {
    const at = facts.insertNewImportAt;
    return { start: at, end: at, text: `${style.newline}${style.newline}${statement}` };
  }
  const at = attachedCommentsStart(source, facts.insertNewImportAt);
  return { start: at, end: at, text: `${statement}${style.newline}${style.newline}` };
}

/**
 * The `import x = require(…)` a TypeScript file in CommonJS syntax gets, when it has no value import from
 * checkpoint-fencing to add names to (`import { … }` is not CommonJS syntax under `verbatimModuleSyntax`).
 */
function plannedNamespace(facts: ImportFacts): string | undefined {
  const hasValueImport = facts.declarations.some(
    (declaration) => !declaration.typeOnly && declaration.syntax === 'import' && declaration.braces !== undefined,
  );
  return facts.newImportSyntax === 'import-equals' && !hasValueImport && existingError(facts) === undefined
    ? facts.freeNamespaceName
    : undefined;
}

function valueNamespace(facts: ImportFacts): string | undefined {
  return facts.declarations.find((declaration) => declaration.namespace !== undefined && !declaration.typeOnly)
    ?.namespace;
}

function namedImports(facts: ImportFacts) {
  return facts.declarations.flatMap((declaration) =>
    declaration.named.map((specifier) => ({ ...specifier, declarationTypeOnly: declaration.typeOnly })),
  );
}

function existingType(facts: ImportFacts): string | undefined {
  return namedImports(facts).find((specifier) => specifier.imported === CONDITION_TYPE)?.local;
}

function existingError(facts: ImportFacts): string | undefined {
  return namedImports(facts).find(
    (specifier) => specifier.imported === UNSUPPORTED_ERROR && !specifier.typeOnly && !specifier.declarationTypeOnly,
  )?.local;
}

/** Adds `added` to the braces of `declaration`: in place when the line still fits, else broken one name a line. */
function mergeInto(
  source: string,
  declaration: ImportDeclarationFacts,
  added: readonly string[],
  style: SourceStyle,
): TextEdit[] {
  const at = declaration.lastSpecifierEnd;
  const braces = declaration.braces;
  if (added.length === 0 || at === undefined || braces === undefined) {
    return [];
  }
  const inside = source.slice(braces.open, braces.close);
  if (inside.includes('\n')) {
    const indent = lineIndent(source, at - 1);
    const lines = added.map((name) => `${style.newline}${indent}${name}`).join(',');
    return [
      {
        start: at,
        end: at,
        text: `${declaration.trailingComma ? '' : ','}${lines}${declaration.trailingComma ? ',' : ''}`,
      },
    ];
  }
  const inPlace = declaration.trailingComma ? ` ${added.join(', ')},` : `, ${added.join(', ')}`;
  const merged = source.slice(declaration.start, at) + inPlace + source.slice(at, declaration.end);
  if (Math.max(...merged.split('\n').map(columns)) <= style.width) {
    return [{ start: at, end: at, text: inPlace }];
  }
  const names = [...declaration.named.map((specifier) => specifier.text), ...added];
  const broken = fillTemplate(TEMPLATES.importedNames, { names }, lineIndent(source, declaration.start), style, 0);
  return [{ start: braces.open, end: braces.close + 1, text: broken.join(style.newline).trimStart() }];
}

/**
 * Where the comments directly above the statement at `offset` begin (a JSDoc block, line comments), so that a new
 * import goes above them instead of separating a class from its documentation. A blank line ends the run.
 */
function attachedCommentsStart(source: string, offset: number): number {
  let at = offset;
  for (;;) {
    const before = source.slice(0, at);
    const gap = /[ \t]*\r?\n?[ \t]*$/.exec(before)?.[0] ?? '';
    const end = at - gap.length;
    const block = before.slice(0, end).endsWith('*/') ? source.lastIndexOf('/*', end - 2) : -1;
    const lineStart = source.lastIndexOf('\n', end - 1) + 1;
    const line = /^[ \t]*\/\/.*$/.test(source.slice(lineStart, end))
      ? lineStart + (/^[ \t]*/.exec(source.slice(lineStart))?.[0].length ?? 0)
      : -1;
    const next = block !== -1 ? block : line;
    if (next === -1 || next >= at) {
      return at;
    }
    at = next;
  }
}
