import { createTwoFilesPatch } from 'diff';
import type { FileChange } from './upgrade-report.js';

/**
 * A unified diff of `changes` that `git apply` accepts when run from `root`: `a/` and `b/` prefixes, paths relative
 * to `root` with forward slashes, CRLF and a missing final newline carried through.
 */
export function unifiedDiff(changes: readonly FileChange[], relativePath: (file: string) => string): string {
  return changes
    .map((change) => {
      const path = relativePath(change.file).split('\\').join('/');
      const patch = createTwoFilesPatch(`a/${path}`, `b/${path}`, change.before, change.after, undefined, undefined, {
        context: 3,
      });
      // The leading "Index"/"====" banner is not part of a git patch; start at the file headers.
      return `diff --git a/${path} b/${path}\n${patch.slice(patch.indexOf('--- '))}`;
    })
    .join('');
}
