import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { detectSourceStyle, type SourceStyle } from '../../vocabulary/source-style.js';
import type { TypeInformation } from '../analysis/index.js';

/** What a fix reads about the file it edits. */
export interface FixContext {
  readonly sourceCode: Readonly<TSESLint.SourceCode>;
  readonly filename: string;
  /** The file's style, which member-templates.ts fills templates in: read on the first fix written, once a file. */
  readonly style: () => SourceStyle;
  readonly types: TypeInformation | undefined;
}

/** The {@link FixContext} of a rule's file. */
export function fixContext(
  context: Readonly<TSESLint.RuleContext<string, readonly unknown[]>>,
  types: TypeInformation | undefined,
): FixContext {
  let style: SourceStyle | undefined;
  const { sourceCode, filename } = context;
  return { sourceCode, filename, style: () => (style ??= detectSourceStyle(sourceCode.text, filename)), types };
}

/** A replacement of `[start, end)` in a file's text by `text`; an insertion has `start === end`. */
export interface TextEdit {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/** `node` as the list templates of member-templates.ts read an item: where it ends and what it spells. */
export function listItem(node: TSESTree.Node, text: string): { readonly end: number; getText(): string } {
  return { end: node.range[1], getText: () => text.slice(node.range[0], node.range[1]) };
}

/**
 * Where the comments directly above `node` begin, as the codemod finds them with TypeScript's leading comments: those
 * after the line break that follows the token before it (any comment for the file's first token), a blank line ending
 * the run.
 */
export function attachedCommentsStart(sourceCode: Readonly<TSESLint.SourceCode>, node: TSESTree.Node): number {
  const { text } = sourceCode;
  const previousEnd = sourceCode.getTokenBefore(node)?.range[1];
  const lineBreak = previousEnd === undefined ? -Infinity : text.indexOf('\n', previousEnd);
  let at = node.range[0];
  const comments = sourceCode
    .getCommentsBefore(node)
    .filter((comment) => lineBreak !== -1 && comment.range[0] > lineBreak);
  for (const comment of comments.reverse()) {
    if (/\n[ \t]*\r?\n/.test(text.slice(comment.range[1], at))) {
      break;
    }
    at = comment.range[0];
  }
  return at;
}

/**
 * `edits` as one fix of the text from the first edit's start to the last one's end, applied in order (insertions at
 * one offset keep theirs) as the codemod applies them: a suggestion then shows and applies exactly its text.
 */
export function asOneFix(fixer: TSESLint.RuleFixer, text: string, edits: readonly TextEdit[]): TSESLint.RuleFix {
  const sorted = [...edits].sort((a, b) => a.start - b.start || a.end - b.end);
  const start = sorted[0]?.start ?? 0;
  let replacement = '';
  let cursor = start;
  for (const edit of sorted) {
    replacement += text.slice(cursor, edit.start) + edit.text;
    cursor = Math.max(cursor, edit.end);
  }
  return fixer.replaceTextRange([start, cursor], replacement);
}
