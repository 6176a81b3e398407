import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ts as Typescript } from 'ts-morph';
import { ts } from './typescript.js';
import { PACKAGE_NAME } from '../../vocabulary/index.js';
import { readImplementerFacts, syntaxError } from './read-implementer-facts.js';
import type { FileFacts } from './upgrade-data.js';
import { StorageResolver } from './storage-resolver.js';
import { upgradeMessages } from './upgrade-messages.js';
import { nearestManifestField, resolutionHost } from './workspace-layout.js';

/** This upgrade's own declarations of checkpoint-fencing: built, or the runtime's source in the repository. */
const OWN_DECLARATIONS = ['../../runtime/index.d.ts', '../../runtime/index.ts']
  .map((relative) => fileURLToPath(new URL(relative, import.meta.url)))
  .find((path) => existsSync(path));

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)(['"])([^'"\r\n]+)\1/g;

/** One tsconfig that lists source files, the cache its module resolutions share, and the workspace it is part of. */
interface LeafProject {
  readonly tsconfig: string;
  readonly parsed: Typescript.ParsedCommandLine;
  readonly cache: Typescript.ModuleResolutionCache;
  /** How modules resolve, through Yarn Plug'n'Play where it installed the project. */
  readonly host: Typescript.ModuleResolutionHost;
  readonly workspace: ReturnType<typeof workspacePackages>;
}

/**
 * Reads the tsconfigs and, for a solution-style one, every project it references, each under its own options. One
 * tsconfig must match source files; of several (a workspace's packages), those that match none are passed over.
 * `analyse` returns the facts of files in the order given, with notes for the user in `notices`; `rootOf` gives the
 * folder of the tsconfig a file belongs to.
 * @throws Error naming the tsconfig when it is invalid, its `extends` target is missing, or it (or a project it
 * references) matches no source files; `analyse` throws naming the file and position when one does not parse.
 */
export function openTypedProject(tsconfigs: readonly string[], notices: string[]) {
  const seen = new Set<string>();
  const leaves = tsconfigs.flatMap((tsconfig) => leafProjects(resolve(tsconfig), seen, tsconfigs.length > 1));
  if (leaves.length === 0) {
    throw new Error(upgradeMessages.noSourceFiles(tsconfigs[0] ?? ''));
  }
  const workspace = workspacePackages(leaves.map((project) => project.parsed));
  const projects: LeafProject[] = leaves.map((project) => ({ ...project, workspace }));
  const owners = new Map<string, LeafProject>();
  for (const project of projects) {
    for (const file of project.parsed.fileNames) {
      if (!owners.has(resolve(file))) {
        owners.set(resolve(file), project);
      }
    }
  }
  const ownerOf = (file: string): LeafProject => owners.get(resolve(file)) ?? (projects[0] as LeafProject);
  return {
    fileNames: [...owners.keys()],
    rootOf: (file: string) => dirname(ownerOf(file).tsconfig),
    /** The files of `texts` that may lead to `checkpoint-fencing`: only these need types (ADR 0203). */
    filesReaching(texts: ReadonlyMap<string, string>): string[] {
      // Relative imports are resolved only where their last segment may name a file known to reach: resolving each
      // import of a large project probes the file system for every candidate extension.
      const importers = new Map<string, string[]>();
      const relative = new Map<string, { file: string; specifier: string }[]>();
      for (const [file, text] of texts) {
        for (const [, , specifier = ''] of text.matchAll(SPECIFIER)) {
          if (specifier.startsWith('.')) {
            addTo(relative, stemOf(specifier), { file, specifier });
            continue;
          }
          const resolved = resolveFollowed(ownerOf(file), false, specifier, file);
          if (resolved !== undefined && !resolved.isExternalLibraryImport) {
            addTo(importers, resolved.resolvedFileName, file);
          }
        }
      }
      const reaching = new Set([...texts.keys()].filter((file) => texts.get(file)?.includes(PACKAGE_NAME)));
      for (const target of reaching) {
        const stem = stemOf(target);
        const stems = ['', stem, ...(stem === 'index' ? [basename(dirname(target))] : [])];
        const candidates = stems.flatMap((name) => relative.get(name) ?? []);
        for (const { file, specifier } of candidates) {
          if (
            !reaching.has(file) &&
            resolveFollowed(ownerOf(file), false, specifier, file)?.resolvedFileName === target
          ) {
            reaching.add(file);
          }
        }
        (importers.get(target) ?? []).forEach((file) => reaching.add(file));
      }
      return [...texts.keys()].filter((file) => reaching.has(file));
    },
    analyse(paths: readonly string[]): FileFacts[] {
      const facts = new Map(
        projects.flatMap((project) => {
          const own = paths.filter((path) => ownerOf(path) === project);
          const analysed = own.length === 0 ? [] : analyseProject(project, own, notices);
          return analysed.map((file) => [resolve(file.path), file] as const);
        }),
      );
      return paths.flatMap((path) => facts.get(resolve(path)) ?? []);
    },
  };
}

function leafProjects(tsconfig: string, seen: Set<string>, optional: boolean): Omit<LeafProject, 'workspace'>[] {
  if (seen.has(tsconfig)) {
    return [];
  }
  seen.add(tsconfig);
  const parsed = parseTsconfig(tsconfig);
  const references = parsed.projectReferences ?? [];
  if (parsed.fileNames.length === 0 && references.length === 0 && !optional) {
    throw new Error(upgradeMessages.noSourceFiles(tsconfig));
  }
  const cache = ts.createModuleResolutionCache(dirname(tsconfig), (name) => name, parsed.options);
  return [
    ...(parsed.fileNames.length === 0 ? [] : [{ tsconfig, parsed, cache, host: resolutionHost(dirname(tsconfig)) }]),
    ...references.flatMap((reference) =>
      leafProjects(resolve(ts.resolveProjectReferencePath(reference)), seen, optional),
    ),
  ];
}

function parseTsconfig(tsconfig: string): Typescript.ParsedCommandLine {
  if (!existsSync(tsconfig)) {
    throw new Error(upgradeMessages.noTsconfig(tsconfig));
  }
  const diagnostics: Typescript.Diagnostic[] = [];
  const parsed = ts.getParsedCommandLineOfConfigFile(
    tsconfig,
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (diagnostic) => diagnostics.push(diagnostic) },
  );
  // No inputs (18002, 18003) is reported by the caller, which knows whether references make up for it.
  const fatal = [...diagnostics, ...(parsed?.errors ?? [])].find(
    ({ category, code }) => category === ts.DiagnosticCategory.Error && code !== 18002 && code !== 18003,
  );
  if (parsed !== undefined && fatal === undefined) {
    return parsed;
  }
  const reason = fatal === undefined ? 'it could not be read' : ts.flattenDiagnosticMessageText(fatal.messageText, ' ');
  // "File '…' not found" (6053) and "Cannot read file '…'" (5083) are how a missing `extends` target shows.
  const target = fatal?.code === 6053 || fatal?.code === 5083 ? /'([^']+)'/.exec(reason)?.[1] : undefined;
  throw new Error(
    target === undefined
      ? upgradeMessages.unusableTsconfig(tsconfig, reason)
      : upgradeMessages.missingExtendsTarget(tsconfig, target),
  );
}

