import { findImplementersSyntactically, type AstNode } from './find-implementers-syntactically.js';
import { membersAdded } from './member-text.js';
import { decideUpgrades } from './shape-decision.js';
import { upgradeFileText } from './upgrade-file-text.js';

/** The part of jscodeshift's file argument the transform reads. */
export interface TransformFile {
  readonly path: string;
  readonly source: string;
}

/** The part of jscodeshift's API the transform uses: the parser factory, and `report` for skipped implementers. */
export interface TransformApi {
  readonly jscodeshift: {
    withParser(parser: string): (source: string, options?: { tabWidth?: number }) => { get(): { node: AstNode } };
  };
  readonly report?: (message: string) => void;
  readonly stats?: (name: string, quantity?: number) => void;
}

const BOM = '\uFEFF';

/**
 * The add-write-conditions recipe as a jscodeshift transform: `npx jscodeshift -t
 * node_modules/checkpoint-fencing/dist/recipes/add-write-conditions/jscodeshift.js --parser=ts src`. It decides and
 * writes exactly what the CLI does (same shape decision, same member text), but finds implementers syntactically.
 * `.tsx` and `.jsx` files are always parsed with JSX enabled, whatever `--parser` says. Returns the new source, or
 * `undefined` when the file needs nothing.
 */
export default function addWriteConditions(file: TransformFile, api: TransformApi): string | undefined {
  if (
    /(?:^|[\\/])(?:node_modules|dist)[\\/]|\.d\.[mc]?ts$/.test(file.path) ||
    !file.source.includes('CheckpointStorage')
  ) {
    return undefined;
  }
  const bom = file.source.startsWith(BOM) ? BOM : '';
  const text = file.source.slice(bom.length);
  const parser = /\.[jt]sx$/.test(file.path) ? 'tsx' : 'ts';
  // recast expands tabs to `tabWidth` columns when it computes offsets; at 1 a tab stays one character.
  const root = api.jscodeshift.withParser(parser)(text, { tabWidth: 1 }).get().node;
  alignOffsets(root, text);
  const program = root['program'];
  if (!isAstNode(program)) {
    throw new Error(`${file.path}: the parser returned no program; pass --parser=ts (or tsx) to jscodeshift.`);
  }
  const typescript = /\.[mc]?tsx?$/.test(file.path);
  const facts = findImplementersSyntactically(program, text, file.path, typescript);
  const decisions = decideUpgrades(facts.implementers);
  for (const decision of decisions) {
    if (decision.skipReason !== undefined) {
      api.report?.(`skipped ${decision.implementer.name} (line ${decision.implementer.line}): ${decision.skipReason}`);
    } else if (membersAdded(decision).length > 0) {
      api.stats?.(`${decision.saveShape} shape`);
    }
  }
  const upgraded = upgradeFileText(text, decisions, facts.imports);
  return upgraded === text ? undefined : bom + upgraded;
}

function isAstNode(value: unknown): value is AstNode {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

/**
 * jscodeshift parses through recast, which reports offsets in the text with CRLF line endings folded to LF. Moves
 * every node's and comment's offsets back onto the original text, so that edits keep each `\r` where it was.
 */
function alignOffsets(root: AstNode, text: string): void {
  const crlfAt: number[] = [];
  for (let index = text.indexOf('\r\n'); index !== -1; index = text.indexOf('\r\n', index + 2)) {
    crlfAt.push(index - crlfAt.length);
  }
  if (crlfAt.length === 0 || root.end === text.length) {
    return;
  }
  const original = (offset: number): number => {
    let low = 0;
    let high = crlfAt.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((crlfAt[middle] ?? 0) < offset) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    return offset + low;
  };
  const seen = new Set<object>();
  const visit = (value: unknown): void => {
    if (typeof value !== 'object' || value === null || seen.has(value)) {
      return;
    }
    seen.add(value);
    if (Array.isArray(value)) {
      value.forEach(visit);
      return;
    }
    const positioned = value as { start?: unknown; end?: unknown };
    if (isAstNode(value) && typeof positioned.start === 'number' && typeof positioned.end === 'number') {
      positioned.start = original(positioned.start);
      positioned.end = original(positioned.end);
    }
    for (const [key, child] of Object.entries(value)) {
      if (key !== 'loc' && key !== 'tokens') {
        visit(child);
      }
    }
  };
  visit(root);
}
