import { execFileSync } from 'node:child_process';
import { realpathSync } from 'node:fs';

/**
 * The subset of `files` with uncommitted changes (modified, staged or untracked) in the git work tree around `cwd`;
 * empty when `cwd` is not inside a git work tree or git is not installed.
 */
export function uncommittedFiles(files: readonly string[], cwd: string): string[] {
  const root = files.length === 0 ? undefined : gitWorkTreeRoot(cwd);
  if (root === undefined) {
    return [];
  }
  const output = execFileSync('git', ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--', ...files], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
  const dirty = new Set(
    output
      .split('\0')
      .filter((entry) => entry.length > 3)
      .map((entry) => `${root}/${entry.slice(3)}`),
  );
  // git reports real paths; a temp directory behind a symlink (macOS /tmp) must compare equal.
  return files.filter((file) => dirty.has(realpathSync(file)));
}

/** The root of the git work tree around `cwd` (a real path); `undefined` outside one, or without git. */
export function gitWorkTreeRoot(cwd: string): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', '--show-toplevel'], {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return undefined;
  }
}
