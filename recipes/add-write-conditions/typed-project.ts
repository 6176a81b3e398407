import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ts } from 'ts-morph';
import { PACKAGE_NAME } from '../../vocabulary/index.js';
import { readImplementerFacts, syntaxError, type FileFacts } from './read-implementer-facts.js';
import { StorageResolverBySymbol } from './resolve-storage-by-symbol.js';
import { upgradeMessages } from './upgrade-messages.js';
import { WorkspacePackages } from './workspace-packages.js';

/**
 * The declarations of the checkpoint-fencing this upgrade is part of: `dist/runtime/index.d.ts` once built, the
 * runtime's source when it runs from the repository.
 */
const OWN_DECLARATIONS = ['../../runtime/index.d.ts', '../../runtime/index.ts']
  .map((relative) => fileURLToPath(new URL(relative, import.meta.url)))
  .find((path) => existsSync(path));

/**
 * A tsconfig's files, and a way to analyse some of them with types. A solution-style tsconfig (`"files": []` and
 * `references`) stands for every project it references, each analysed under its own options. The only module that
 * builds a TypeScript program.
 */
export interface TypedProject {
  /** Absolute paths of the source files of the project, or of every referenced project. */
  readonly fileNames: readonly string[];
  /** The folder of the tsconfig a file belongs to, which paths like `dist/` are judged from. */
  rootOf(file: string): string;
  /**
   * Resolves a bare module specifier from `containingFile` to a project file: a `paths` alias, or one of the
   * project's own workspace packages; `undefined` for anything else.
   */
  resolveModule(specifier: string, containingFile: string): string | undefined;
  /**
   * Parses `paths` with types (their imports are loaded as the checker needs them) and returns plain facts, in the
   * order of `paths`.
   * @throws Error naming the file and position when one of them does not parse.
   */
  analyse(paths: readonly string[]): FileFacts[];
  /** One-line notes for the user that arose while analysing, e.g. that the package's declarations were read directly. */
  readonly notices: readonly string[];
}

/** One tsconfig that lists source files. */
interface LeafProject {
  readonly tsconfig: string;
  readonly parsed: ts.ParsedCommandLine;
  readonly options: ts.CompilerOptions;
  readonly fileNames: readonly string[];
  readonly cache: ts.ModuleResolutionCache;
}

/**
 * Reads `tsconfigPath`, following `references` into every referenced project, with the TypeScript that ts-morph
 * bundles (kept apart from the project's own `typescript`).
 * @throws Error naming the tsconfig when it is invalid, its `extends` target is missing, or it (or a project it
 * references) matches no source files.
 */
