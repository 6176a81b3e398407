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
export function spelledNamesPattern(names: Iterable<string>): RegExp {
  return new RegExp(`${[...names].join('|')}|${ESCAPE_THAT_MAY_SPELL_A_LETTER}`, 'u');
}
