/** The targets of a Markdown text's inline links and images (`[text](target)`) and link definitions (`[x]: target`). */
export function markdownLinks(markdown: string): string[] {
  const prose = markdown.replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1[ \t]*$/gmu, '');
  return [
    ...[...prose.matchAll(/\]\(\s*<?([^\s)>]+)>?(?:\s+"[^"]*")?\s*\)/gu)].map((match) => match[1] ?? ''),
    ...[...prose.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gmu)].map((match) => match[1] ?? ''),
  ];
}

/** A fenced code block of a Markdown text. */
export interface FencedCodeBlock {
  /** The block's text, without its fences. */
  readonly code: string;
  /** The line of the text, from 1, where the code starts (the line after the opening fence). */
  readonly line: number;
}

/** The fenced code blocks of a Markdown text whose info string names `language` (```ts). */
export function fencedCodeBlocks(markdown: string, language: string): FencedCodeBlock[] {
  return [...markdown.matchAll(/^```([^\n]*)\n([\s\S]*?)^```[ \t]*$/gmu)]
    .filter((match) => (match[1] ?? '').trim().split(/\s+/u)[0] === language)
    .map((match) => ({
      code: match[2] ?? '',
      line: markdown.slice(0, match.index).split('\n').length + 1,
    }));
}
