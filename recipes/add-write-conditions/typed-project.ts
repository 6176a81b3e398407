import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ts as Typescript } from 'ts-morph';
import { ts } from './typescript.js';
import { PACKAGE_NAME } from '../../vocabulary/index.js';
import { readImplementerFacts, syntaxError, type FileFacts } from './read-implementer-facts.js';
import { StorageResolverBySymbol } from './resolve-storage-by-symbol.js';
import { upgradeMessages } from './upgrade-messages.js';
import { workspacePackages, type WorkspacePackages } from './workspace-packages.js';

/**
 * The declarations of the checkpoint-fencing this upgrade is part of: `dist/runtime/index.d.ts` once built, the
 * runtime's source when it runs from the repository.
 */
const OWN_DECLARATIONS = ['../../runtime/index.d.ts', '../../runtime/index.ts']
  .map((relative) => fileURLToPath(new URL(relative, import.meta.url)))
  .find((path) => existsSync(path));

/** One tsconfig that lists source files, and the cache its module resolutions share. */
interface LeafProject {
  readonly tsconfig: string;
  readonly parsed: Typescript.ParsedCommandLine;
  readonly cache: Typescript.ModuleResolutionCache;
}

type Follow = 'project-and-package' | 'all';

/**
 * Reads `tsconfigPath` with the TypeScript that ts-morph bundles (kept apart from the project's own), following a
 * solution-style tsconfig's `references` into every project, each analysed under its own options: the only module
 * that builds a TypeScript program. `analyse` parses files with types and returns their facts in the order given;
 * `resolveModule` resolves a bare specifier to a project file (a `paths` alias or a workspace package); `rootOf` is
 * the folder of the tsconfig a file belongs to.
 * @throws Error naming the tsconfig when it is invalid, its `extends` target is missing, or it (or a project it
 * references) matches no source files; `analyse` throws naming the file and position when one does not parse.
 */
export function openTypedProject(tsconfigPath: string) {
  const projects = leafProjects(resolve(tsconfigPath), new Set());
  const owners = new Map<string, LeafProject>();
  for (const project of projects) {
    for (const file of project.parsed.fileNames) {
      if (!owners.has(resolve(file))) {
        owners.set(resolve(file), project);
      }
    }
  }
  const notices: string[] = [];
  const ownerOf = (file: string): LeafProject => owners.get(resolve(file)) ?? (projects[0] as LeafProject);
  const workspace = workspacePackages(projects.map((project) => project.parsed));
  return {
    fileNames: [...owners.keys()],
    notices,
    rootOf: (file: string) => dirname(ownerOf(file).tsconfig),
    resolveModule(specifier: string, from: string): string | undefined {
      const resolved = resolveFollowed(ownerOf(from), workspace, 'project-and-package', specifier, from);
      return resolved?.isExternalLibraryImport === true ? undefined : resolved?.resolvedFileName;
    },
    analyse(paths: readonly string[]): FileFacts[] {
      const facts = new Map<string, FileFacts>();
      for (const project of new Set(paths.map(ownerOf))) {
        const own = paths.filter((path) => ownerOf(path) === project);
        for (const fileFacts of analyseProject(project, own, workspace, notices)) {
          facts.set(resolve(fileFacts.path), fileFacts);
        }
      }
      return paths.flatMap((path) => facts.get(resolve(path)) ?? []);
    },
  };
}

