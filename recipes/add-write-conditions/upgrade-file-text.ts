import { resolve } from 'node:path';
import { memberEdits } from './member-edits.js';
import { CONDITION_TYPE, UNSUPPORTED_ERROR } from '../../vocabulary/index.js';
import { fillTemplate, listEdits, newImportEdit, TEMPLATES } from '../../vocabulary/member-templates.js';
import { detectSourceStyle, type SourceStyle } from '../../vocabulary/source-style.js';
import { ts } from './typescript.js';
import type {
  FileFacts,
  ImportFacts,
  NamedImportList,
  TextEdit,
  UpgradedText,
  UpgradeDecision,
} from './upgrade-data.js';

/** The file's text with its decisions' members and imports, as edits of the original text (ADR 0201). */
export function upgradeFileText(file: FileFacts, decisions: readonly UpgradeDecision[]): UpgradedText {
  const { path, text: source, imports } = file;
  // Styling looks for the project's configuration files, not needed in a file without implementers.
  if (decisions.length === 0) {
    return { text: source, inserted: [] };
  }
  const style = detectSourceStyle(source, resolve(path));
  const members = decisions.flatMap((decision) => memberEdits(decision, file, style));
  const written = members.map((edit) => edit.text).join('\n');
  return applyTextEdits(source, [...importEdits(source, imports, style, written), ...members]);
}

/** The imports of the names `written` uses: merged into the file's import of the package, else a new one. */
function importEdits(source: string, facts: ImportFacts, style: SourceStyle, written: string): TextEdit[] {
  const { names, missing, valueImport, typeImport } = facts;
  const nl = style.newline;
  const type = missing.conditionType && written.includes(`: ${names.conditionType}`) ? [CONDITION_TYPE] : [];
  const error =
    missing.unsupportedError && written.includes(`new ${names.unsupportedError}(`) ? [UNSUPPORTED_ERROR] : [];
  if (facts.newNamespace !== undefined) {
    const statement = fillTemplate(TEMPLATES.namespaceImport, { namespace: facts.newNamespace }, '', style);
    return type.length + error.length === 0 ? [] : [newImportEdit(facts.newImport, statement.join(nl), nl)];
  }
  const typeNames = type.map((name) => `type ${name}`);
  // Adds names to the braces of `list`: in place when its statement still fits, else broken one name a line.
  const merged = (list: NamedImportList, added: readonly string[]) =>
    listEdits(source, style, [list.getStart(), list.end - 1], list.elements, added, { lineEnd: statementEnd(list) });
  if (valueImport !== undefined) {
    return merged(valueImport, [...typeNames, ...error]);
  }
  const edits = typeImport === undefined ? [] : merged(typeImport, type);
  const added = [...(typeImport === undefined ? typeNames : []), ...error];
  if (added.length > 0) {
    const template = facts.newImportSyntax === 'require' ? TEMPLATES.requireImport : TEMPLATES.valueImport;
    const statement = fillTemplate(template, { names: added }, '', style).join(nl);
    edits.push(newImportEdit(facts.newImport, statement, nl, typeImport && statementEnd(typeImport)));
  }
  return edits;
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
