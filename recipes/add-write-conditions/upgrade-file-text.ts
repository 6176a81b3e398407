import { resolve } from 'node:path';
import type { ImportFacts, NamedImportList } from './implementer-facts.js';
import { memberEdits } from './member-edits.js';
import type { FileFacts } from './read-implementer-facts.js';
import { CONDITION_TYPE, fillTemplate, listEdits, TEMPLATES, UNSUPPORTED_ERROR } from './member-templates.js';
import type { UpgradeDecision } from './shape-decision.js';
import { detectSourceStyle, type SourceStyle } from './source-style.js';
import { ts } from './typescript.js';

/** One replacement in a file's text: `[start, end)` becomes `text`; an insertion has `start === end`. */
export interface TextEdit {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/** A file's text after the upgrade, and the `[start, end)` ranges of it the upgrade wrote, in order. */
export interface UpgradedText {
  readonly text: string;
  readonly inserted: readonly (readonly [number, number])[];
}

/** The file's text with its decisions' members and imports, as edits of the original text (ADR 0201). */
export function upgradeFileText(
  { path, text: source, imports }: FileFacts,
  decisions: readonly UpgradeDecision[],
): UpgradedText {
  const style = detectSourceStyle(source, resolve(path));
  const { names, missing } = imports;
  const members = decisions.flatMap((decision) => memberEdits(decision, source, style, imports));
  const written = members.map((edit) => edit.text).join('\n');
  const type = missing.conditionType && written.includes(`: ${names.conditionType}`) ? [CONDITION_TYPE] : [];
  const error =
    missing.unsupportedError && written.includes(`new ${names.unsupportedError}(`) ? [UNSUPPORTED_ERROR] : [];
  return applyTextEdits(source, [...importEdits(source, imports, style, type, error), ...members]);
}

/** The imports of the names generated code uses: merged into the file's import of the package, else a new one. */
function importEdits(
  source: string,
  facts: ImportFacts,
  style: SourceStyle,
  type: readonly string[],
  error: readonly string[],
): TextEdit[] {
  if (facts.newNamespace !== undefined) {
    const statement = fillTemplate(TEMPLATES.namespaceImport, { namespace: facts.newNamespace }, '', style);
    return type.length + error.length === 0 ? [] : [newImport(facts, style, statement.join(style.newline))];
  }
  const typeNames = type.map((name) => `type ${name}`);
  const { valueImport, typeImport } = facts;
  if (valueImport !== undefined) {
    return mergeInto(source, valueImport, [...typeNames, ...error], style);
  }
  const edits = typeImport === undefined ? [] : mergeInto(source, typeImport, type, style);
  const added = [...(typeImport === undefined ? typeNames : []), ...error];
  if (added.length > 0) {
    const template = facts.newImportSyntax === 'require' ? TEMPLATES.requireImport : TEMPLATES.valueImport;
    const statement = fillTemplate(template, { names: added }, '', style).join(style.newline);
    edits.push(newImport(facts, style, statement, typeImport && statementEnd(typeImport)));
  }
  return edits;
}

/** A new import statement: after `anchor` or the file's last import, else after its directives, else first. */
function newImport(facts: ImportFacts, style: SourceStyle, statement: string, anchor?: number): TextEdit {
  const at = anchor ?? facts.newImport.at;
  const nl = style.newline;
  const after = anchor !== undefined ? 'import' : facts.newImport.after;
  const text = after === 'import' ? nl + statement : after === 'directive' ? nl + nl + statement : statement + nl + nl;
  return { start: at, end: at, text };
}

/** Adds `added` to the braces of `list`: in place when its statement still fits, else broken one name a line. */
function mergeInto(source: string, list: NamedImportList, added: readonly string[], style: SourceStyle): TextEdit[] {
  const braces = [list.getStart(), list.end - 1] as const;
  return listEdits(source, style, braces, list.elements, added, { lineEnd: statementEnd(list) });
}

/** The end of the import statement holding `list`, a statement of the file. */
function statementEnd(list: NamedImportList): number | undefined {
  return ts.findAncestor(list, (node) => ts.isSourceFile(node.parent))?.end;
}

/** Applies non-overlapping edits to `source`; insertions at one offset keep their order, as the sort is stable. */
function applyTextEdits(source: string, edits: readonly TextEdit[]): UpgradedText {
  let result = '';
  let cursor = 0;
  const inserted: [number, number][] = [];
  for (const edit of [...edits].sort((a, b) => a.start - b.start || a.end - b.end)) {
    if (edit.start < cursor) {
      throw new Error(
        `add-write-conditions: two edits overlap at offset ${edit.start}; this is a bug in the recipe, please report it with the file.`,
      );
    }
    result += source.slice(cursor, edit.start);
    inserted.push([result.length, result.length + edit.text.length]);
    result += edit.text;
    cursor = edit.end;
  }
  return { text: result + source.slice(cursor), inserted };
}
