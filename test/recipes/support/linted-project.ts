import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempProject, REPO } from './fixture-project.js';

/**
 * A storage whose generated save breaks the project's `padding-line-between-statements` (no blank line before its
 * return), as do its pre-existing `read` and the body of its renamed save, and whose `read` breaks `curly`.
 */
export const LINT_FIX_FIXTURE = join(REPO, 'fixtures/recipes/lint-fix');
/** The storage before the upgrade. */
const input = readFileSync(join(LINT_FIX_FIXTURE, 'input.ts'), 'utf8');
/** The project's ESLint configuration: `curly` and `padding-line-between-statements` before a return. */
export const LINT_CONFIG = readFileSync(join(LINT_FIX_FIXTURE, 'eslint.config.js'), 'utf8');
/** The lines the upgrade did not write that the project's ESLint would fix too: `read`, the renamed save's body. */
export const preExisting = [
  input.slice(input.indexOf('  // Written before'), input.indexOf('  async save(')),
  '    this.checkpoints.set(subscriptionId, checkpoint);\n    return checkpoint;\n  }\n\n  async save(',
];
/** The generated guard and return of save, as the recipe writes them in this project. */
export const UNFIXED = "any') {\n      throw new UnsupportedWriteConditionError(condition);\n    }\n    return this";

/** The fixture in a fresh project that formats with Prettier and, unless `eslint` is false, has ESLint installed. */
export function lintedProject(prefix: string, options: { eslint?: boolean; config?: string } = {}): string {
  const root = makeTempProject(prefix);
  cpSync(join(LINT_FIX_FIXTURE, 'input.ts'), join(root, 'storage.ts'));
  writeFileSync(join(root, 'eslint.config.js'), options.config ?? LINT_CONFIG);
  writeFileSync(join(root, '.prettierrc'), JSON.stringify({ singleQuote: true }));
  mkdirSync(join(root, 'node_modules'));
  for (const name of options.eslint === false ? ['prettier'] : ['prettier', 'eslint', 'typescript-eslint']) {
    symlinkSync(join(REPO, 'node_modules', name), join(root, 'node_modules', name), 'dir');
  }
  return root;
}
