import type { TSESLint } from '@typescript-eslint/utils';
import { remember } from './remembered-answer.js';
import { spelledNamesPattern } from './spelled-names.js';
import { fileMayReachPackage } from './import-graph-reach.js';
import { programIncludesPackage } from './storage-types.js';
import type { TypeInformation } from './type-information.js';

type SourceCode = Readonly<TSESLint.SourceCode>;

/**
 * Without types, every way the rules recognise a `CheckpointStorage` spells its name in the file: the
 * checkpoint-fencing import (aliased or not) or namespace member an `implements`, an annotation, a `satisfies` or a
 * JSDoc `@implements` reaches, and the same-file interfaces, aliases and base classes that lead to one.
 */
const SYNTACTIC_TEXT = spelledNamesPattern(['CheckpointStorage']);

/**
 * With types, a storage's type may be named in another file, so the file is kept by what the rules report on instead:
 * a `save` (declared, assigned or a literal's key), or a class with a heritage clause (`extends`, `implements`, JSDoc
 * `@implements`/`@extends`), the only classes asked about their type. A subclass `class Pg extends Base {}` of a
 * storage from another file spells `extends` and nothing else.
 */
const TYPED_TEXT = spelledNamesPattern(['CheckpointStorage', 'save', 'extends', 'implements']);

/**
 * Whether a file can hold a `CheckpointStorage` implementation the storage rules report on, in the mode `types` says
 * (ADR 0310). Without types: its text names the interface, or has an escape that may spell it. With types: the program
 * includes checkpoint-fencing at all, the text has what {@link TYPED_TEXT} looks for, and the file's imports may lead
 * to the package (ADR 0312). A file without it cannot report, so `no-ignored-write-condition` and
 * `no-check-then-write` register no listener there.
 */
export function mayImplementCheckpointStorage(sourceCode: SourceCode, types: TypeInformation | undefined): boolean {
  if (types !== undefined) {
    return (
      programIncludesPackage(types.program) &&
      TYPED_TEXT.test(sourceCode.text) &&
      fileMayReachPackage(types.esTreeNodeToTSNodeMap.get(sourceCode.ast), types.program)
    );
  }
  return namedInText.get(sourceCode) ?? remember(namedInText, sourceCode, SYNTACTIC_TEXT.test(sourceCode.text));
}

/** Whether a file's text may name the interface, searched once for the two rules in the syntactic config. */
const namedInText = new WeakMap<SourceCode, boolean>();
