import { execFileSync } from 'node:child_process';
import { dirname } from 'node:path';
import { upgradeMessages } from './upgrade-messages.js';

/**
 * The subset of `files` with uncommitted changes (modified, staged or untracked); a file outside every work tree, or
 * without git installed, counts as committed.
 * @throws Error naming the work tree when `git status` fails there, since uncommitted changes cannot be ruled out.
 */
export function uncommittedFiles(files: readonly string[]): string[] {
  return files.filter((file) => {
    try {
      // Literal: git reads a path as a pattern, so a clean `pages/[id].ts` would match a changed `pages/i.ts`.
      const status = ['--literal-pathspecs', 'status', '--porcelain', '-z', '--untracked-files=all', '--', file];
      return git(dirname(file), status, 'pipe') !== '';
    } catch (error) {
      const root = gitWorkTreeRoot(dirname(file));
      if (root === undefined) {
        return false;
      }
      const stderr = (error as { stderr?: unknown }).stderr;
      const reason = typeof stderr === 'string' && stderr.trim() !== '' ? stderr.trim().split('\n')[0] : String(error);
      throw new Error(upgradeMessages.gitStatusFailed(root, reason ?? ''), { cause: error });
    }
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
