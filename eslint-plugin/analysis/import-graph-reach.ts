import type * as ts from 'typescript';
import { PACKAGE_NAME } from '../../vocabulary/index.js';
import { remember } from './remembered-answer.js';
import {
  isInstalledFile,
  isInstalledOrLinkedPackageFile,
  isOutOfReachLibraryFile,
  moduleFiles,
  writtenModuleName,
} from './storage-types.js';

/**
 * What may bring types into a file past its import and export statements: an import type or a dynamic import, a
 * `require`, a triple-slash reference, a global or module declaration. A file that spells one is not followed.
 */
const UNFOLLOWED_REFERENCE = /\bimport\s*\(|\brequire\s*\(|\/\/\/\s*<reference|\bdeclare\s+(?:global|module)\b/u;

const reachByFile = new WeakMap<ts.SourceFile, boolean>();

/**
 * Whether checkpoint-fencing's types may be seen in `sourceFile`: it spells the package's name, or imports or
 * re-exports from a file that may, following the project's files and stopping at installed packages' files that
 * cannot lead there ({@link isOutOfReachLibraryFile}; ADR 0312). Only such a file can hold a class or a literal typed
 * as a storage. A file whose imports all lead elsewhere answers for every file it reaches, so each file of a
 * project is read about once.
 */
export function fileMayReachPackage(sourceFile: ts.SourceFile, program: ts.Program): boolean {
  const known = reachByFile.get(sourceFile);
  if (known !== undefined) {
    return known;
  }
  const reached = new Set([sourceFile]);
  for (const file of reached) {
    if (reachByFile.get(file) === true || file.text.includes(PACKAGE_NAME) || UNFOLLOWED_REFERENCE.test(file.text)) {
      return remember(reachByFile, sourceFile, true);
    }
    // The module names of the file's top-level imports, re-exports and `import x = require(…)`.
    for (const specifier of file.statements.flatMap((statement) => writtenModuleName(statement) ?? [])) {
      const imported = importedFiles(specifier, program);
      if (imported === 'may-reach') {
        return remember(reachByFile, sourceFile, true);
      }
      imported.filter((next) => reachByFile.get(next) !== false).forEach((next) => reached.add(next));
    }
  }
  reached.forEach((file) => reachByFile.set(file, false));
  return false;
}

/**
 * The project files a module name leads to, to follow; none for a module only installed files that cannot lead to
 * checkpoint-fencing declare, or one that does not resolve (its names are `any`); `may-reach` for any other installed
 * file, or checkpoint-fencing's own.
 */
function importedFiles(specifier: ts.Expression, program: ts.Program): ts.SourceFile[] | 'may-reach' {
  const files = moduleFiles(specifier, program.getTypeChecker()).filter(
    (file) => !isOutOfReachLibraryFile(file, program),
  );
  return files.some((file) => isInstalledFile(file.fileName) || isInstalledOrLinkedPackageFile(file.fileName))
    ? 'may-reach'
    : files;
}
