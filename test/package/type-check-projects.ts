import { join, resolve } from 'node:path';
import ts from 'typescript';

/**
 * Type-checks and emits several TypeScript projects in one compiler, the way `tsc -b <project>…` does: a declaration
 * file that every project reads (the package's typings, typescript-eslint's, TypeScript's own) is read and parsed
 * once rather than once a project. Each project is still its own program with its own options. Returns the
 * diagnostics of each project directory as `tsc` prints them, paths relative to `cwd`: empty when it compiles cleanly.
 */
export function typeCheckProjects(directories: readonly string[], cwd: string): Map<string, string> {
  const configs = new Map(directories.map((directory) => [resolve(directory, 'tsconfig.json'), directory]));
  const reported = new Map<string, ts.Diagnostic[]>(directories.map((directory) => [directory, []]));
  const built = new Set<string>();
  // Reported while no project is being built (a tsconfig that does not parse): shown under every project.
  const unattributed: ts.Diagnostic[] = [];
  let building: string | undefined;
  const host = ts.createSolutionBuilderHost(
    ts.sys,
    undefined,
    (diagnostic) => {
      (building === undefined ? unattributed : (reported.get(building) ?? unattributed)).push(diagnostic);
    },
    () => undefined,
  );
  const builder = ts.createSolutionBuilder(host, [...configs.keys()], {});
  for (let project = builder.getNextInvalidatedProject(); project; project = builder.getNextInvalidatedProject()) {
    building = configs.get(project.project);
    project.done();
    if (building !== undefined) {
      built.add(building);
    }
    building = undefined;
  }
  const formatHost: ts.FormatDiagnosticsHost = {
    getCanonicalFileName: (fileName) => fileName,
    getCurrentDirectory: () => cwd,
    getNewLine: () => '\n',
  };
  return new Map(
    directories.map((directory) => [
      directory,
      (built.has(directory) ? '' : `${join(directory, 'tsconfig.json')}: not built by the solution builder\n`) +
        ts.formatDiagnostics([...unattributed, ...(reported.get(directory) ?? [])], formatHost),
    ]),
  );
}
