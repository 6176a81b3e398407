import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { ts as Typescript } from 'ts-morph';
import { ts } from './typescript.js';
import { nearestManifestField } from './package-manifest.js';

/**
 * The packages of `projects` as a workspace links them into node_modules: `owns` says whether a specifier names one
 * (`@acme/core`, `@acme/core/storage`); `resolve` resolves it through the link to the package's source file, directly
 * or through one of the projects' outputs, built or not, as project references redirect declarations to sources.
 */
export function workspacePackages(projects: readonly Typescript.ParsedCommandLine[]) {
  const sources = new Set(projects.flatMap((parsed) => parsed.fileNames.map((file) => resolve(file))));
  const folders = new Set([...sources].map((file) => dirname(file)));
  const names = new Set([...folders].flatMap((folder) => nearestManifestField(folder, 'name') ?? []));
  let sourceOfOutput: Map<string, string> | undefined;
  const outputs = (): Map<string, string> => {
    sourceOfOutput ??= new Map(
      projects.flatMap((parsed) =>
        parsed.fileNames.flatMap((file) => {
          const emitted = ts.getOutputFileNames(parsed, file, !ts.sys.useCaseSensitiveFileNames);
          // A package may name the declaration beside its JavaScript even when the project does not emit one.
          const declarations = emitted.flatMap((output) =>
            /\.[cm]?js$/.test(output) ? [output.replace(/\.([cm]?)js$/, '.d.$1ts')] : [],
          );
          return [...emitted, ...declarations].map((output) => [resolve(output), resolve(file)] as const);
        }),
      ),
    );
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

/** The real path of `path`, also when it does not exist yet (an output not built): its existing part's, extended. */
function realPath(path: string): string {
  const absolute = resolve(path);
  const parent = dirname(absolute);
  return existsSync(absolute)
    ? realpathSync(absolute)
    : parent === absolute
      ? absolute
      : join(realPath(parent), basename(absolute));
}

/** The project's own packages, as {@link workspacePackages} finds them. */
export type WorkspacePackages = ReturnType<typeof workspacePackages>;
