import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// The main job on bundled data: the add-write-conditions upgrade, run by the real CLI in --dry-run on a temp copy of
// fixtures/legacy-app (a small service written against the pre-fencing CheckpointStorage). Prints the patch it
// would apply and its summary line; nothing in the repository changes.

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const copy = mkdtempSync(join(tmpdir(), 'legacy-app-'));
try {
  cpSync(join(repo, 'fixtures/legacy-app'), copy, { recursive: true });
  // The fixture maps checkpoint-fencing (and @types) relative to the repository; the copy lives elsewhere.
  const tsconfig = join(copy, 'tsconfig.json');
  writeFileSync(tsconfig, readFileSync(tsconfig, 'utf8').replaceAll('"../../', `"${repo}/`));

  console.log(`$ npx checkpoint-fencing-codemod upgrade --dry-run   # in a copy of fixtures/legacy-app\n`);
  const run = spawnSync(process.execPath, [join(repo, 'dist/recipes/cli.js'), 'upgrade', '--dry-run'], {
    cwd: copy,
    stdio: 'inherit',
  });
  if (run.status !== 0) {
    process.exitCode = run.status ?? 2;
  }
  console.log('\nApply it with `npx checkpoint-fencing-codemod upgrade` (or pipe the patch to `git apply`); then');
  console.log('`npx checkpoint-fencing-codemod upgrade --check` exits 0, and CI can keep it that way.\n');
} finally {
  rmSync(copy, { recursive: true, force: true });
}