export function openTypedProject(tsconfigPath: string): TypedProject {
  const projects = leafProjects(resolve(tsconfigPath), new Set());
  const owners = new Map<string, LeafProject>();
  for (const project of projects) {
    for (const file of project.fileNames) {
      if (!owners.has(resolve(file))) {
        owners.set(resolve(file), project);
      }
    }
  }
  const notices: string[] = [];
  const ownerOf = (file: string): LeafProject => owners.get(resolve(file)) ?? (projects[0] as LeafProject);
  const workspace = new WorkspacePackages(projects);
  return {
    fileNames: [...owners.keys()],
    notices,
    rootOf: (file) => dirname(ownerOf(file).tsconfig),
    resolveModule(specifier, containingFile) {
      const { options, cache } = ownerOf(containingFile);
      if (workspace.owns(specifier)) {
        return workspace.resolve(specifier, containingFile, options, cache);
      }
      if (options.paths === undefined) {
        return undefined;
      }
      const resolved = ts.resolveModuleName(specifier, containingFile, options, ts.sys, cache).resolvedModule;
      return resolved === undefined || resolved.isExternalLibraryImport === true
        ? undefined
        : resolved.resolvedFileName;
    },
    analyse(paths) {
      const groups = new Map<LeafProject, string[]>();
      for (const path of paths) {
        const owner = ownerOf(path);
        groups.set(owner, [...(groups.get(owner) ?? []), path]);
      }
      const facts = new Map<string, FileFacts>();
      for (const [project, files] of groups) {
        for (const fileFacts of analyseProject(project, files, workspace, notices)) {
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
  const own: LeafProject[] =
    parsed.fileNames.length === 0
      ? []
      : [
          {
            tsconfig,
            parsed,
            options: parsed.options,
            fileNames: parsed.fileNames,
            cache: ts.createModuleResolutionCache(dirname(tsconfig), (name) => name, parsed.options),
          },
        ];
  return [
    ...own,
    ...references.flatMap((reference) => leafProjects(resolve(ts.resolveProjectReferencePath(reference)), seen)),
  ];
}

function parseTsconfig(tsconfig: string): ts.ParsedCommandLine {
  if (!existsSync(tsconfig)) {
    throw new Error(upgradeMessages.noTsconfig(tsconfig));
  }
  const diagnostics: ts.Diagnostic[] = [];
  const parsed = ts.getParsedCommandLineOfConfigFile(
    tsconfig,
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (diagnostic) => diagnostics.push(diagnostic) },
  );
  // No inputs (18002, 18003) is reported by the caller, which knows whether references make up for it.
  const fatal = [...diagnostics, ...(parsed?.errors ?? [])].find(
    (diagnostic) =>
      diagnostic.category === ts.DiagnosticCategory.Error && diagnostic.code !== 18002 && diagnostic.code !== 18003,
  );
  if (parsed === undefined || fatal !== undefined) {
    const reason =
      fatal === undefined ? 'it could not be read' : ts.flattenDiagnosticMessageText(fatal.messageText, ' ');
    // "File '…' not found" (6053) and "Cannot read file '…'" (5083) are how a missing `extends` target shows.
    const target = fatal?.code === 6053 || fatal?.code === 5083 ? /'([^']+)'/.exec(reason)?.[1] : undefined;
    throw new Error(
      target === undefined
        ? upgradeMessages.unusableTsconfig(tsconfig, reason)
        : upgradeMessages.missingExtendsTarget(tsconfig, target),
    );
  }
  return parsed;
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
      isInstalledNear(project.tsconfig)
        ? upgradeMessages.declarationsReadDirectly(
            project.tsconfig,
            resolutionSetting(project.options),
            OWN_DECLARATIONS ?? '',
          )
        : upgradeMessages.packageNotInstalled(project.tsconfig, OWN_DECLARATIONS ?? ''),
    );
  }
  // A base class from another package: read again with every import followed (and the project's @types), so what
  // it inherits is known rather than guessed. Rare, and only for the files that need it.
  const needFullResolution = first.facts.filter((file) =>
    file.implementers.some((implementer) => implementer.base?.kind === 'unknown'),
  );
  if (needFullResolution.length === 0) {
    return first.facts;
  }
  const again = new Map(
    analyseWith(
      project,
      needFullResolution.map((file) => file.path),
      workspace,
      'all',
    ).facts.map((file) => [resolve(file.path), file]),
  );
  return first.facts.map((file) => again.get(resolve(file.path)) ?? file);
}

/**
 * Builds a program over `paths` and reads their facts. `project-and-package` follows only what finding implementers
 * needs (see {@link moduleResolution}) and loads no `@types`; `all` follows every import, with the project's types.
 */
function analyseWith(
  project: LeafProject,
  paths: readonly string[],
  workspace: WorkspacePackages,
  follow: 'project-and-package' | 'all',
): { facts: FileFacts[]; fallback: boolean } {
  const resolution: ResolutionRecord = { fallback: false, entries: new Set(), unresolvedIn: undefined };
  // Finding implementers needs declarations, not lib or @types globals; leaving them out keeps the program small.
  const options: ts.CompilerOptions = {
    ...project.options,
    noLib: true,
    noEmit: true,
    ...(follow === 'all' ? {} : { types: [] }),
  };
  const host = ts.createCompilerHost(options, true);
  host.resolveModuleNameLiterals = moduleResolution(options, host, project.cache, workspace, follow, resolution);
  const program = ts.createProgram({ rootNames: paths, options, host });
  if (resolution.unresolvedIn !== undefined) {
    throw new Error(upgradeMessages.packageUnresolvable(resolution.unresolvedIn));
  }
  const sourceFiles = paths.map((path) => program.getSourceFile(path) ?? program.getSourceFile(resolve(path)));
  for (const [index, sourceFile] of sourceFiles.entries()) {
    if (sourceFile === undefined) {
      throw new Error(upgradeMessages.unreadable(paths[index] ?? ''));
    }
    const [problem] = program.getSyntacticDiagnostics(sourceFile);
    if (problem !== undefined) {
      throw syntaxError(sourceFile, problem);
    }
  }
  const analysed = sourceFiles.filter((sourceFile) => sourceFile !== undefined);
  const entries = [...resolution.entries].flatMap((entry) => program.getSourceFile(entry) ?? []);
  const resolver = new StorageResolverBySymbol(program.getTypeChecker(), entries);
  // Under verbatimModuleSyntax a file emitted as CommonJS can bring in a value only with `import x = require(…)`.
  const commonJsOnly = (sourceFile: ts.SourceFile): boolean =>
    options.verbatimModuleSyntax === true && emitsCommonJs(sourceFile, options);
  return {
    facts: analysed.map((sourceFile) => readImplementerFacts(sourceFile, resolver, commonJsOnly(sourceFile))),
    fallback: resolution.fallback,
  };
}

