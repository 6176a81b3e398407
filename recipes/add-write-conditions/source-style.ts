/** How a file is written, so that generated code reads like the code around it. */
export interface SourceStyle {
  /** `\r\n` when the file uses CRLF line endings, `\n` otherwise. */
  readonly newline: string;
  /** One level of indentation: a tab, or the smallest run of leading spaces found. */
  readonly indentUnit: string;
  /** The quote character of the file's import specifiers. */
  readonly quote: '"' | "'";
  /** Whether statements end with a semicolon. */
  readonly semicolons: boolean;
  /** The column generated lines wrap at (a tab counts as {@link TAB_COLUMNS}). */
  readonly width: number;
  /** Whether an import or object broken over several lines ends with a comma, as Prettier writes them by default. */
  readonly trailingCommas: boolean;
  /**
   * Whether a parameter list broken over several lines ends with a comma: Prettier's `"all"` (its default since 3.0)
   * does, `"es5"` (the default of 2.x) does not, though it still puts one after the last import or property.
   */
  readonly parameterTrailingCommas: boolean;
  /** Whether braces have spaces inside, `{ a, b }` (Prettier's `bracketSpacing`), or not, `{a, b}`. */
  readonly bracketSpacing: boolean;
}

/** The narrowest width a file is assumed to use, Prettier's default. */
const MINIMUM_WIDTH = 80;
/** How many columns a tab takes when a line's width is measured. */
export const TAB_COLUMNS = 4;

/**
 * Reads newline, indentation, quotes, semicolons, trailing commas, bracket spacing and width off `source`; falls
 * back to `\n`, two spaces, `'`, `;`, trailing commas and spaced braces. The width is `printWidth` when the project
 * states one (a Prettier config, an `.editorconfig`), otherwise the longest line the file already has, and never
 * less than 80.
 */
export function detectSourceStyle(source: string, printWidth?: number): SourceStyle {
  const crlf = (source.match(/\r\n/g) ?? []).length;
  const lf = (source.match(/\n/g) ?? []).length - crlf;
  const trailingCommas = detectTrailingCommas(source);
  return {
    newline: crlf > lf ? '\r\n' : '\n',
    indentUnit: detectIndentUnit(source),
    quote: detectQuote(source),
    semicolons: detectSemicolons(source),
    width: printWidth ?? Math.max(MINIMUM_WIDTH, ...source.split(/\r?\n/).map(columns)),
    trailingCommas,
    // Without a broken parameter list to go by, follow the other lists: Prettier's default puts commas in both.
    parameterTrailingCommas: detectParameterTrailingCommas(source) ?? trailingCommas,
    bracketSpacing: detectBracketSpacing(source),
  };
}

/** The columns `line` takes, tabs expanded. */
export function columns(line: string): number {
  return line.length + (TAB_COLUMNS - 1) * (line.match(/\t/g) ?? []).length;
}

function detectIndentUnit(source: string): string {
  let smallest: number | undefined;
  for (const match of source.matchAll(/^([ \t]+)\S/gm)) {
    const indent = match[1] ?? '';
    if (indent.startsWith('\t')) {
      return '\t';
    }
    // A JSDoc continuation line (` * text`) is indented by one space past its opener, not by a level.
    if (source.startsWith('*', match.index + indent.length)) {
      continue;
    }
    smallest = Math.min(smallest ?? indent.length, indent.length);
  }
  return ' '.repeat(smallest ?? 2);
}

function detectQuote(source: string): '"' | "'" {
  const single = (source.match(/\b(?:from|import|require\()\s*'/g) ?? []).length;
  const double = (source.match(/\b(?:from|import|require\()\s*"/g) ?? []).length;
  return double > single ? '"' : "'";
}

function detectSemicolons(source: string): boolean {
  // Statements that end a line: imports, returns and throws are the most reliable witnesses.
  const witnesses = [...source.matchAll(/^[ \t]*(?:import|export|return|throw|const|let)\b[^\r\n]*$/gm)].map((match) =>
    match[0].trimEnd(),
  );
  const complete = witnesses.filter((line) => !/[{,([]$/.test(line));
  if (complete.length === 0) {
    return true;
  }
  return complete.filter((line) => line.endsWith(';')).length * 2 >= complete.length;
}

/** Imports, objects and arrays broken over lines: does the last item carry a comma? */
function detectTrailingCommas(source: string): boolean {
  // A block never ends in a comma, so `,` before `}` is evidence; a bare item before `}` could end a statement.
  const withComma = (source.match(/,[ \t]*\r?\n[ \t]*[\]}]/g) ?? []).length;
  const without = (source.match(/[\w'"`)\]][ \t]*\r?\n[ \t]*\]/g) ?? []).length;
  return withComma >= without;
}

/** Parameter and argument lists broken over lines: does the last one carry a comma? `undefined` without any. */
function detectParameterTrailingCommas(source: string): boolean | undefined {
  const withComma = (source.match(/,[ \t]*\r?\n[ \t]*\)/g) ?? []).length;
  const without = (source.match(/[\w'"`)\]][ \t]*\r?\n[ \t]*\)/g) ?? []).length;
  return withComma === 0 && without === 0 ? undefined : withComma >= without;
}

/** `import { a }` or `import {a}`: the file's own braces decide; spaced when it has none. */
function detectBracketSpacing(source: string): boolean {
  const spaced = (source.match(/\b(?:import|export)(?:\s+type)?\s*\{[ \t]+\S|\bconst\s*\{[ \t]+\S/g) ?? []).length;
  const tight = (source.match(/\b(?:import|export)(?:\s+type)?\s*\{[^\s}]|\bconst\s*\{[^\s}]/g) ?? []).length;
  return spaced >= tight;
}