function analyseProject(project: LeafProject, paths: readonly string[], notices: string[]): FileFacts[] {
  const first = analyseWith(project, paths, false);
  if (first.fallback) {
    // How the tsconfig resolves modules, as its author wrote it.
    const { moduleResolution, module } = project.parsed.options;
    const setting =
      moduleResolution === undefined
        ? `the default for "module": "${ts.ModuleKind[module ?? ts.ModuleKind.CommonJS].toLowerCase()}"`
        : `"moduleResolution": "${ts.ModuleResolutionKind[moduleResolution].toLowerCase()}"`;
    notices.push(
      ts.findConfigFile(dirname(project.tsconfig), existsSync, `node_modules/${PACKAGE_NAME}/package.json`)
        ? upgradeMessages.declarationsReadDirectly(project.tsconfig, setting, OWN_DECLARATIONS ?? '')
        : upgradeMessages.packageNotInstalled(project.tsconfig, OWN_DECLARATIONS ?? ''),
    );
  }
  // A base class from another package: read again with every import followed (and the project's @types), so what
  // it inherits is known rather than guessed. Rare, and only for the files that need it.
  const again = first.facts
    .filter((file) => file.implementers.some((implementer) => implementer.base?.kind === 'unknown'))
    .map((file) => file.path);
  const full = new Map(
    (again.length === 0 ? [] : analyseWith(project, again, true).facts).map((file) => [file.path, file]),
  );
  return first.facts.map((file) => full.get(file.path) ?? file);
}

/**
 * The facts of `paths` in a program without lib (implementers need declarations, not globals) and, unless `followAll`,
 * without `@types` and the packages {@link resolveFollowed} leaves out; `fallback` says this upgrade's own declarations
 * stood in for `checkpoint-fencing`.
 */
function analyseWith(
  project: LeafProject,
  paths: readonly string[],
  followAll: boolean,
): { facts: FileFacts[]; fallback: boolean } {
  const options = { ...project.parsed.options, noLib: true, noEmit: true, ...(followAll ? {} : { types: [] }) };
  const entries = new Set<string>();
  let fallback = false;
  const host = ts.createCompilerHost(options, true);
  host.resolveModuleNameLiterals = (literals, containingFile, _redirect, _options, containingSourceFile) =>
    literals.map((literal) => {
      const mode = ts.getModeForUsageLocation(containingSourceFile, literal, project.parsed.options);
      let resolvedModule = resolveFollowed(project, followAll, literal.text, containingFile, mode);
      if (literal.text === PACKAGE_NAME) {
        if (resolvedModule === undefined && OWN_DECLARATIONS !== undefined) {
          fallback = true;
          resolvedModule = projectFile(OWN_DECLARATIONS);
        }
        if (resolvedModule === undefined) {
          throw new Error(upgradeMessages.packageUnresolvable(containingFile));
        }
        entries.add(resolvedModule.resolvedFileName);
      }
      return { resolvedModule };
    });
  const program = ts.createProgram({ rootNames: paths, options, host });
  const resolver = new StorageResolver(
    program.getTypeChecker(),
    [...entries].flatMap((entry) => program.getSourceFile(entry) ?? []),
    'another-package',
  );
  const facts = paths.map((path) => {
    const sourceFile = program.getSourceFile(path) ?? program.getSourceFile(resolve(path));
    if (sourceFile === undefined) {
      throw new Error(upgradeMessages.unreadable(path));
    }
    const [problem] = program.getSyntacticDiagnostics(sourceFile);
    if (problem !== undefined) {
      throw syntaxError(sourceFile, problem);
    }
    // Under verbatimModuleSyntax a file emitted as CommonJS can bring in a value only with `import x = require(…)`.
    const commonJsOnly = options.verbatimModuleSyntax === true && emitsCommonJs(sourceFile, options);
    return readImplementerFacts(sourceFile, resolver, commonJsOnly);
  });
  return { facts, fallback };
}

