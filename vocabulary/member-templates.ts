import { CONDITION_TYPE, PACKAGE_NAME } from './names.js';
import { columns, lineAt, lineIndent, type SourceStyle } from './source-style.js';

// The text the recipe writes, in one canonical layout: two spaces a level, single quotes, semicolons, `{{name}}`
// holes. {@link fillTemplate} turns it into the file's own layout. A hole filled with a list (parameters, imported
// names) stays on its line when that fits the width, and is broken one item a line otherwise, as Prettier does.
// The codemod and the lint plugin's editor fix both compile this module in, so its types are structural: no ts-morph,
// no step's data.

const GUARD = `if ({{condition}} !== undefined && {{condition}}.kind !== 'any') {
  {{refusal}};
}`;

const INDENTED_GUARD = GUARD.replace(/^/gm, '  ');

const METHOD_HEAD = '{{modifiers}}{{async}}save{{typeParameters}}({{parameters}}){{returnType}} {';

const DELEGATING_BODY = `
${INDENTED_GUARD}
  return {{target}}({{id}}, {{checkpoint}});
}{{end}}`;

/** Templates of the members and imports the recipe adds. */
export const TEMPLATES = {
  /** The refusal of every condition but `any()`, first in a `save` that takes the condition in place. */
  guard: GUARD,
  /** An expression body (`=> rows.get(id)`) or one-line block made a block whose statements follow the refusal. */
  bodyBlock: `{
${INDENTED_GUARD}
  {{statements}}
}`,
  /** A `save` of each member kind that refuses every condition but `any()` and sends the rest to `target`. */
  delegatingSave: {
    method: METHOD_HEAD + DELEGATING_BODY,
    'arrow-field': `{{modifiers}}save = {{async}}{{typeParameters}}({{parameters}}){{returnType}} => {${DELEGATING_BODY}`,
    'function-field': `{{modifiers}}save = {{async}}function {{typeParameters}}({{parameters}}){{returnType}} {${DELEGATING_BODY}`,
  },
  /** A `save` that refuses every write: there is no unconditional write to send it to. */
  refusingSave: `${METHOD_HEAD}
  return Promise.reject(new {{error}}({{condition}}));
}`,
  /** In JavaScript, the JSDoc that types a generated `save` as TypeScript would, so `checkJs` accepts it. */
  saveJsDoc: `/**
 * @param {{{idType}}} {{id}}
 * @param {{{checkpointType}}} {{checkpoint}}
 * @param {import('${PACKAGE_NAME}').${CONDITION_TYPE}} {{conditionName}}
 * @returns {{{resultType}}}
 */`,
  /** `writeVersion` storing none: not `async`, no unread id, so it passes `require-await` and `no-unused-vars`. */
  writeVersion: `{{modifiers}}writeVersion(){{returnType}} {
  return Promise.resolve(undefined);
}`,
  /** The same as an arrow-function field or property; the second form when the first is too wide. */
  arrowWriteVersion: [
    '{{modifiers}}writeVersion{{assign}} (){{returnType}} => Promise.resolve(undefined){{end}}',
    '{{modifiers}}writeVersion{{assign}} (){{returnType}} =>\n  Promise.resolve(undefined){{end}}',
  ],
  valueImport: `import {{{names}}} from '${PACKAGE_NAME}';`,
  requireImport: `const {{{names}}} = require('${PACKAGE_NAME}');`,
  /** For a TypeScript file in CommonJS syntax, where `import { … }` is not allowed under `verbatimModuleSyntax`. */
  namespaceImport: `import {{namespace}} = require('${PACKAGE_NAME}');`,
} as const;

/** A path in the installed package, not a versioned URL, so upgraded code does not change with releases. */
export const MARKER_DOC_POINTER = `${PACKAGE_NAME}/README.md#evaluating-conditions-atomically`;

/** The marker of one upgraded implementer: what generated code now does and the decision left; the caller wraps it. */
export function markerText({ saveShape, addWriteVersion }: { saveShape: string; addWriteVersion: boolean }): string {
  const done = [
    saveShape === 'refusing'
      ? 'save() now refuses every write, any() included, as this store had no save to send it to'
      : saveShape !== 'unchanged' && 'save() now refuses every write condition but any()',
    addWriteVersion && 'writeVersion() reports no version',
  ].filter((part) => part !== false);
  return (
    `TODO [${PACKAGE_NAME} upgrade] ${done.join(', and ')}. ` +
    'Keep that if this store cannot evaluate conditions; otherwise evaluate notOlderThan() and ifAbsent() ' +
    'atomically with the write and remove this TODO. ' +
    `How common stores do it: ${MARKER_DOC_POINTER}`
  );
}

