import path from 'node:path';
import { RuleTester } from '@typescript-eslint/rule-tester';
import { afterAll, describe, it } from 'vitest';

// RuleTester runs its cases through whatever test framework it is handed; these make every case a vitest test.
RuleTester.afterAll = afterAll;
RuleTester.describe = describe;
// The first type-aware case of a file builds a TypeScript program: seconds alone, far more on a loaded two-core box.
RuleTester.it = (name, run) => {
  it(name, run, 90_000);
};
RuleTester.itOnly = it.only;

/** The fixture project type-aware cases are linted in: its tsconfig maps `checkpoint-fencing` to runtime/. */
export const typeAwareFixtureRoot = path.resolve(import.meta.dirname, '../../fixtures/eslint-plugin');

/** A rule tester for syntactic cases: TypeScript parser, no type information. */
export function syntacticRuleTester(): RuleTester {
  return new RuleTester();
}

/** A rule tester whose cases are parsed with type information from the fixture project. */
export function typeAwareRuleTester(): RuleTester {
  return new RuleTester({
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: typeAwareFixtureRoot },
    },
  });
}