/** Whether a file compiles to a CommonJS module: under `module: commonjs`, or as a CommonJS file under `node16`+. */
function emitsCommonJs(sourceFile: Typescript.SourceFile, options: Typescript.CompilerOptions): boolean {
  const kind = options.module;
  return kind !== undefined && kind >= ts.ModuleKind.Node16 && kind <= ts.ModuleKind.NodeNext
    ? sourceFile.impliedNodeFormat === ts.ModuleKind.CommonJS
    : kind === ts.ModuleKind.CommonJS;
}

/**
 * Resolves `name` as `project` does, a workspace package to its source. Unless `followAll`, only relative imports,
 * `paths` aliases, workspace packages and `checkpoint-fencing` itself: the recipe needs the storage interface and the
 * project's own classes, and parsing the declarations of every library the project uses would dominate the run time.
 */
function resolveFollowed(
  { parsed: { options }, cache, host, workspace }: LeafProject,
  followAll: boolean,
  name: string,
  containingFile: string,
  mode?: Typescript.ResolutionMode,
): Typescript.ResolvedModuleFull | undefined {
  const [first = '', second = ''] = name.split('/');
  if (workspace.names.has(first.startsWith('@') ? `${first}/${second}` : first)) {
    const sourceOfOutput = workspace.outputs();
    const outputs: Typescript.ModuleResolutionHost = {
      ...host,
      // An output that is not built yet exists for resolution's sake when its source does.
      fileExists: (path) => host.fileExists(path) || sourceOfOutput.has(realPath(path)),
      realpath: (path) => realPath(host.realpath?.(path) ?? path),
    };
    const resolved = ts.resolveModuleName(name, containingFile, options, outputs, cache).resolvedModule;
    const file = resolved === undefined ? undefined : realPath(resolved.resolvedFileName);
    const source =
      file === undefined ? undefined : (sourceOfOutput.get(file) ?? (workspace.sources.has(file) ? file : undefined));
    return source === undefined ? undefined : projectFile(source);
  }
  const followed =
    followAll ||
    name === PACKAGE_NAME ||
    name.startsWith(`${PACKAGE_NAME}/`) ||
    name.startsWith('.') ||
    Object.keys(options.paths ?? {}).some((pattern) => {
      const [prefix = '', suffix] = pattern.split('*');
      return suffix === undefined ? name === pattern : name.startsWith(prefix) && name.endsWith(suffix);
    });
  return followed
    ? ts.resolveModuleName(name, containingFile, options, host, cache, undefined, mode).resolvedModule
    : undefined;
}

/** Appends `value` to the group under `key`. */
function addTo<T>(groups: Map<string, T[]>, key: string, value: T): void {
  const group = groups.get(key);
  if (group === undefined) {
    groups.set(key, [value]);
  } else {
    group.push(value);
  }
}

/** The name a module path ends in, without extension; '' for a folder written as `.`, `..` or with a final `/`. */
function stemOf(path: string): string {
  return /(?:^|\/)\.{0,2}$/.test(path) ? '' : basename(path).replace(/(?:\.d)?\.[mc]?[jt]sx?$|\.json$/, '');
}

function projectFile(resolvedFileName: string): Typescript.ResolvedModuleFull {
  const extension = /\.d\.[mc]?ts$|\.[mc]?[jt]sx?$/.exec(resolvedFileName)?.[0] ?? ts.Extension.Ts;
  return { resolvedFileName, extension, isExternalLibraryImport: false };
}

/** The packages of `projects` as a workspace links them: names, sources, and their outputs' sources. */
function workspacePackages(projects: readonly Typescript.ParsedCommandLine[]) {
  const sources = new Set(projects.flatMap((parsed) => parsed.fileNames.map((file) => resolve(file))));
  const folders = new Set([...sources].map((file) => dirname(file)));
  let sourceOfOutput: Map<string, string> | undefined;
  return {
    names: new Set([...folders].flatMap((folder) => nearestManifestField(folder, 'name') ?? [])),
    sources,
    outputs: (): Map<string, string> =>
      (sourceOfOutput ??= new Map(
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
      )),
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
