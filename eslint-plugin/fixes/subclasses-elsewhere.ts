import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

// Whether a class may have a subclass in another file: the codemod renames a subclass's `save` and `super.save` with
// its base's, in that file, and its one-file transform skips the base instead
// (recipes/add-write-conditions/subclasses-in-other-files.ts). A suggestion edits one file, so where such a subclass
// may exist it offers none. Neither a TypeScript program (one tsconfig) nor ESLint sees the sibling packages of a
// workspace, so the files are read from the disk, as the transform reads them; only when a suggestion is written.

const SOURCE_FILE = /\.[cm]?[jt]sx?$/u;
/** Installed packages, build output and tools' folders, which hold no subclass the codemod would change. */
const SKIPPED_FOLDER = /^(?:node_modules|dist|build|coverage|out)$|^\./u;
/** A generated bundle is no source a subclass is written in. */
const LARGEST_SOURCE_FILE = 1_000_000;

/**
 * Whether a file of the workspace (or package) of `file`, other than `file`, spells `extends <name>` (or
 * `extends ns.<name>`). A mention that is not the class only costs the suggestion.
 */
export function extendedInAnotherFile(name: string, file: string): boolean {
  const extendsIt = new RegExp(`\\bextends\\s+(?:[\\w$]+\\s*\\.\\s*)?${name.replaceAll('$', '\\$')}(?![\\w$])`, 'u');
  const own = resolve(file);
  const search = (folder: string): boolean =>
    readdirSync(folder, { withFileTypes: true }).some((entry) => {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) {
        return !SKIPPED_FOLDER.test(entry.name) && search(path);
      }
      if (!SOURCE_FILE.test(entry.name) || path === own || statSync(path).size > LARGEST_SOURCE_FILE) {
        return false;
      }
      const text = readFileSync(path, 'utf8');
      return text.includes(name) && extendsIt.test(text);
    });
  return search(workspaceRoot(dirname(own)));
}

/** The folder whose files may subclass a class of `start`: its workspace's root, else its package's, else `start`. */
function workspaceRoot(start: string): string {
  let root: string | undefined;
  for (let folder = start; ; folder = dirname(folder)) {
    const manifest = join(folder, 'package.json');
    if (existsSync(join(folder, 'pnpm-workspace.yaml')) || (existsSync(manifest) && declaresWorkspaces(manifest))) {
      return folder;
    }
    root ??= existsSync(manifest) ? folder : undefined;
    if (dirname(folder) === folder) {
      return root ?? start;
    }
  }
}

function declaresWorkspaces(manifest: string): boolean {
  try {
    return 'workspaces' in (JSON.parse(readFileSync(manifest, 'utf8')) as object);
  } catch {
    return false;
  }
}
