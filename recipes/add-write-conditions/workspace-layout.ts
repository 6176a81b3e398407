import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import type { ts as Typescript } from 'ts-morph';
import { ts } from './typescript.js';

/** A string field of the nearest package.json at or above `folder`; `undefined` when it is not a string or absent. */
export function nearestManifestField(folder: string, field: 'name' | 'type'): string | undefined {
  const path = ts.findConfigFile(folder, existsSync, 'package.json');
  const value = path === undefined ? undefined : readJson(path)[field];
  return typeof value === 'string' ? value : undefined;
}

/**
 * The package folders of the workspace whose root is `root`, as its tools declare them: `workspaces` in package.json
 * (npm, Yarn, Bun; a list or `{ packages }`), else pnpm-workspace.yaml's `packages`, else lerna.json's; in an Nx
 * workspace (nx.json) also every folder with a project.json. `undefined` when `root` is no workspace root.
 */
export function workspacePackageFolders(root: string): string[] | undefined {
  const { workspaces } = readJson(join(root, 'package.json'));
  const pnpm = ts.sys.readFile(join(root, 'pnpm-workspace.yaml'));
  const globs: unknown =
    (Array.isArray(workspaces) ? workspaces : (Object(workspaces) as { packages?: unknown }).packages) ??
    (pnpm === undefined ? readJson(join(root, 'lerna.json')).packages : yamlList(pnpm, 'packages'));
  const nx = existsSync(join(root, 'nx.json'));
  if (!Array.isArray(globs) && !nx) {
    return undefined;
  }
  const patterns = (Array.isArray(globs) ? globs : []).filter((glob): glob is string => typeof glob === 'string');
  // TypeScript's own matcher, as for "include": `**` skips node_modules and dot folders.
  const markers = ts.sys.readDirectory(
    root,
    ['.json'],
    patterns.filter((glob) => glob.startsWith('!')).map((glob) => glob.slice(1)),
    [
      ...patterns.filter((glob) => !glob.startsWith('!')).map((glob) => `${glob.replace(/\/+$/, '')}/package.json`),
      ...(nx ? ['**/project.json'] : []),
    ],
  );
  return [...new Set(markers.map((marker) => dirname(marker)))];
}

/** The workspace `folder` is the root of, or lies in a package of: its root and package folders. */
export function enclosingWorkspace(folder: string): { root: string; packages: string[] } | undefined {
  for (let root = folder; ; root = dirname(root)) {
    const packages = workspacePackageFolders(root);
    const inside = (path: string): boolean => !/^\.\.(?:[\\/]|$)/.test(relative(path, folder));
    if (packages !== undefined && (root === folder || packages.some(inside))) {
      return { root, packages };
    }
    if (dirname(root) === root) {
      return undefined;
    }
  }
}

/** The items of a top-level block list in YAML (`key:` then `- item` lines), quotes and comments aside. */
function yamlList(yaml: string, key: string): string[] {
  // The block ends at the first line that starts with anything but a space, a tab, `-` or `#`.
  const block = new RegExp(`^${key}:[ \\t]*\\r?\\n((?:[ \\t#-].*\\n?|\\r?\\n)*)`, 'm').exec(yaml)?.[1] ?? '';
  const items = block.matchAll(/^[ \t]*-[ \t]*(['"]?)(.+?)\1[ \t]*(?:#.*)?\r?$/gm);
  return [...items].map((item) => item[2] ?? '');
}

/** The top-level fields of a JSON (or JSONC) file; none when it is missing or does not parse. */
function readJson(path: string): Readonly<Record<string, unknown>> {
  // readConfigFile does not throw, and reads comments and trailing commas; Object() makes a non-object have no fields.
  const { config } = ts.readConfigFile(path, (file) => ts.sys.readFile(file)) as { config?: unknown };
  return Object(config) as Record<string, unknown>;
}

/** The part of Yarn's Plug'n'Play API (`pnpapi`) the upgrade uses. */
interface PnpApi {
  resolveToUnqualified(request: string, issuer: string): string | null;
  setup(): void;
}

/**
 * How modules resolve for the project in `folder`: `ts.sys`, or where a Yarn Plug'n'Play runtime (`.pnp.cjs`) above it
 * manages the project, `ts.sys` with `node_modules/<package>` anywhere standing for the folder Plug'n'Play installed
 * that package in for the project, since TypeScript looks for packages in node_modules. The runtime is set up first,
 * so that `fs` (and TypeScript through it) reads inside the zip archives Plug'n'Play installs to.
 */
export function resolutionHost(folder: string): Typescript.ModuleResolutionHost {
  const runtime = ts.findConfigFile(folder, existsSync, '.pnp.cjs');
  if (runtime === undefined) {
    return ts.sys;
  }
  const api = createRequire(import.meta.url)(runtime) as PnpApi;
  // One runtime set up in a process serves every Plug'n'Play project in it.
  if (process.versions['pnp'] === undefined) {
    api.setup();
  }
  // A path in node_modules/<package> is one in the folder Plug'n'Play installed the package in, if it did.
  const real = (path: string): string => {
    const [, name, rest = ''] = /.*[\\/]node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)(.*)$/.exec(path) ?? [];
    try {
      return (name === undefined ? null : api.resolveToUnqualified(name, `${folder}/`))?.concat(rest) ?? path;
    } catch {
      return path;
    }
  };
  return {
    ...ts.sys,
    fileExists: (path) => ts.sys.fileExists(real(path)),
    // Every node_modules folder exists: each stands for whatever Plug'n'Play installed.
    directoryExists: (path) => /[\\/]node_modules$/.test(path) || ts.sys.directoryExists(real(path)),
    readFile: (path) => ts.sys.readFile(real(path)),
    realpath: real,
  };
}
