import { createRequire } from 'node:module';
import type { ResolutionHostFactory, ts as Typescript } from 'ts-morph';
import { findImplementersWithTypes, type TypedFileFacts } from './find-implementers-with-types.js';
import { PACKAGE_NAME } from '../../vocabulary/index.js';

// Loaded with require for start-up time, as in find-implementers-with-types.ts.
const { Project, ts } = createRequire(import.meta.url)('ts-morph') as typeof import('ts-morph');

/** A tsconfig's file list and a way to analyse some of its files with types. The only module that opens ts-morph's Project. */
export interface TypedProject {
  /** Absolute paths of the project's source files, as the tsconfig lists them. */
  readonly fileNames: readonly string[];
  /** Resolves a bare module specifier (a `paths` alias) from `containingFile`; `undefined` when it does not resolve to a project file. */
  resolveModule(specifier: string, containingFile: string): string | undefined;
  /**
   * Parses `paths` with types (their imports are loaded as the checker needs them) and returns plain facts.
   * @throws Error naming the file and position when one of them does not parse.
   */
  analyse(paths: readonly string[]): TypedFileFacts[];
}

/**
 * Reads `tsconfigPath` with the TypeScript that ts-morph bundles, kept apart from the project's own `typescript`.
 * @throws Error naming the tsconfig when it is missing or invalid.
 */
export function openTypedProject(tsconfigPath: string): TypedProject {
  const diagnostics: Typescript.Diagnostic[] = [];
  const parsed = ts.getParsedCommandLineOfConfigFile(
    tsconfigPath,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => diagnostics.push(diagnostic),
    },
  );
  const fatal = [...diagnostics, ...(parsed?.errors ?? [])].find(
    (diagnostic) => diagnostic.category === ts.DiagnosticCategory.Error && diagnostic.code !== 18003,
  );
  if (parsed === undefined || fatal !== undefined) {
    const reason =
      fatal === undefined ? 'it could not be read' : ts.flattenDiagnosticMessageText(fatal.messageText, ' ');
    throw new Error(`${tsconfigPath}: cannot use this tsconfig: ${reason}. Pass an existing tsconfig with --project.`);
  }
  const resolutionCache = ts.createModuleResolutionCache(process.cwd(), (name) => name, parsed.options);
  return {
    fileNames: parsed.fileNames,
    resolveModule(specifier, containingFile) {
      if (parsed.options.paths === undefined) {
        return undefined;
      }
      const resolved = ts.resolveModuleName(
        specifier,
        containingFile,
        parsed.options,
        ts.sys,
        resolutionCache,
      ).resolvedModule;
      return resolved === undefined || resolved.isExternalLibraryImport === true
        ? undefined
        : resolved.resolvedFileName;
    },
    analyse(paths) {
      const project = new Project({
        tsConfigFilePath: tsconfigPath,
        skipAddingFilesFromTsConfig: true,
        // Finding implementers needs declarations, not lib or @types globals; skipping them keeps the program small.
        skipLoadingLibFiles: true,
        compilerOptions: { types: [] },
        resolutionHost: projectAndPackageOnly(resolutionCache),
      });
      const files = paths.map((path) => project.addSourceFileAtPath(path));
      const program = project.getProgram().compilerObject;
      for (const file of files) {
        const [problem] = program.getSyntacticDiagnostics(file.compilerNode);
        if (problem !== undefined) {
          const { line, character } = file.compilerNode.getLineAndCharacterOfPosition(problem.start);
          throw new Error(
            `${file.getFilePath()}:${line + 1}:${character + 1}: does not parse (${ts.flattenDiagnosticMessageText(problem.messageText, ' ')}); fix the syntax error and run the upgrade again.`,
          );
        }
      }
      return findImplementersWithTypes(files);
    },
  };
}

/**
 * Module resolution that follows relative imports, `paths` aliases and `checkpoint-fencing` itself, and leaves every
 * other package unresolved. The recipe needs the storage interface and the project's own classes; parsing the
 * declarations of every library the project uses would dominate the run time. A base class imported from another
 * package therefore stays unknown, and its subclass is reported as skipped rather than guessed at.
 */
function projectAndPackageOnly(cache: Typescript.ModuleResolutionCache): ResolutionHostFactory {
  return (host, getCompilerOptions) => ({
    resolveModuleNames: (moduleNames, containingFile) =>
      moduleNames.map((name) => {
        const options = getCompilerOptions();
        const followed =
          name.startsWith('.') ||
          name === PACKAGE_NAME ||
          name.startsWith(`${PACKAGE_NAME}/`) ||
          Object.keys(options.paths ?? {}).some((pattern) => matchesPathPattern(name, pattern));
        return followed ? ts.resolveModuleName(name, containingFile, options, host, cache).resolvedModule : undefined;
      }),
  });
}

function matchesPathPattern(name: string, pattern: string): boolean {
  const star = pattern.indexOf('*');
  return star === -1
    ? name === pattern
    : name.startsWith(pattern.slice(0, star)) && name.endsWith(pattern.slice(star + 1));
}
