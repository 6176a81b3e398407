import { execFileSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import { upgradeMessages } from './upgrade-messages.js';

/**
 * The subset of `files` with uncommitted changes (modified, staged or untracked), asking the work tree each file lies
 * in; a file outside every work tree, or without git installed, counts as committed.
 * @throws Error naming the work tree when `git status` fails there, since uncommitted changes cannot be ruled out.
 */
export function uncommittedFiles(files: readonly string[]): string[] {
  const byRoot = new Map<string, string[]>();
  for (const file of files) {
    const root = gitWorkTreeRoot(dirname(file));
    if (root !== undefined) {
      byRoot.set(root, [...(byRoot.get(root) ?? []), file]);
    }
  }
  return [...byRoot].flatMap(([root, inTree]) => {
    let output: string;
    try {
      output = git(root, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--', ...inTree], 'pipe');
    } catch (error) {
      const stderr = (error as { stderr?: unknown }).stderr;
      const reason = typeof stderr === 'string' && stderr.trim() !== '' ? stderr.trim().split('\n')[0] : String(error);
      throw new Error(upgradeMessages.gitStatusFailed(root, reason ?? ''), { cause: error });
    }
    const dirty = new Set(output.split('\0').map((entry) => `${root}/${entry.slice(3)}`));
    // git reports real paths; a temp directory behind a symlink (macOS /tmp) must compare equal.
    return inTree.filter((file) => dirty.has(realpathSync(file)));
  });
}

/** The root of the git work tree around `cwd` (a real path); `undefined` outside one, or without git. */
export function gitWorkTreeRoot(cwd: string): string | undefined {
  try {
    return git(cwd, ['rev-parse', '--show-toplevel'], 'ignore').trim();
  } catch {
    return undefined;
  }
}

function git(cwd: string, args: readonly string[], stderr: 'pipe' | 'ignore'): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', stderr], maxBuffer: 2 ** 26 });
}
