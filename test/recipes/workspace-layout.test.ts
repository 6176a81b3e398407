import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { enclosingWorkspace, workspacePackageFolders } from '../../recipes/add-write-conditions/workspace-layout.js';
import { temporaryDirectory } from '../support/temporary-directory.js';

/** Package folders (each with a package.json and a project.json) under a fresh root holding `files`. */
function layout(files: Readonly<Record<string, string>>): string {
  const root = temporaryDirectory('workspace-layout');
  const folders = ['apps/web', 'apps/worker', 'packages/core', 'packages/legacy', 'packages/nested/deep', 'tools'];
  const write = (path: string, text: string): void => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  for (const folder of folders) {
    write(`${folder}/package.json`, '{}');
  }
  write('tools/project.json', '{}');
  write('node_modules/dependency/package.json', '{}');
  for (const [path, text] of Object.entries(files)) {
    write(path, text);
  }
  return root;
}

function packages(files: Readonly<Record<string, string>>): string[] | undefined {
  const root = layout(files);
  return workspacePackageFolders(root)?.map((folder) => relative(root, folder).split('\\').join('/'));
}

describe('the packages of a workspace root', () => {
  it.each([
    ['npm, Yarn or Bun: a workspaces list', { 'package.json': '{"workspaces": ["apps/*", "packages/core"]}' }],
    ['Yarn 1: workspaces.packages', { 'package.json': '{"workspaces": {"packages": ["apps/*", "packages/core"]}}' }],
    ['lerna.json', { 'lerna.json': '{"packages": ["apps/*", "packages/core"]}' }],
    [
      'pnpm-workspace.yaml, quoted, unquoted, commented, negated and at column 0',
      {
        'pnpm-workspace.yaml':
          "# the apps\npackages:\n- 'apps/*' # deployed\r\n\n  - packages/*\n  - \"!packages/legacy\"\n  - '!**/nested/**'\ncatalog:\n  - tools\n",
      },
    ],
  ])('%s', (_label, files) => {
    expect(packages(files)?.sort()).toEqual(['apps/web', 'apps/worker', 'packages/core']);
  });

  it('Nx: every folder with a project.json, besides any workspaces', () => {
    expect(packages({ 'nx.json': '{}', 'package.json': '{"workspaces": ["apps/web"]}' })?.sort()).toEqual([
      'apps/web',
      'tools',
    ]);
  });

  it('none where nothing declares a workspace', () => {
    expect(packages({ 'package.json': '{"name": "app"}' })).toBeUndefined();
  });

  it('is found from the root and from inside a package, not from a folder outside its packages', () => {
    const root = layout({ 'pnpm-workspace.yaml': 'packages:\n  - apps/*\n' });
    expect(enclosingWorkspace(root)?.root).toBe(root);
    expect(enclosingWorkspace(join(root, 'apps/web'))?.root).toBe(root);
    expect(enclosingWorkspace(join(root, 'packages/core'))).toBeUndefined();
  });
});