/** The lines of `template` in `style` at `indent`, holes filled from `values`. */
export function fillTemplate(
  template: string,
  values: Readonly<Record<string, string | readonly string[]>>,
  indent: string,
  style: SourceStyle,
): string[] {
  return template.split('\n').flatMap((line) => {
    const levels = (/^(?: {2})*/.exec(line)?.[0].length ?? 0) / 2;
    const lead = indent + style.indentUnit.repeat(levels);
    let list: readonly string[] | undefined;
    const text = (style.semicolons ? line : line.replace(/;$/, ''))
      .slice(levels * 2)
      .replaceAll("'", style.quote)
      .replace(/\{\{(\w+)\}\}/g, (_hole, name: string) => {
        const value = values[name] ?? '';
        if (typeof value === 'string') {
          return value;
        }
        list = value;
        return '\0';
      });
    // A line that fills to nothing (an empty `{{statements}}`) is left out.
    return list !== undefined ? listLines(lead, text, list, style) : text === '' ? [] : [lead + text];
  });
}

/** `writeVersion` filled from `holes`: an arrow-function field or property when `arrow`, broken when too wide. */
export function writeVersionLines(holes: Record<string, string>, arrow: boolean, indent: string, style: SourceStyle) {
  const [single, broken] = arrow ? TEMPLATES.arrowWriteVersion : [TEMPLATES.writeVersion];
  const lines = fillTemplate(single, holes, indent, style);
  const fits = lines.every((line) => columns(line) <= style.width);
  return broken === undefined || fits ? lines : fillTemplate(broken, holes, indent, style);
}

/** A new import statement: after `anchor` or the file's last import, else after its directives, else first. */
export function newImportEdit(to: { at: number; after: string | undefined }, line: string, nl: string, at = to.at) {
  const after = at === to.at ? to.after : 'import';
  const text = after === 'import' ? nl + line : after === 'directive' ? nl + nl + line : line + nl + nl;
  return { start: at, end: at, text };
}

/** A line holding a bracketed list (at `\0`): on one line when it fits `width`, else one item a line. */
function listLines(lead: string, line: string, items: readonly string[], style: SourceStyle, width = style.width) {
  const at = line.indexOf('\0');
  const [before, after] = [line.slice(0, at), line.slice(at + 1)];
  const braces = before.endsWith('{');
  const space = braces && style.bracketSpacing ? ' ' : '';
  const single = `${lead}${before}${space}${items.join(', ')}${space}${after}`;
  if (items.length === 0 || columns(single) <= width) {
    return [single];
  }
  const trailingComma = braces ? style.trailingCommas : style.parameterTrailingCommas;
  return [
    lead + before,
    ...items.map(
      (item, index) => `${lead}${style.indentUnit}${item}${index < items.length - 1 || trailingComma ? ',' : ''}`,
    ),
    lead + after,
  ];
}

/**
 * Adds `added` after the `items` of the list bracketed at `open` and `close`, as Prettier would: on lines of their own
 * in a broken list; else on its line while it fits (up to `lineEnd`, `wider` by other edits); else the list broken.
 */
export function listEdits(
  source: string,
  style: SourceStyle,
  [open, close]: readonly [number, number],
  items: readonly { readonly end: number; getText(): string }[],
  added: readonly string[],
  { lineEnd = Infinity, wider = 0 }: { lineEnd?: number | undefined; wider?: number } = {},
): { start: number; end: number; text: string }[] {
  const last = items.at(-1);
  const comma = last === undefined ? '' : (/^\s*,/.exec(source.slice(last.end))?.[0] ?? '');
  const at = last === undefined ? open + 1 : last.end + comma.length;
  const alreadyBroken = last !== undefined && source.slice(open, close).includes('\n');
  if (added.length === 0 && (wider === 0 || alreadyBroken || last === undefined)) {
    return [];
  }
  if (alreadyBroken) {
    const lines = added.map((item) => `${style.newline}${lineIndent(source, at - 1)}${item}`).join(',');
    return [{ start: at, end: at, text: `${comma === '' ? ',' : ''}${lines}${comma === '' ? '' : ','}` }];
  }
  const inserted = added.length === 0 ? '' : `${comma !== '' ? ' ' : last ? ', ' : ''}${added.join(', ')}`;
  const line = lineAt(source, at).slice(0, lineEnd - source.lastIndexOf('\n', at - 1) - 1);
  if (columns(line + inserted) + wider <= style.width) {
    return inserted === '' ? [] : [{ start: at, end: at, text: inserted }];
  }
  const indent = lineIndent(source, open);
  const all = [...items.map((item) => item.getText()), ...added];
  const broken = listLines(indent, `${source[open]}\0${source[close]}`, all, style, 0);
  return [{ start: open, end: close + 1, text: broken.join(style.newline).slice(indent.length) }];
}

/** `text` as `//` comment lines that fit the file's width; a word longer than a line (a path) gets a line of its own. */
export function commentLines(indent: string, text: string, style: SourceStyle): string[] {
  const room = style.width - columns(`${indent}// `);
  return [...text.matchAll(new RegExp(`(.{1,${room}}|\\S+)(?: |$)`, 'g'))].map((line) => `${indent}// ${line[1]}`);
}
