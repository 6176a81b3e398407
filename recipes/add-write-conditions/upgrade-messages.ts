import { PACKAGE_NAME } from '../../vocabulary/index.js';

/**
 * Every sentence the upgrade shows a user (errors, notes, why an implementer was skipped), in one place so that a
 * test can hold all of them to the same form: the thing, the reason, the fix, one line, one final period. Text
 * quoted from elsewhere (a compiler diagnostic, another reason) goes through {@link clause} first.
 */
export const upgradeMessages = {
  noTsconfig: (tsconfig: string) => `${tsconfig}: no tsconfig here; pass the project's tsconfig with --project <path>.`,
  missingExtendsTarget: (tsconfig: string, target: string) =>
    `${tsconfig}: its "extends" target '${target}' cannot be found; install the package that provides it or correct the path, then run the upgrade again.`,
  unusableTsconfig: (tsconfig: string, reason: string) =>
    `${tsconfig}: cannot use this tsconfig (${clause(reason)}); fix it, or pass another with --project.`,
  noSourceFiles: (tsconfig: string) =>
    `${tsconfig}: matches no source files, so nothing would be upgraded; check its "include" and "files", or pass the tsconfig of a project with sources with --project.`,
  noSuchPath: (path: string) => `${path}: no such file or directory; pass files or folders of the project.`,
  pathOutsideProject: (path: string, tsconfig: string) =>
    `${path}: not part of the project ${tsconfig}; add it to the tsconfig's "include" or pass --project.`,
  doesNotParse: (file: string, line: number, column: number, reason: string) =>
    `${file}:${line}:${column}: does not parse (${clause(reason)}); fix the syntax error and run the upgrade again.`,
  unreadable: (file: string) =>
    `${file}: could not be read as a source file of the project; check that it exists and is listed by the tsconfig.`,
  packageUnresolvable: (file: string) =>
    `${file}: cannot resolve '${PACKAGE_NAME}', and no declarations of it ship with this upgrade; install it (npm install ${PACKAGE_NAME}) and run the upgrade again.`,
  changedOnDisk: (file: string) => `${file}: changed on disk while the upgrade ran; run it again.`,
  uncommittedChanges: (file: string, others: number) =>
    `${file}${others > 0 ? ` and ${others} more` : ''}: uncommitted changes in files the upgrade would rewrite; commit or stash them first, or pass --allow-dirty.`,
  declarationsReadDirectly: (tsconfig: string, resolution: string, declarations: string, installed: boolean) =>
    `note: ${tsconfig} resolves modules with ${resolution}, which cannot resolve '${PACKAGE_NAME}'; read its declarations from ${declarations} instead${
      installed
        ? ''
        : `, and it is not installed in this project: install it (npm install ${PACKAGE_NAME}) before compiling the upgraded code`
    }.`,
  prettierFailed: (file: string, reason: string) =>
    `note: ${file}: the project's Prettier could not format it (${clause(reason)}); it is written in the recipe's own layout.`,
  extendsItself: (implementer: string, file: string) =>
    `${file}: ${implementer} extends itself through its base classes; break the cycle and run the upgrade again.`,
  baseNotVisible: (base: string) =>
    `extends ${base}, whose members cannot be seen here; run \`npx ${PACKAGE_NAME} upgrade\` (type-aware) on this project instead.`,
  baseLeftAlone: (base: string, reason: string) => `its base class ${base} is left alone (${clause(reason)}).`,
  saveIsValue: () =>
    'its save is a value written elsewhere (not a method or function here), so the condition cannot be added to it; add it where that function is written.',
  inheritsSaveField: (base: string, implementer: string) =>
    `inherits save as a field of ${base} (an arrow function set in its constructor), which no method here can wrap; give ${implementer} a save that takes the condition by hand.`,
  subclassInAnotherFile: (subclass: string, file: string) =>
    `its subclass ${subclass} in ${file} declares its own save, which this transform cannot rename along with this class's; run \`npx ${PACKAGE_NAME} upgrade\`, which upgrades both.`,
  badArguments: (reason: string) => `${clause(reason)}; run with --help for the options.`,
} as const;

/** A sentence quoted inside another one: its own closing period dropped, so no message ends in `..`. */
export function clause(text: string): string {
  return text.trim().replace(/\.+$/, '');
}
