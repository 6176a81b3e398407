import { generatedNames, importEdits } from './import-plan.js';
import type { ImportFacts } from './implementer-facts.js';
import { memberEdits } from './member-edits.js';
import type { UpgradeDecision } from './shape-decision.js';
import { detectSourceStyle } from './source-style.js';

/** One replacement in a file's text: `[start, end)` becomes `text`; an insertion has `start === end`. */
export interface TextEdit {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/**
 * Rewrites the text of `file` for the decisions that concern it: generated members plus the imports they need, as
 * edits of the original text (doc/adr/0201). Both front ends end here, so they write the same text.
 */
export function upgradeFileText(
  file: string,
  source: string,
  decisions: readonly UpgradeDecision[],
  imports: ImportFacts,
): string {
  const style = detectSourceStyle(source, file);
  const names = generatedNames(imports);
  const members = decisions.flatMap((decision) =>
    memberEdits(decision, { source, style, names, typescript: imports.typescript }),
  );
  if (members.length === 0) {
    return source;
  }
  const written = members.map((edit) => edit.text).join('\n');
  const needs = {
    conditionType: names.conditionType !== undefined && written.includes(`: ${names.conditionType}`),
    unsupportedError: written.includes(`new ${names.unsupportedError}(`),
  };
  return applyTextEdits(source, [...importEdits(source, imports, style, needs), ...members]);
}

/** Applies non-overlapping edits to `source`; insertions at one offset keep the order they were given in. */
function applyTextEdits(source: string, edits: readonly TextEdit[]): string {
  const ordered = edits
    .map((edit, index) => ({ edit, index }))
    .sort((a, b) => a.edit.start - b.edit.start || a.edit.end - b.edit.end || a.index - b.index);
  let result = '';
  let cursor = 0;
  for (const { edit } of ordered) {
    if (edit.start < cursor) {
      throw new Error(
        `add-write-conditions: two edits overlap at offset ${edit.start}; this is a bug in the recipe, please report it with the file.`,
      );
    }
    result += source.slice(cursor, edit.start) + edit.text;
    cursor = edit.end;
  }
  return result + source.slice(cursor);
}
