import { planImports } from './import-plan.js';
import type { ImportFacts } from './implementer-facts.js';
import { memberEdits } from './member-text.js';
import type { UpgradeDecision } from './shape-decision.js';
import { detectSourceStyle } from './source-style.js';
import { applyTextEdits } from './text-edit.js';

/**
 * Rewrites one file's text for the decisions that concern it: generated members plus the imports they need. Both
 * front ends end here, so the text they write is the same for the same decisions.
 */
export function upgradeFileText(source: string, decisions: readonly UpgradeDecision[], imports: ImportFacts): string {
  const acting = decisions.filter((decision) => decision.skipReason === undefined);
  const style = detectSourceStyle(source);
  const writesSave = acting.some((decision) => ['delegating', 'inherited', 'refusing'].includes(decision.saveShape));
  if (!writesSave && !acting.some((decision) => decision.addWriteVersion || decision.saveShape === 'follows-base')) {
    return source;
  }
  const { names, edits: importEdits } = planImports(source, imports, style, {
    conditionType: writesSave,
    unsupportedError: writesSave,
  });
  const context = { source, style, names, typescript: imports.typescript };
  return applyTextEdits(source, [...importEdits, ...acting.flatMap((decision) => memberEdits(decision, context))]);
}
