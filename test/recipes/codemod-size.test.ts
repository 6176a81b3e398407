import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** The most source lines the codemod may have (issue 22): a newcomer reads it in an afternoon. */
const MAX_SOURCE_LINES = 3_000;

const RECIPES = fileURLToPath(new URL('../../recipes/', import.meta.url));

describe('the codemod package', () => {
  it(`has at most ${MAX_SOURCE_LINES} lines of source, tests and fixtures aside`, () => {
    const sources = readdirSync(RECIPES, { recursive: true, encoding: 'utf8' }).filter(
      (file) => /\.c?ts$/u.test(file) && !/(?:^|\/)(?:node_modules|dist)\//u.test(file),
    );
    const lines = sources.reduce((sum, file) => sum + readFileSync(RECIPES + file, 'utf8').split('\n').length - 1, 0);
    expect(sources.length).toBeGreaterThan(10);
    expect(lines, `${lines} lines in ${sources.length} files`).toBeLessThanOrEqual(MAX_SOURCE_LINES);
  });
});
