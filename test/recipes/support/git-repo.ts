import { execFileSync } from 'node:child_process';

/** Runs git in `cwd` with a fixed identity, so commits work on a machine without git config. */
export function git(cwd: string, args: readonly string[], input?: string): string {
  return execFileSync(
    'git',
    ['-c', 'user.name=Recipe Test', '-c', 'user.email=recipe@test.invalid', '-c', 'core.autocrlf=false', ...args],
    {
      cwd,
      encoding: 'utf8',
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(input === undefined ? {} : { input }),
    },
  );
}

/** Makes `cwd` a git repository with everything in it committed. */
export function commitAll(cwd: string): void {
  git(cwd, ['init', '-q']);
  git(cwd, ['add', '-A']);
  git(cwd, ['commit', '-q', '-m', 'legacy app']);
}
