import { columns, type SourceStyle } from './source-style.js';

/** A bracketed list and what surrounds it on its line, e.g. a parameter list or the names of an import. */
export interface ListLayout {
  readonly indent: string;
  /** What comes before the opening bracket, e.g. `async save` or `import `. */
  readonly head: string;
  readonly items: readonly string[];
  /** What follows the closing bracket, e.g. `: Promise<string> {` or ` from 'checkpoint-fencing';`. */
  readonly tail: string;
  readonly brackets: '()' | '{}';
}

/**
 * The list on one line when it fits the file's width, otherwise one item a line, as Prettier lays out parameters
 * and named imports; the lines come back indented.
 */
export function listLines(layout: ListLayout, style: SourceStyle): string[] {
  const { indent, head, items, tail, brackets } = layout;
  const [open, close] = brackets === '()' ? ['(', ')'] : ['{', '}'];
  const space = brackets === '{}' && style.bracketSpacing ? ' ' : '';
  const inner = items.length > 0 ? `${space}${items.join(', ')}${space}` : '';
  const trailingComma = brackets === '()' ? style.parameterTrailingCommas : style.trailingCommas;
  const single = `${indent}${head}${open}${inner}${close}${tail}`;
  if (items.length === 0 || columns(single) <= style.width) {
    return [single];
  }
  return [
    `${indent}${head}${open}`,
    ...items.map(
      (item, index) => `${indent}${style.indentUnit}${item}${index < items.length - 1 || trailingComma ? ',' : ''}`,
    ),
    `${indent}${close}${tail}`,
  ];
}

/** `text` as `//` comment lines that fit the file's width; a word longer than a line (a path) gets a line of its own. */
export function commentLines(indent: string, text: string, style: SourceStyle): string[] {
  const lines: string[] = [];
  let current = `${indent}//`;
  for (const word of text.split(' ')) {
    const candidate = `${current} ${word}`;
    if (columns(candidate) > style.width && current !== `${indent}//`) {
      lines.push(current);
      current = `${indent}// ${word}`;
    } else {
      current = candidate;
    }
  }
  lines.push(current);
  return lines;
}

/** Leading whitespace of the line `offset` is on. */
export function lineIndent(text: string, offset: number): string {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))?.[0] ?? '';
}

/** The whole line `offset` is on, without its newline. */
export function lineAt(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  const end = text.indexOf('\n', offset);
  return text.slice(start, end === -1 ? text.length : end).replace(/\r$/, '');
}
