/** One replacement in a file's text: `[start, end)` becomes `text`; an insertion has `start === end`. */
export interface TextEdit {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/**
 * Applies non-overlapping edits to `source`. Insertions at the same offset keep the order they were given in, so a
 * front end can add several members after one anchor and get them in the order it planned.
 * @throws Error when two edits overlap, which would mean two plans touched the same code.
 */
export function applyTextEdits(source: string, edits: readonly TextEdit[]): string {
  const ordered = edits
    .map((edit, index) => ({ edit, index }))
    .sort((a, b) => a.edit.start - b.edit.start || a.edit.end - b.edit.end || a.index - b.index)
    .map(({ edit }) => edit);
  let result = '';
  let cursor = 0;
  for (const edit of ordered) {
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
