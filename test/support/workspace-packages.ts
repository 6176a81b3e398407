import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The workspace package folders the root package.json under `root` names, a trailing `/*` expanded as npm does. */
export function workspaceFolders(root: string): string[] {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { workspaces?: string[] };
  return (manifest.workspaces ?? []).flatMap((pattern) =>
    pattern.endsWith('/*')
      ? readdirSync(join(root, pattern.slice(0, -2)), { withFileTypes: true })
          .filter((entry) => entry.isDirectory())
          .map((entry) => join(pattern.slice(0, -2), entry.name))
      : [pattern],
  );
}
