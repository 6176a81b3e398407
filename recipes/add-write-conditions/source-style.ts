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
}

/** Reads newline, indentation, quotes and semicolons off `source`; falls back to `\n`, two spaces, `'` and `;`. */
export function detectSourceStyle(source: string): SourceStyle {
  const crlf = (source.match(/\r\n/g) ?? []).length;
  const lf = (source.match(/\n/g) ?? []).length - crlf;
  return {
    newline: crlf > lf ? '\r\n' : '\n',
    indentUnit: detectIndentUnit(source),
    quote: detectQuote(source),
    semicolons: detectSemicolons(source),
  };
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
