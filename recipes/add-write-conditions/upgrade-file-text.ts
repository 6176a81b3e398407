import { generatedNames, importEdits } from './import-plan.js';
import type { ImportFacts } from './implementer-facts.js';
import { memberEdits, writesConditionType, writesRefusal } from './member-text.js';
import type { UpgradeDecision } from './shape-decision.js';
import { detectSourceStyle } from './source-style.js';
import { applyTextEdits } from './text-edit.js';

/**
 * Rewrites one file's text for the decisions that concern it: generated members plus the imports they need. Both
 * front ends end here, so the text they write is the same for the same decisions. `printWidth` is the width the
 * project states (Prettier, `.editorconfig`); without it, lines wrap at the width the file already uses.
 */
export function upgradeFileText(
  source: string,
  decisions: readonly UpgradeDecision[],
  imports: ImportFacts,
  printWidth?: number,
): string {
  const style = detectSourceStyle(source, printWidth);
  const context = { source, style, names: generatedNames(imports), typescript: imports.typescript };
  const members = decisions.flatMap((decision) => memberEdits(decision, context));
  if (members.length === 0) {
    return source;
  }
  const needs = {
    conditionType: decisions.some((decision) => writesConditionType(decision, imports.typescript)),
    unsupportedError: decisions.some((decision) => writesRefusal(decision)),
  };
  return applyTextEdits(source, [...importEdits(source, imports, style, needs), ...members]);
}