function leafProjects(tsconfig: string, seen: Set<string>): LeafProject[] {
  if (seen.has(tsconfig)) {
    return [];
  }
  seen.add(tsconfig);
  const parsed = parseTsconfig(tsconfig);
  const references = parsed.projectReferences ?? [];
  if (parsed.fileNames.length === 0 && references.length === 0) {
    throw new Error(upgradeMessages.noSourceFiles(tsconfig));
  }
  const cache = ts.createModuleResolutionCache(dirname(tsconfig), (name) => name, parsed.options);
  return [
    ...(parsed.fileNames.length === 0 ? [] : [{ tsconfig, parsed, cache }]),
    ...references.flatMap((reference) => leafProjects(resolve(ts.resolveProjectReferencePath(reference)), seen)),
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

function analyseProject(
  project: LeafProject,
  paths: readonly string[],
  workspace: WorkspacePackages,
  notices: string[],
): FileFacts[] {
  const first = analyseWith(project, paths, workspace, 'project-and-package');
  if (first.fallback) {
    notices.push(
      ts.findConfigFile(dirname(project.tsconfig), existsSync, `node_modules/${PACKAGE_NAME}/package.json`)
        ? upgradeMessages.declarationsReadDirectly(
            project.tsconfig,
            resolutionSetting(project.parsed.options),
            OWN_DECLARATIONS ?? '',
          )
        : upgradeMessages.packageNotInstalled(project.tsconfig, OWN_DECLARATIONS ?? ''),
    );
  }
  // A base class from another package: read again with every import followed (and the project's @types), so what
  // it inherits is known rather than guessed. Rare, and only for the files that need it.
  const again = first.facts
    .filter((file) => file.implementers.some((implementer) => implementer.base?.kind === 'unknown'))
    .map((file) => file.path);
  if (again.length === 0) {
    return first.facts;
  }
  const full = new Map(analyseWith(project, again, workspace, 'all').facts.map((file) => [resolve(file.path), file]));
  return first.facts.map((file) => full.get(resolve(file.path)) ?? file);
}

/**
 * Builds a program over `paths` and reads their facts. `project-and-package` follows only what finding implementers
 * needs (see {@link moduleResolution}) and loads no `@types`; `all` follows every import, with the project's types.
 * Neither loads a lib: finding implementers needs declarations, not globals, and a small program is a fast one.
 */
function analyseWith(
  project: LeafProject,
  paths: readonly string[],
  workspace: WorkspacePackages,
  follow: Follow,
): { facts: FileFacts[]; fallback: boolean } {
  const resolution: Resolution = { fallback: false, entries: new Set(), unresolvedIn: undefined };
  const options: Typescript.CompilerOptions = {
    ...project.parsed.options,
    noLib: true,
    noEmit: true,
    ...(follow === 'all' ? {} : { types: [] }),
  };
  const host = ts.createCompilerHost(options, true);
  host.resolveModuleNameLiterals = moduleResolution(project, workspace, follow, resolution);
  const program = ts.createProgram({ rootNames: paths, options, host });
  if (resolution.unresolvedIn !== undefined) {
    throw new Error(upgradeMessages.packageUnresolvable(resolution.unresolvedIn));
  }
  const sourceFiles = paths.map((path) => {
    const sourceFile = program.getSourceFile(path) ?? program.getSourceFile(resolve(path));
    if (sourceFile === undefined) {
      throw new Error(upgradeMessages.unreadable(path));
    }
    const [problem] = program.getSyntacticDiagnostics(sourceFile);
    if (problem !== undefined) {
      throw syntaxError(sourceFile, problem);
    }
    return sourceFile;
  });
  const entries = [...resolution.entries].flatMap((entry) => program.getSourceFile(entry) ?? []);
  const resolver = new StorageResolverBySymbol(program.getTypeChecker(), entries);
  // Under verbatimModuleSyntax a file emitted as CommonJS can bring in a value only with `import x = require(…)`.
  const commonJsOnly = (sourceFile: Typescript.SourceFile): boolean =>
    options.verbatimModuleSyntax === true && emitsCommonJs(sourceFile, options);
  return {
    facts: sourceFiles.map((sourceFile) => readImplementerFacts(sourceFile, resolver, commonJsOnly(sourceFile))),
    fallback: resolution.fallback,
  };
}

/**
 * What module resolution saw: the files `checkpoint-fencing` resolved to, whether this upgrade's own declarations
 * stood in, and a file where it did not resolve at all (when there are none to stand in).
 */
interface Resolution {
  fallback: boolean;
  readonly entries: Set<string>;
  unresolvedIn: string | undefined;
}

/** Whether a file compiles to a CommonJS module: under `module: commonjs`, or as a CommonJS file under `node16`+. */
function emitsCommonJs(sourceFile: Typescript.SourceFile, options: Typescript.CompilerOptions): boolean {
  const kind = options.module;
  return kind !== undefined && kind >= ts.ModuleKind.Node16 && kind <= ts.ModuleKind.NodeNext
    ? sourceFile.impliedNodeFormat === ts.ModuleKind.CommonJS
    : kind === ts.ModuleKind.CommonJS;
}

/** How the tsconfig resolves modules, as its author wrote it. */
function resolutionSetting({ moduleResolution, module }: Typescript.CompilerOptions): string {
  return moduleResolution === undefined
    ? `the default for "module": "${ts.ModuleKind[module ?? ts.ModuleKind.CommonJS].toLowerCase()}"`
    : `"moduleResolution": "${ts.ModuleResolutionKind[moduleResolution].toLowerCase()}"`;
}

/**
 * Module resolution for the analysis. With `project-and-package` it follows relative imports, `paths` aliases, the
 * project's own workspace packages and `checkpoint-fencing` itself, and leaves every other package unresolved: the
 * recipe needs the storage interface and the project's own classes, and parsing the declarations of every library
 * the project uses would dominate the run time. With `all` it follows everything, for a base class from a package.
 *
 * When the project's own settings cannot resolve `checkpoint-fencing` (for example `"moduleResolution": "node"`
 * against an older release without top-level types, or the package not installed), its declarations are read from
 * the package this upgrade ships in, and `record.fallback` is set so the caller can say so. Every file the package
 * resolves to is recorded: its `CheckpointStorage` is "the" storage interface.
 */
function moduleResolution(
  project: LeafProject,
  workspace: WorkspacePackages,
  follow: Follow,
  record: Resolution,
): NonNullable<Typescript.CompilerHost['resolveModuleNameLiterals']> {
  return (literals, containingFile, _redirect, _options, containingSourceFile) =>
    literals.map((literal) => {
      const mode = ts.getModeForUsageLocation(containingSourceFile, literal, project.parsed.options);
      const resolvedModule = resolveFollowed(project, workspace, follow, literal.text, containingFile, mode);
      if (literal.text !== PACKAGE_NAME) {
        return { resolvedModule };
      }
      if (resolvedModule === undefined && OWN_DECLARATIONS !== undefined) {
        record.fallback = true;
        record.entries.add(OWN_DECLARATIONS);
        return { resolvedModule: projectFile(OWN_DECLARATIONS) };
      }
      if (resolvedModule === undefined) {
        record.unresolvedIn ??= containingFile;
      } else {
        record.entries.add(resolvedModule.resolvedFileName);
      }
      return { resolvedModule };
    });
}

/** Resolves `name` if `follow` follows it: a workspace package to its source, anything else as `project` does. */
function resolveFollowed(
  { parsed: { options }, cache }: LeafProject,
  workspace: WorkspacePackages,
  follow: Follow,
  name: string,
  containingFile: string,
  mode?: Typescript.ResolutionMode,
): Typescript.ResolvedModuleFull | undefined {
  if (workspace.owns(name)) {
    const file = workspace.resolve(name, containingFile, options, cache);
    return file === undefined ? undefined : projectFile(file);
  }
  const followed =
    follow === 'all' ||
    name === PACKAGE_NAME ||
    name.startsWith(`${PACKAGE_NAME}/`) ||
    name.startsWith('.') ||
    Object.keys(options.paths ?? {}).some((pattern) => matchesPathPattern(name, pattern));
  return followed
    ? ts.resolveModuleName(name, containingFile, options, ts.sys, cache, undefined, mode).resolvedModule
    : undefined;
}

function projectFile(resolvedFileName: string): Typescript.ResolvedModuleFull {
  return { resolvedFileName, extension: extensionOf(resolvedFileName), isExternalLibraryImport: false };
}

function extensionOf(file: string): Typescript.Extension {
  const { Dts, Dmts, Dcts, Tsx, Mts, Cts, Ts, Jsx, Mjs, Cjs, Js } = ts.Extension;
  return [Dts, Dmts, Dcts, Tsx, Mts, Cts, Ts, Jsx, Mjs, Cjs, Js].find((extension) => file.endsWith(extension)) ?? Ts;
}

function matchesPathPattern(name: string, pattern: string): boolean {
  const [prefix = '', suffix] = pattern.split('*');
  return suffix === undefined ? name === pattern : name.startsWith(prefix) && name.endsWith(suffix);
}
