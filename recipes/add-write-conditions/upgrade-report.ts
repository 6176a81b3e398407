import type { SaveShape } from './upgrade-data.js';

/** An implementer the recipe left alone, and why. */
export interface SkippedImplementer {
  readonly file: string;
  /** The class name, or the variable an object literal is assigned to. */
  readonly class: string;
  readonly line: number;
  readonly reason: string;
}

/** One implementer the recipe found, and what it did to it. */
export interface ImplementerReport extends Omit<SkippedImplementer, 'reason'> {
  readonly kind: 'class' | 'object-literal';
  readonly shape: SaveShape;
  readonly membersAdded: readonly string[];
  /** The existing two-parameter `save` was renamed to this, when it was. */
  readonly unconditionalSaveRenamedTo: string | undefined;
}

/** One file whose text the recipe changes. */
export interface FileChange {
  readonly file: string;
  readonly before: string;
  readonly after: string;
  /** The rules of the project's ESLint whose fixes were applied to the lines the upgrade wrote; absent when none. */
  readonly lintFixes?: readonly string[];
}

/** The result of one upgrade run. */
export interface UpgradeReport {
  readonly filesScanned: number;
  /** Files that could reach `checkpoint-fencing` and so were parsed with types. */
  readonly filesAnalysed: number;
  readonly implementers: readonly ImplementerReport[];
  readonly skipped: readonly SkippedImplementer[];
  readonly changes: readonly FileChange[];
  /** Whether the changes were written to disk (false for a dry run or a check). */
  readonly written: boolean;
  /** One-line notes, e.g. that the package's declarations were read directly because the project cannot resolve it. */
  readonly notices: readonly string[];
  readonly durationMs: number;
}

/** The summary line the CLI prints last. */
export function summaryLine(report: UpgradeReport): string {
  const count = (quantity: number, noun: string): string => `${quantity} ${noun}${quantity === 1 ? '' : 's'}`;
  const seconds = (report.durationMs / 1000).toFixed(2);
  const verb = report.written ? 'changed' : 'would change';
  const found = report.implementers.length + report.skipped.length;
  return `add-write-conditions: ${count(report.filesScanned, 'file')} scanned, ${count(found, 'implementer')} found (${report.skipped.length} skipped), ${count(report.changes.length, 'file')} ${verb}, ${seconds}s.`;
}
