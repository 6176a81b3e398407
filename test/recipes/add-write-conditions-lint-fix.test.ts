import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { upgrade } from '../../recipes/index.js';
import { LINT_CONFIG, LINT_FIX_FIXTURE, lintedProject, preExisting, UNFIXED } from './support/linted-project.js';

// Each test loads the project's ESLint and typescript-eslint: seconds on a loaded machine.
describe("upgrade() applies the project's own ESLint fixes to the lines it wrote", { timeout: 60_000 }, () => {
  it('adds the blank line padding-line-between-statements wants before the generated return, and no other', async () => {
    const root = lintedProject('lint-fix');
    const report = await upgrade({ cwd: root });
    const written = readFileSync(join(root, 'storage.ts'), 'utf8');
    expect(written).toBe(readFileSync(join(LINT_FIX_FIXTURE, 'output.ts'), 'utf8'));
    expect(written).toContain(UNFIXED.replace('}\n', '}\n\n'));
    expect(report.changes.map((change) => change.lintFixes)).toEqual([['padding-line-between-statements']]);
    expect(report.notices).toEqual([]);
    for (const lines of preExisting) {
      expect(written).toContain(lines);
    }
  });

  it("takes curly's fixes too when the project's curly rejects braces around one statement", async () => {
    const root = lintedProject('lint-fix-curly', {
      config: LINT_CONFIG.replace("curly: 'error'", "curly: ['error', 'multi']"),
    });
    const report = await upgrade({ cwd: root });
    const written = readFileSync(join(root, 'storage.ts'), 'utf8');
    // Removing the braces leaves a blank line, which is all padding-line-between-statements asked for: ESLint's own
    // fixer, which skips touching fixes in one pass, would end there too.
    expect(written).toContain(
      "    if (condition !== undefined && condition.kind !== 'any')\n      throw new UnsupportedWriteConditionError(condition);\n\n    return this.saveUnconditionally(",
    );
    expect(report.changes.map((change) => change.lintFixes)).toEqual([['curly']]);
    for (const lines of preExisting) {
      expect(written).toContain(lines);
    }
  });

  it('with lintFix false, writes in a project with ESLint exactly what it writes in a project without', async () => {
    const [fixed, optedOut, withoutEslint] = [
      lintedProject('lint-fix-on'),
      lintedProject('lint-fix-off'),
      lintedProject('lint-fix-no-eslint', { eslint: false }),
    ];
    await upgrade({ cwd: fixed });
    const optedOutReport = await upgrade({ cwd: optedOut, lintFix: false });
    const withoutEslintReport = await upgrade({ cwd: withoutEslint });
    const unfixed = readFileSync(join(optedOut, 'storage.ts'), 'utf8');
    expect(unfixed).toContain(
      "any') {\n      throw new UnsupportedWriteConditionError(condition);\n    }\n    return this",
    );
    expect(readFileSync(join(withoutEslint, 'storage.ts'), 'utf8')).toBe(unfixed);
    expect(readFileSync(join(fixed, 'storage.ts'), 'utf8')).not.toBe(unfixed);
    expect([optedOutReport, withoutEslintReport].map((report) => report.changes[0]?.lintFixes)).toEqual([
      undefined,
      undefined,
    ]);
    expect([...optedOutReport.notices, ...withoutEslintReport.notices]).toEqual([]);
  });

  it('changes nothing when run a second time over its lint-fixed output', async () => {
    const root = lintedProject('lint-fix-twice');
    await upgrade({ cwd: root });
    const first = readFileSync(join(root, 'storage.ts'), 'utf8');
    expect(first).not.toContain(UNFIXED);
    const second = await upgrade({ cwd: root });
    expect(second.changes).toEqual([]);
    expect(readFileSync(join(root, 'storage.ts'), 'utf8')).toBe(first);
  });

  it('keeps the unfixed upgrade when the ESLint configuration is broken, and says why in a notice', async () => {
    const root = lintedProject('lint-fix-broken', {
      config: "import missing from 'eslint-plugin-not-installed';\nexport default [missing];\n",
    });
    const report = await upgrade({ cwd: root });
    const unfixed = lintedProject('lint-fix-broken-reference', { eslint: false });
    await upgrade({ cwd: unfixed });
    expect(readFileSync(join(root, 'storage.ts'), 'utf8')).toBe(readFileSync(join(unfixed, 'storage.ts'), 'utf8'));
    expect(report.changes[0]?.lintFixes).toBeUndefined();
    expect(report.notices).toEqual([
      expect.stringMatching(
        new RegExp(
          `^note: ${join(root, 'storage.ts')}: the project's ESLint fixes were not applied \\(Cannot find package 'eslint-plugin-not-installed'.*\\); the lines the upgrade wrote may need \`eslint --fix\`\\.$`,
        ),
      ),
    ]);
  });
});
