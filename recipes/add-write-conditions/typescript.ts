import { createRequire } from 'node:module';
import type { ts as Typescript } from 'ts-morph';

/**
 * The TypeScript compiler ts-morph bundles, so both front ends parse with one copy whatever the project's `typescript`.
 * Required, not imported: Node would scan the CommonJS bundle for named exports first, about 0.2 s of CPU a run.
 */
export const ts: typeof Typescript = (createRequire(import.meta.url)('ts-morph') as { ts: typeof Typescript }).ts;

/**
 * Where the comments directly above `node` begin, so new text goes above a node's documentation, not between; a blank
 * line ends the run.
 */
export function attachedCommentsStart(text: string, node: Typescript.Node): number {
  let at = node.getStart();
  for (const range of (ts.getLeadingCommentRanges(text, node.pos) ?? []).reverse()) {
    if (/\n[ \t]*\r?\n/.test(text.slice(range.end, at))) {
      break;
    }
    at = range.pos;
  }
  return at;
}
