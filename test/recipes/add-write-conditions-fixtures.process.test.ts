import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { upgrade } from '../../recipes/index.js';
import type { UpgradeReport } from '../../recipes/index.js';
import { copyRecipeCases, makeTempProject, RECIPE_FIXTURES, typeCheck } from './support/fixture-project.js';

const root = makeTempProject('add-write-conditions-fixtures');
const cases = copyRecipeCases(root);
let first: UpgradeReport;
let second: UpgradeReport;
const afterFirst = new Map<string, Buffer>();

function caseFiles(name: string): string[] {
  return readdirSync(join(root, name)).map((file) => join(root, name, file));
}

beforeAll(async () => {
  first = await upgrade({ cwd: root });
  for (const name of cases) {
    for (const file of caseFiles(name)) {
      afterFirst.set(file, readFileSync(file));
    }
  }
  second = await upgrade({ cwd: root });
}, 60_000);

describe('add-write-conditions fixtures', () => {
  for (const name of cases) {
    describe(name, () => {
      const inputName =
        readdirSync(join(RECIPE_FIXTURES, name)).find((file) => file.startsWith('input.')) ?? 'input.ts';
      const outputName = inputName.replace('input.', 'output.');

      // JavaScript cases are for the jscodeshift transform; the type-aware CLI upgrades TypeScript only.
      const javascript = /\.[mc]?jsx?$/.test(inputName);

      it(javascript ? 'leaves a JavaScript input alone' : 'turns input into output byte for byte', () => {
        const actual = afterFirst.get(join(root, name, inputName));
        const expected = readFileSync(join(RECIPE_FIXTURES, name, javascript ? inputName : outputName));
        expect(actual?.toString('utf8')).toBe(expected.toString('utf8'));
        expect(actual?.equals(expected)).toBe(true);
      });

      it("leaves the case's other files exactly as they were", () => {
        for (const file of readdirSync(join(RECIPE_FIXTURES, name)).filter(
          (entry) => !/^(?:input|output)\./.test(entry),
        )) {
          expect(afterFirst.get(join(root, name, file))?.equals(readFileSync(join(RECIPE_FIXTURES, name, file)))).toBe(
            true,
          );
        }
      });

      it('changes nothing on a second run', () => {
        for (const file of caseFiles(name)) {
          expect(readFileSync(file).equals(afterFirst.get(file) ?? Buffer.alloc(0))).toBe(true);
        }
      });
    });
  }

  it('the second run reports no changes at all', () => {
    expect(first.changes.length).toBeGreaterThan(0);
    expect(second.changes).toEqual([]);
  });

  // One program over every case: on a loaded two-core machine it takes longer than the default timeout.
  it('the upgraded project type-checks under strict, noImplicitOverride and exactOptionalPropertyTypes', () => {
    expect(typeCheck(root)).toBe('');
  }, 60_000);
});
