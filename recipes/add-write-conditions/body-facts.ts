import type { BodyFacts } from './implementer-facts.js';
import { lineIndent } from './line-layout.js';

/** Offsets into a file's text of a class body or object literal, as the fact reader finds them. */
export interface BodyOffsets {
  readonly containerStart: number;
  readonly openBrace: number;
  readonly closeBrace: number;
  readonly firstMemberStart: number | undefined;
  readonly lastMemberEnd: number | undefined;
}

/** Where new members go and how they are indented, worked out from the original text alone. */
export function bodyFacts(offsets: BodyOffsets, text: string, literal: boolean): BodyFacts {
  const { openBrace, closeBrace, firstMemberStart } = offsets;
  let { lastMemberEnd } = offsets;
  let lastMemberHasComma = false;
  if (literal && lastMemberEnd !== undefined) {
    const comma = /^\s*,/.exec(text.slice(lastMemberEnd, closeBrace));
    if (comma !== null) {
      lastMemberHasComma = true;
      lastMemberEnd += comma[0].length;
    }
  }
  return {
    openBrace,
    closeBrace,
    lastMemberEnd,
    lastMemberHasComma,
    memberIndent: firstMemberStart === undefined ? '' : lineIndent(text, firstMemberStart),
    outerIndent: lineIndent(text, offsets.containerStart),
  };
}
