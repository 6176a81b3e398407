import type { RuntimeExportName } from '../../vocabulary/index.js';
import type { ImportDeclarationFacts, ImportFacts } from './implementer-facts.js';
import { CONDITION_TYPE, fillTemplate, itemsAfter, TEMPLATES } from './member-templates.js';
import { columns, lineIndent, type SourceStyle } from './source-style.js';
import type { TextEdit } from './upgrade-file-text.js';

const UNSUPPORTED_ERROR: RuntimeExportName = 'UnsupportedWriteConditionError';

/** How generated code spells the two names it needs, e.g. `CheckpointWriteCondition` or `cf.CheckpointWriteCondition`. */
export interface GeneratedNames {
  /** The type of a condition; `undefined` in JavaScript, where no type is written. */
  readonly conditionType: string | undefined;
  readonly unsupportedError: string;
}

/**
 * Through a namespace import (an existing one, or the `import x = require(…)` a file in CommonJS syntax gets), an
 * existing (possibly aliased) named import, or the export's own name, which {@link importEdits} then imports.
 */
export function generatedNames(facts: ImportFacts): GeneratedNames {
  const namespace = valueNamespace(facts) ?? plannedNamespace(facts);
  const qualified = (name: string): string => (namespace === undefined ? name : `${namespace}.${name}`);
  return {
    conditionType: facts.typescript ? (existingType(facts) ?? qualified(CONDITION_TYPE)) : undefined,
    unsupportedError: existingError(facts) ?? qualified(UNSUPPORTED_ERROR),
  };
}

/**
 * The edits that import what generated code needs and the file lacks: merged into the file's existing value import
 * from checkpoint-fencing (or the type into its type-only import), or one new import when there is nowhere to merge
 * into: `import { … } from`, `const { … } = require(…)` in a CommonJS script, or `import x = require(…)` in a
 * TypeScript file in CommonJS syntax. A merged or new import that no longer fits the file's width is broken one name
 * a line, as Prettier does.
 */
export function importEdits(
  source: string,
  facts: ImportFacts,
  style: SourceStyle,
  needs: { conditionType: boolean; unsupportedError: boolean },
): TextEdit[] {
  if (valueNamespace(facts) !== undefined) {
    return [];
  }
  const missingType = needs.conditionType && facts.typescript && existingType(facts) === undefined;
  const missingError = needs.unsupportedError && existingError(facts) === undefined;
  const namespace = plannedNamespace(facts);
  if (namespace !== undefined) {
    const statement = fillTemplate(TEMPLATES.namespaceImport, { namespace }, '', style).join(style.newline);
    return missingType || missingError ? [newImport(facts, style, statement)] : [];
  }
  const syntax = facts.newImportSyntax === 'require' ? 'require' : 'import';
  const valueImport = facts.declarations.find(
    (declaration) =>
      declaration.syntax === syntax && !declaration.typeOnly && declaration.lastSpecifierEnd !== undefined,
  );
  const typeImport = facts.declarations.find(
    (declaration) => declaration.typeOnly && declaration.lastSpecifierEnd !== undefined,
  );
  const type = missingType ? [`type ${CONDITION_TYPE}`] : [];
  const error = missingError ? [UNSUPPORTED_ERROR] : [];
  if (valueImport !== undefined) {
    return mergeInto(source, valueImport, [...type, ...error], style);
  }
  const edits = missingType && typeImport !== undefined ? mergeInto(source, typeImport, [CONDITION_TYPE], style) : [];
  const added = [...(typeImport === undefined ? type : []), ...error];
  if (added.length > 0) {
    const template = syntax === 'require' ? TEMPLATES.requireImport : TEMPLATES.valueImport;
    const statement = fillTemplate(template, { names: added }, '', style).join(style.newline);
    edits.push(newImport(facts, style, statement, typeImport?.end));
  }
  return edits;
}

/** A new import statement: after `anchor` or the file's last import, else after its directives, else first. */
function newImport(facts: ImportFacts, style: SourceStyle, statement: string, anchor?: number): TextEdit {
  const at = anchor ?? facts.insertNewImportAt;
  const nl = style.newline;
  const text =
    anchor !== undefined || facts.insertAfter === 'import'
      ? `${nl}${statement}`
      : facts.insertAfter === 'directive'
        ? `${nl}${nl}${statement}`
        : `${statement}${nl}${nl}`;
  return { start: at, end: at, text };
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

/** The local name of an existing named import of `imported`; a value one when `value` is set. */
function existingName(facts: ImportFacts, imported: string, value: boolean): string | undefined {
  return facts.declarations
    .flatMap((declaration) => declaration.named.filter(() => !value || !declaration.typeOnly))
    .find((specifier) => specifier.imported === imported && !(value && specifier.typeOnly))?.local;
}

const existingType = (facts: ImportFacts) => existingName(facts, CONDITION_TYPE, false);
const existingError = (facts: ImportFacts) => existingName(facts, UNSUPPORTED_ERROR, true);

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
  if (source.slice(braces.open, braces.close).includes('\n')) {
    return [itemsAfter(source, at, declaration.trailingComma, added, style)];
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
