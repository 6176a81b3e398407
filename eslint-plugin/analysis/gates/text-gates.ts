import type { TSESLint } from '@typescript-eslint/utils';
import {
  DEFAULT_TOKEN_PATTERN,
  DUAL_ANCHOR_PARTIAL_OPERATIONS,
  type DualAnchorBaseStepName,
} from '../../../vocabulary/index.js';
import { once } from '../memo.js';
import type { TypeInformation } from '../type-information.js';
import { fileMayReachPackage, programIncludesPackage } from './package-reach.js';

// Whether a rule can report in a file at all, judged from its text before any syntax is looked at (ADRs 0308–0310):
// most files of a project cannot, and a rule that registers no listener there costs ESLint no listener calls. Each
// test is made once a file, for every rule that asks.

type SourceCode = Readonly<TSESLint.SourceCode>;

/**
 * A backslash that can put a letter into a key's or string's value without the letter standing in the text: `\u` and
 * `\x` escapes, legacy octal escapes, a line continuation, a needless escape (`\S`). The escapes left out stand for
 * control characters or punctuation (`\n`, `\'`, `\\`, `` \` ``, `\$`), which no name the rules look for contains.
 */
const ESCAPE_THAT_MAY_SPELL_A_LETTER = String.raw`\\[^nrtbfv'"\\` + '`$]';

/**
 * A search for text that may name one of `names` in a key, an identifier or a string: a name as written, or any
 * escape through which a value could spell one (ADR 0309). A text it does not match names none of them.
 */
function spelledNamesPattern(names: Iterable<string>): RegExp {
  return new RegExp(`${[...names].join('|')}|${ESCAPE_THAT_MAY_SPELL_A_LETTER}`, 'u');
}

const spellsFencing = once((sourceCode: SourceCode) => /fencing/iu.test(sourceCode.text));

/**
 * Whether a file can name a fencing token under the default `tokenPattern`: every way the default recognises one
 * (a binding or a token-source callee named like `fencingToken`, an annotation `FencingToken` or `FencingTokenSource`)
 * spells "fencing" in the file, so a file without it cannot report, and the token rules register no listener there.
 * The one recognition it gives up: with types, a callee typed `FencingTokenSource` by inference alone, in a file that
 * never spells "fencing" (ADR 0308). A custom `tokenPattern` says nothing about the text, so such files are always
 * analysed.
 */
export function mayNameFencingTokens(sourceCode: SourceCode, tokenPatternSource: string): boolean {
  return tokenPatternSource !== DEFAULT_TOKEN_PATTERN || spellsFencing(sourceCode);
}

const WRITE_FIELDS: DualAnchorBaseStepName = 'writeFields';
const WRITE_RESET: DualAnchorBaseStepName = 'writeReset';

/** The members the dual-anchor rules examine: the partial operations and the base class's two atomic writes. */
export const EXAMINED_MEMBERS: ReadonlySet<string> = new Set<string>([
  ...DUAL_ANCHOR_PARTIAL_OPERATIONS,
  WRITE_FIELDS,
  WRITE_RESET,
]);

const EXAMINED_MEMBER_TEXT = spelledNamesPattern(EXAMINED_MEMBERS);

/**
 * Whether a file's text can declare one of {@link EXAMINED_MEMBERS}: every key the rules read (`saveSeen() {}`,
 * `'saveSeen': …`, ``[`saveSeen`]: …``) spells the name, unless an escape spells it (`'save\u0053een'`,
 * `'save\Seen'`), and any such escape keeps the file in. A file without one cannot report, so the four dual-anchor
 * rules register no listener there (ADR 0309).
 */
export const mayDeclareExaminedMembers = once((sourceCode: SourceCode) => EXAMINED_MEMBER_TEXT.test(sourceCode.text));

const REFUSAL_TEXT = spelledNamesPattern(['CheckpointWriteConditionNotFulfilledError']);

/**
 * Whether a file's text can hold a test `no-retry-after-refusal` recognises: each names the error class, through the
 * checkpoint-fencing import (aliased or not, or a namespace's member) or in a string compared with `error.name`,
 * unless an escape spells it, and any such escape keeps the file in. A file without one cannot report a retry after a
 * refusal, so the rule registers no listener there (ADR 0309).
 */
export function mayTestForRefusal(sourceCode: SourceCode): boolean {
  return REFUSAL_TEXT.test(sourceCode.text);
}

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

/** Whether a file's text may name the interface, searched once for the two storage rules in the syntactic config. */
const namesStorageInterface = once((sourceCode: SourceCode) => SYNTACTIC_TEXT.test(sourceCode.text));

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
  return namesStorageInterface(sourceCode);
}
