import { CODEMOD_PACKAGE_NAME, PACKAGE_NAME } from '../../vocabulary/index.js';

/**
 * Every sentence the upgrade shows a user (errors, notes, why an implementer was skipped), in one place so that a
 * test can hold all of them to the same form: the thing, the reason, the fix, one line, one final period. Text
 * quoted from elsewhere (a compiler diagnostic, another reason) goes through {@link clause} first.
 */
export const upgradeMessages = {
  noTsconfig: (tsconfig: string) => `${tsconfig}: no tsconfig here; pass the project's tsconfig with --project <path>.`,
  noTsconfigAbove: (folder: string) =>
    `${folder}: no tsconfig.json here, in any folder above, or in a workspace package here; run the upgrade in the project or at its workspace root, or pass its tsconfig with --project <path>.`,
  tsconfigFoundAbove: (tsconfig: string) =>
    `note: no tsconfig.json in the current folder; upgrading the project of ${tsconfig}, the nearest one above (pass paths to upgrade only some of its files).`,
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
  gitStatusFailed: (root: string, reason: string) =>
    `${root}: git status failed (${clause(reason)}), so uncommitted changes cannot be ruled out; fix the repository, or pass --allow-dirty.`,
  uncommittedChanges: (file: string, others: number) =>
    `${file}${others > 0 ? ` and ${others} more` : ''}: uncommitted changes in files the upgrade would rewrite; commit or stash them first, or pass --allow-dirty.`,
  declarationsReadDirectly: (tsconfig: string, resolution: string, declarations: string) =>
    `note: ${tsconfig} resolves modules with ${resolution}, which cannot resolve the installed '${PACKAGE_NAME}'; read its declarations from ${declarations} instead.`,
  packageNotInstalled: (tsconfig: string, declarations: string) =>
    `note: '${PACKAGE_NAME}' is not installed for the project of ${tsconfig}; read its declarations from ${declarations} instead: install it (npm install ${PACKAGE_NAME}) before compiling the upgraded code.`,
  formatterFailed: (file: string, reason: string) =>
    `note: ${file}: the project's formatter could not format it (${clause(reason)}); it is written in the recipe's own layout.`,
  extendsItself: (implementer: string, file: string) =>
    `${file}: ${implementer} extends itself through its base classes; break the cycle and run the upgrade again.`,
  baseNotVisible: (base: string, where: 'another-file' | 'another-package') =>
    where === 'another-file'
      ? `extends ${base}, declared in another file, which this transform cannot see into; run \`npx ${CODEMOD_PACKAGE_NAME} upgrade\`, which reads the whole project.`
      : `extends ${base}, from a package whose declarations cannot be found (not installed, or without types), so what it inherits is unknown; install the package's types and run again, or add save(id, checkpoint, condition) and writeVersion() by hand.`,
  baseLeftAlone: (base: string, reason: string) => `its base class ${base} is left alone (${clause(reason)}).`,
  saveIsValue: (assignedFrom: string) =>
    `its save is ${assignedFrom}, not a function written in this class or literal, so the condition cannot be added to it here; add it there, where that function is written.`,
  assignedInConstructorBranch: (member: string, at: string) =>
    `its constructor assigns this.${member} at ${at} other than once, as a statement of its own (in a branch, a callback, Object.assign), and the instance's own property would hide a ${member} the recipe adds; assign it once at the top of the constructor, or add the condition by hand.`,
  saveIsAccessor: () =>
    'its save is an accessor (get save()), whose function the recipe cannot rewrite; make it a method or field, or add the condition to the function it returns by hand.',
  saveHasOverloads: () =>
    'its save has overload signatures, which the recipe does not rewrite; add the condition parameter to each signature and the implementation by hand, refusing the conditions it cannot evaluate.',
  decoratedFollower: (base: string) =>
    `its save is decorated, and renaming it along with the save of ${base} would move the name its decorators are keyed on; add the condition by hand.`,
  bindingsDiffer: (bound: string, unbound: string) =>
    `the classes whose save it would call bind it differently (${bound} as an arrow-function field, ${unbound} as a method), and no one generated save keeps both as they are; write them alike, or add the condition by hand.`,
  subclassCannotFollow: (subclass: string, file: string, reason: string) =>
    `its subclass ${subclass} in ${file} cannot be changed along with it (${clause(reason)}), and would be left overriding or calling a renamed save; upgrade the two by hand.`,
  outsideSelection: (other: string, file: string) =>
    `${other} in ${file} belongs to the same class hierarchy and would have to change with it, but is outside the paths given (or the workspace folder the upgrade runs in); pass both paths, or run the upgrade on the whole project or at the workspace root.`,
  inheritsSaveField: (base: string, implementer: string) =>
    `inherits save as a field of ${base} (an arrow function set in its constructor), which no method here can wrap; give ${implementer} a save that takes the condition by hand.`,
  subclassInAnotherFile: (subclass: string, file: string) =>
    `its subclass ${subclass} in ${file} declares its own save, which this transform cannot rename along with this class's; run \`npx ${CODEMOD_PACKAGE_NAME} upgrade\`, which upgrades both.`,
  badArguments: (reason: string) => `${clause(reason)}; run with --help for the options.`,
} as const;

/** A sentence quoted inside another one: its own closing period dropped, so no message ends in `..`. */
export function clause(text: string): string {
  return text.trim().replace(/\.+$/, '');
}
