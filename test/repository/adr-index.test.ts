import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { markdownLinks } from '../support/markdown.js';

// doc/adr/README.md is how a newcomer finds a decision and learns whether it still holds: an ADR missing from it is
// one nobody finds, and a status there that disagrees with the ADR's own "Superseded" line misleads.

const ADR_FOLDER = resolve(import.meta.dirname, '../../doc/adr');
const index = readFileSync(join(ADR_FOLDER, 'README.md'), 'utf8');
const adrFiles = readdirSync(ADR_FOLDER)
  .filter((file) => /^\d{4}-.*\.md$/u.test(file))
  .sort();

/** The index's line for each ADR file it links as `- [NNNN](file) title — status`. */
const indexLines = new Map(
  [...index.matchAll(/^- \[(\d{4})\]\(([^)]+)\) (.+)$/gmu)].map((match) => [match[2] ?? '', match[0]]),
);

/** The paragraph under an ADR's title, where a superseded one says so. */
function firstParagraph(file: string): string {
  return readFileSync(join(ADR_FOLDER, file), 'utf8').split('\n\n')[1] ?? '';
}

describe('doc/adr/README.md indexes every ADR', () => {
  it('has one line for every ADR file, titled as the ADR is', () => {
    expect(adrFiles.length).toBeGreaterThan(0);
    for (const file of adrFiles) {
      const title = readFileSync(join(ADR_FOLDER, file), 'utf8').split('\n')[0] ?? '';
      const [, number = '', heading = ''] = /^# (\d{4}): (.+)$/u.exec(title) ?? [];
      expect(number, `${file}: its title says another number`).toBe(file.slice(0, 4));
      const titled = `- [${number}](${file}) ${heading} — `;
      expect(indexLines.get(file)?.slice(0, titled.length), `${file} is not in doc/adr/README.md`).toBe(titled);
    }
  });

  it('links only files that exist', () => {
    const missing = markdownLinks(index)
      .filter((target) => !/^[a-z]+:/u.test(target) && !target.startsWith('#'))
      .filter((target) => !existsSync(join(ADR_FOLDER, target.split('#')[0] ?? '')));
    expect(missing).toEqual([]);
  });

  it('gives no two ADRs one number', () => {
    const numbers = adrFiles.map((file) => file.slice(0, 4));
    expect(numbers.filter((number, position) => numbers.indexOf(number) !== position)).toEqual([]);
  });

  it('lists a superseded ADR as superseded, and an ADR that says nothing of it as accepted', () => {
    for (const file of adrFiles) {
      const line = indexLines.get(file) ?? '';
      const supersededAtTop = /^Superseded/u.test(firstParagraph(file));
      expect(line.split(' — ').at(-1), file).toMatch(supersededAtTop ? /^superseded/u : /^accepted/u);
    }
  });
});
