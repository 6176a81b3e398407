import { existsSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { nearestManifestField } from './package-manifest.js';
import { ts } from 'ts-morph';

/** One project of a tsconfig (or of a solution's references): its parsed settings. */
export interface WorkspaceProject {
  readonly parsed: ts.ParsedCommandLine;
}

/**
 * The project's own packages, as a workspace links them into node_modules (npm, yarn and pnpm workspaces): a bare
 * specifier naming one (`@acme/core`, `@acme/core/storage`) resolves to that package's source file, even before it
 * is built, the way TypeScript's project references redirect a package's declarations to their sources. Other bare
 * specifiers (libraries) are not this class's business.
 */
export class WorkspacePackages {
  readonly #names: ReadonlySet<string>;
  readonly #projects: readonly WorkspaceProject[];
  readonly #sources: ReadonlySet<string>;
  #sourceOfOutput: Map<string, string> | undefined;

  constructor(projects: readonly WorkspaceProject[]) {
    this.#projects = projects;
    this.#sources = new Set(projects.flatMap((project) => project.parsed.fileNames.map((file) => resolve(file))));
    const names = new Set<string>();
    const folders = new Set([...this.#sources].map((file) => dirname(file)));
    for (const folder of folders) {
      const name = nearestManifestField(folder, 'name');
      if (name !== undefined) {
        names.add(name);
      }
    }
    this.#names = names;
  }

  /** Whether `specifier` names one of the project's own packages (or a path inside one). */
  owns(specifier: string): boolean {
    const [first = '', second = ''] = specifier.split('/');
    return this.#names.has(first.startsWith('@') ? `${first}/${second}` : first);
  }

  /**
   * The source file `specifier` names, resolved from `containingFile` under `options` through node_modules (where
   * the workspace links the package): a source file directly, or a declaration or JavaScript output of one of the
   * projects (built or not) mapped back to its source. `undefined` when it leads anywhere else.
   */
  resolve(
    specifier: string,
    containingFile: string,
    options: ts.CompilerOptions,
    cache?: ts.ModuleResolutionCache,
  ): string | undefined {
    const sources = this.#outputs();
    const host: ts.ModuleResolutionHost = {
      ...ts.sys,
      // An output that is not built yet exists for resolution's sake when its source does.
      fileExists: (path) => ts.sys.fileExists(path) || sources.has(realPath(path)),
      realpath: realPath,
    };
    const resolved = ts.resolveModuleName(specifier, containingFile, options, host, cache).resolvedModule;
    if (resolved === undefined) {
      return undefined;
    }
    const file = realPath(resolved.resolvedFileName);
    return sources.get(file) ?? (this.#sources.has(file) ? file : undefined);
  }

  /** Every output path of every project (JavaScript and declarations), mapped to the source it is emitted from. */
  #outputs(): Map<string, string> {
    if (this.#sourceOfOutput === undefined) {
      const map = new Map<string, string>();
      const ignoreCase = !ts.sys.useCaseSensitiveFileNames;
      for (const { parsed } of this.#projects) {
        for (const file of parsed.fileNames) {
          const outputs = ts.getOutputFileNames(parsed, file, ignoreCase);
          // A package may name the declaration beside its JavaScript even when the project does not emit one.
          const declarations = outputs
            .filter((output) => /\.[cm]?js$/.test(output))
            .map((output) => output.replace(/\.([cm]?)js$/, '.d.$1ts'));
          for (const output of [...outputs, ...declarations]) {
            map.set(resolve(output), resolve(file));
          }
        }
      }
      this.#sourceOfOutput = map;
    }
    return this.#sourceOfOutput;
  }
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
