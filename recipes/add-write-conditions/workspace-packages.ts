import { existsSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { ts as Typescript } from 'ts-morph';
import { ts } from './typescript.js';
import { nearestManifestField } from './package-manifest.js';

/**
 * The packages of `projects`, as a workspace links them into node_modules (npm, Yarn and pnpm workspaces): a bare
 * specifier naming one (`@acme/core`, `@acme/core/storage`) resolves to that package's source file, even before it
 * is built, the way TypeScript's project references redirect a package's declarations to their sources. Other bare
 * specifiers (libraries) are not its business. `owns` says whether a specifier names one of them (or a path inside
 * one); `resolve` resolves it from a file through node_modules, where the workspace links the package, to a source
 * file: directly, or through a declaration or JavaScript output of one of the projects (built or not).
 */
export function workspacePackages(projects: readonly Typescript.ParsedCommandLine[]) {
  const sources = new Set(projects.flatMap((parsed) => parsed.fileNames.map((file) => resolve(file))));
  const folders = new Set([...sources].map((file) => dirname(file)));
  const names = new Set([...folders].flatMap((folder) => nearestManifestField(folder, 'name') ?? []));
  let sourceOfOutput: Map<string, string> | undefined;
  /** Every output path of every project (JavaScript and declarations), mapped to the source it is emitted from. */
  const outputs = (): Map<string, string> => {
    if (sourceOfOutput === undefined) {
      sourceOfOutput = new Map();
      for (const parsed of projects) {
        for (const file of parsed.fileNames) {
          const emitted = ts.getOutputFileNames(parsed, file, !ts.sys.useCaseSensitiveFileNames);
          // A package may name the declaration beside its JavaScript even when the project does not emit one.
          const declarations = emitted
            .filter((output) => /\.[cm]?js$/.test(output))
            .map((output) => output.replace(/\.([cm]?)js$/, '.d.$1ts'));
          for (const output of [...emitted, ...declarations]) {
            sourceOfOutput.set(resolve(output), resolve(file));
          }
        }
      }
    }
    return sourceOfOutput;
  };
  return {
    owns(specifier: string): boolean {
      const [first = '', second = ''] = specifier.split('/');
      return names.has(first.startsWith('@') ? `${first}/${second}` : first);
    },
    resolve(
      specifier: string,
      containingFile: string,
      options: Typescript.CompilerOptions,
      cache?: Typescript.ModuleResolutionCache,
    ): string | undefined {
      const outputSources = outputs();
      const host: Typescript.ModuleResolutionHost = {
        ...ts.sys,
        // An output that is not built yet exists for resolution's sake when its source does.
        fileExists: (path) => ts.sys.fileExists(path) || outputSources.has(realPath(path)),
        realpath: realPath,
      };
      const resolved = ts.resolveModuleName(specifier, containingFile, options, host, cache).resolvedModule;
      const file = resolved === undefined ? undefined : realPath(resolved.resolvedFileName);
      return file === undefined ? undefined : (outputSources.get(file) ?? (sources.has(file) ? file : undefined));
    },
  };
}

/**
 * The real path of `path`, also when it does not exist yet (an output not built): the existing part of it resolved
 * through its symlinks (a workspace package linked in node_modules), the rest appended.
 */
function realPath(path: string): string {
  const absolute = resolve(path);
  for (let existing = absolute; ; existing = dirname(existing)) {
    if (existsSync(existing)) {
      return join(realpathSync(existing), absolute.slice(existing.length));
    }
    if (dirname(existing) === existing) {
      return absolute;
    }
  }
}

/** The project's own packages, as {@link workspacePackages} finds them. */
export type WorkspacePackages = ReturnType<typeof workspacePackages>;