/**
 * What module resolution saw: the files `checkpoint-fencing` resolved to, whether its own copy stood in, and a file
 * where it did not resolve at all (when this upgrade has no declarations to stand in).
 */
interface ResolutionRecord {
  fallback: boolean;
  readonly entries: Set<string>;
  unresolvedIn: string | undefined;
}

/** Whether a file compiles to a CommonJS module: under `module: commonjs`, or as a CommonJS file under `node16`+. */
function emitsCommonJs(sourceFile: ts.SourceFile, options: ts.CompilerOptions): boolean {
  const kind = options.module;
  if (kind !== undefined && kind >= ts.ModuleKind.Node16 && kind <= ts.ModuleKind.NodeNext) {
    return sourceFile.impliedNodeFormat === ts.ModuleKind.CommonJS;
  }
  return kind === ts.ModuleKind.CommonJS;
}

/** How the tsconfig resolves modules, as its author wrote it. */
function resolutionSetting(options: ts.CompilerOptions): string {
  if (options.moduleResolution !== undefined) {
    return `"moduleResolution": "${ts.ModuleResolutionKind[options.moduleResolution].toLowerCase()}"`;
  }
  return `the default for "module": "${ts.ModuleKind[options.module ?? ts.ModuleKind.CommonJS].toLowerCase()}"`;
}

function isInstalledNear(tsconfig: string): boolean {
  for (let directory = dirname(tsconfig); ; directory = dirname(directory)) {
    if (existsSync(join(directory, 'node_modules', PACKAGE_NAME, 'package.json'))) {
      return true;
    }
    if (dirname(directory) === directory) {
      return false;
    }
  }
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
  options: ts.CompilerOptions,
  host: ts.ModuleResolutionHost,
  cache: ts.ModuleResolutionCache,
  workspace: WorkspacePackages,
  follow: 'project-and-package' | 'all',
  record: ResolutionRecord,
): NonNullable<ts.CompilerHost['resolveModuleNameLiterals']> {
  return (literals, containingFile, _redirect, _options, containingSourceFile) =>
    literals.map((literal) => {
      const name = literal.text;
      if (workspace.owns(name)) {
        const source = workspace.resolve(name, containingFile, options, cache);
        return {
          resolvedModule:
            source === undefined
              ? undefined
              : { resolvedFileName: source, extension: extensionOf(source), isExternalLibraryImport: false },
        };
      }
      const followed =
        follow === 'all' ||
        name.startsWith('.') ||
        name === PACKAGE_NAME ||
        name.startsWith(`${PACKAGE_NAME}/`) ||
        Object.keys(options.paths ?? {}).some((pattern) => matchesPathPattern(name, pattern));
      if (!followed) {
        return { resolvedModule: undefined };
      }
      const mode = ts.getModeForUsageLocation(containingSourceFile, literal, options);
      const resolved = ts.resolveModuleName(name, containingFile, options, host, cache, undefined, mode).resolvedModule;
      if (resolved === undefined && name === PACKAGE_NAME && OWN_DECLARATIONS !== undefined) {
        record.fallback = true;
        record.entries.add(OWN_DECLARATIONS);
        return {
          resolvedModule: {
            resolvedFileName: OWN_DECLARATIONS,
            extension: extensionOf(OWN_DECLARATIONS),
            isExternalLibraryImport: false,
          },
        };
      }
      if (name === PACKAGE_NAME) {
        if (resolved === undefined) {
          record.unresolvedIn ??= containingFile;
        } else {
          record.entries.add(resolved.resolvedFileName);
        }
      }
      return { resolvedModule: resolved };
    });
}

function extensionOf(file: string): ts.Extension {
  const { Dts, Dmts, Dcts, Tsx, Mts, Cts, Ts, Jsx, Mjs, Cjs, Js } = ts.Extension;
  return [Dts, Dmts, Dcts, Tsx, Mts, Cts, Ts, Jsx, Mjs, Cjs, Js].find((extension) => file.endsWith(extension)) ?? Ts;
}

function matchesPathPattern(name: string, pattern: string): boolean {
  const star = pattern.indexOf('*');
  return star === -1
    ? name === pattern
    : name.startsWith(pattern.slice(0, star)) && name.endsWith(pattern.slice(star + 1));
}
