import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import type * as ts from 'typescript';

// ESLint creates every rule afresh for each file and gives rules no shared state, yet several rules ask the same
// questions of one file (is this class a storage? does the text spell "fencing"?) and, with types, of one program.
// Their answers are kept here and nowhere else: per linted file, under its SourceCode or the root of its syntax tree,
// and per TypeScript program. A file's answers go when ESLint drops the file (an editor re-linting an edited file), a
// program's when typescript-eslint drops the program, and no answer passes from one file or program to another
// (doc/benchmarks.md#how-the-rules-keep-the-cost-down says which questions are shared, and why).

type SourceCode = Readonly<TSESLint.SourceCode>;

/** Every file's and program's answers, by the question they answer. */
const answersByOwner = new WeakMap<object, Map<object, Map<unknown, unknown>>>();

function answersTo(owner: object, question: object): Map<unknown, unknown> {
  const byQuestion = answersByOwner.get(owner) ?? remember(answersByOwner, owner, new Map());
  return byQuestion.get(question) ?? remember(byQuestion, question, new Map());
}

/**
 * A question the rules share about the nodes, scopes or methods of one linted file. Made once, at module level; the
 * function it returns gives the answers kept for a file (`sourceCode.ast`, the root of its syntax tree), read as
 * `answers.get(node) ?? remember(answers, node, work())`.
 */
export function perFile<Key, Answer>(): (file: TSESTree.Program) => Map<Key, Answer> {
  const question = {};
  return (file) => answersTo(file, question) as Map<Key, Answer>;
}

/** {@link perFile} for a question about the types, files or names of one TypeScript program. */
export function perProgram<Key, Answer>(): (program: ts.Program) => Map<Key, Answer> {
  const question = {};
  return (program) => answersTo(program, question) as Map<Key, Answer>;
}

/**
 * A question about a file as a whole (what its text spells; keyed by its SourceCode or the root of its syntax tree) or
 * a program as a whole, worked out for the first rule that asks.
 */
export function once<Owner extends SourceCode | TSESTree.Program | ts.Program, Answer extends Remembered>(
  work: (owner: Owner) => Answer,
): (owner: Owner) => Answer {
  const question = {};
  return (owner) => {
    const known = answersTo(owner, question) as Map<Owner, Answer>;
    return known.get(owner) ?? remember(known, owner, work(owner));
  };
}

/** Any value `??` keeps: a remembered `undefined` or `null` would read as "not asked yet" and be worked out each time. */
type Remembered = object | string | number | bigint | boolean | symbol;

/**
 * Keeps `answer` under `key` and returns it: the work runs only when the question is new, and a question asked again
 * costs one lookup, with no closure made, as the rules' hot paths need. The map alone sets the answer's type, so
 * `new Map()` or an object literal as the answer takes the map's.
 */
export function remember<K, V extends Remembered>(
  answers: { set(key: K, value: V): unknown },
  key: K,
  answer: NoInfer<V>,
): V {
  answers.set(key, answer);
  return answer;
}
