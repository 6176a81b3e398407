import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fencedCodeBlocks } from '../support/markdown.js';

/** Where the rule docs live: doc/rules/<rule>.md. */
export const ruleDocsDirectory = path.resolve(import.meta.dirname, '../../doc/rules');

/** The rule names that have a doc. */
export function documentedRuleNames(): string[] {
  return readdirSync(ruleDocsDirectory)
    .filter((file) => file.endsWith('.md'))
    .map((file) => file.slice(0, -'.md'.length))
    .sort();
}

/** The text of a rule's doc. */
export function ruleDoc(ruleName: string): string {
  return readFileSync(path.join(ruleDocsDirectory, `${ruleName}.md`), 'utf8');
}

/** The `## heading` sections of a doc, by heading. */
export function docSections(doc: string): Map<string, string> {
  const sections = new Map<string, string>();
  for (const part of doc.split(/^## /mu).slice(1)) {
    const newline = part.indexOf('\n');
    sections.set(part.slice(0, newline).trim(), part.slice(newline + 1));
  }
  return sections;
}

/** The ```ts code blocks of a section. */
export function codeBlocks(section: string): string[] {
  return fencedCodeBlocks(section, 'ts').map((block) => block.code);
}
