import { PACKAGE_NAME } from '../../vocabulary/index.js';
import { CONDITION_TYPE, type GeneratedNames } from './import-plan.js';
import type { ImplementerFacts, SaveFacts } from './implementer-facts.js';
import { commentLines, lineAt, lineIndent, listLines } from './line-layout.js';
import type { UpgradeDecision } from './shape-decision.js';
import { columns, type SourceStyle } from './source-style.js';
import type { TextEdit } from './text-edit.js';
import { markerText } from './upgrade-marker.js';

/** Everything the text of a member depends on besides the decision. */
export interface MemberTextContext {
  readonly source: string;
  readonly style: SourceStyle;
  readonly names: GeneratedNames;
  /** Whether to write type annotations (TypeScript) or leave them out (JavaScript). */
  readonly typescript: boolean;
}

/** The parameter names generated members use: those the implementer already uses, or the interface's. */
interface Naming {
  readonly id: string;
  readonly checkpoint: string;
  readonly condition: string;
  readonly idType: string;
  readonly checkpointType: string;
}

/** The members a decision adds, by name, for reports. */
export function membersAdded(decision: UpgradeDecision): string[] {
  const added: string[] = [];
  if (decision.saveShape === 'delegating' || decision.saveShape === 'inherited' || decision.saveShape === 'refusing') {
    added.push('save');
  }
  if (decision.addWriteVersion) {
    added.push('writeVersion');
  }
  return added;
}

/** Whether the members a decision writes spell out the condition's type (and so need it imported). */
export function writesConditionType(decision: UpgradeDecision, typescript: boolean): boolean {
  if (!typescript || decision.skipReason !== undefined) {
    return false;
  }
  switch (decision.saveShape) {
    case 'delegating':
      return decision.implementer.kind === 'class' || typedParameters(decision.implementer.ownSave);
    case 'inherited':
    case 'refusing':
      return true;
    case 'follows-base':
    case 'unchanged':
      return false;
  }
}

/** Whether the members a decision writes throw or reject with `UnsupportedWriteConditionError`. */
export function writesRefusal(decision: UpgradeDecision): boolean {
  return (
    decision.skipReason === undefined &&
    (decision.saveShape === 'delegating' || decision.saveShape === 'inherited' || decision.saveShape === 'refusing')
  );
}

/**
 * The text edits that carry out one decision: the marker, renames of the existing unconditional write, the new or
 * extended `save`, the new `writeVersion`. Everything else in the file stays byte for byte. A generated member keeps
 * the kind of the member it stands beside: an arrow-function field stays an arrow-function field, an async `save`
 * stays async, and parameters keep the names the implementer already uses.
 */
export function memberEdits(decision: UpgradeDecision, context: MemberTextContext): TextEdit[] {
  if (decision.skipReason !== undefined) {
    return [];
  }
  const implementer = decision.implementer;
  // A `super.save` that meant the base's unconditional write keeps reaching it under its new name.
  const superRenames = implementer.superSaveNames.flatMap((range) =>
    decision.superSaveRename === undefined ? [] : [{ ...range, text: decision.superSaveRename }],
  );
  if (!changes(decision)) {
    return superRenames;
  }
  const { style } = context;
  const indent = memberIndent(implementer, style);
  const naming = namingOf(implementer);
  const edits: TextEdit[] = [...superRenames];
  const appended: string[][] = [];
  const save = implementer.ownSave;
  const marker = commentLines(indent, markerText(decision), style);
  const markerAbove = (offset: number): TextEdit => ({
    start: offset,
    end: offset,
    text: [...marker.map((line, index) => (index === 0 ? line.slice(indent.length) : line)), indent].join(
      style.newline,
    ),
  });

  switch (decision.saveShape) {
    case 'delegating': {
      if (save === undefined) {
        throw new Error(
          `add-write-conditions: ${implementer.name} was given the delegating shape without a save of its own; this is a bug.`,
        );
      }
      edits.push(markerAbove(save.commentsStart));
      if (implementer.kind === 'object-literal' || decision.unconditionalSaveName === undefined) {
        edits.push(...conditionInPlace(save, decision, naming, context));
      } else {
        edits.push(...renameEdits(save, decision.unconditionalSaveName, context));
        // The generated save takes over the public name, so it takes over what is keyed on it too.
        if (save.decorators !== undefined) {
          edits.push({ ...save.decorators, text: '' });
        }
        // The new name overrides nothing; the generated save overrides what the old one did.
        if (save.overrideKeyword !== undefined) {
          edits.push({ ...save.overrideKeyword, text: '' });
        }
        edits.push({
          start: save.end,
          end: save.end,
          text:
            separator(implementer, context) +
            delegatingSave(indent, decision, save, naming, context, `this.${decision.unconditionalSaveName}`).join(
              style.newline,
            ),
        });
      }
      break;
    }
    case 'follows-base':
      if (save === undefined || decision.unconditionalSaveName === undefined) {
        throw new Error(
          `add-write-conditions: ${implementer.name} follows its base without a save of its own; this is a bug.`,
        );
      }
      edits.push(markerAbove(save.commentsStart), ...renameEdits(save, decision.unconditionalSaveName, context));
      break;
    case 'inherited':
      appended.push(delegatingSave(indent, decision, undefined, naming, context, 'super.save'));
      break;
    case 'refusing':
      appended.push(refusingSave(indent, implementer, naming, context));
      break;
    case 'unchanged':
      break;
  }
  if (decision.addWriteVersion) {
    appended.push(writeVersion(indent, implementer, context));
  }
  const [first, ...rest] = appended;
  if (first !== undefined) {
    const markerFirst = edits.length === superRenames.length ? [[...marker, ...first], ...rest] : appended;
    edits.push(appendMembers(implementer, markerFirst, context));
  }
  return edits;
}

function changes(decision: UpgradeDecision): boolean {
  return decision.saveShape !== 'unchanged' || decision.addWriteVersion;
}

function memberIndent(implementer: ImplementerFacts, style: SourceStyle): string {
  return implementer.body.memberIndent !== ''
    ? implementer.body.memberIndent
    : implementer.body.outerIndent + style.indentUnit;
}

function namingOf(implementer: ImplementerFacts): Naming {
  const [first, second] = implementer.ownSave?.parameters ?? [];
  const id = first?.name ?? implementer.idParameterName ?? 'subscriptionId';
  const checkpoint = second?.name ?? 'checkpoint';
  return {
    id,
    checkpoint,
    condition: id === 'condition' || checkpoint === 'condition' ? 'writeCondition' : 'condition',
    idType: first?.type ?? 'string',
    checkpointType: second?.type ?? 'string',
  };
}

/** `_name` for a parameter the generated body never reads. */
function unused(name: string): string {
  return `_${name.replace(/^_+/, '')}`;
}

function typedParameters(save: SaveFacts | undefined): boolean {
  return (
    save === undefined ||
    save.parameters.length === 0 ||
    save.parameters.some((parameter) => parameter.type !== undefined)
  );
}

/** A blank line between members when the body already separates its members that way. */
function separator(implementer: ImplementerFacts, context: MemberTextContext): string {
  const body = context.source.slice(implementer.body.openBrace, implementer.body.closeBrace);
  const blank = /\n[ \t]*\r?\n/.test(body) || implementer.body.lastMemberEnd === undefined;
  return blank ? context.style.newline + context.style.newline : context.style.newline;
}

/**
 * Renames the member. A signature the longer name pushes past the width has its parameters broken one a line, as
 * Prettier would, every parameter (a `this` parameter included) as written.
 */
function renameEdits(save: SaveFacts, name: string, context: MemberTextContext): TextEdit[] {
  const { source, style } = context;
  const edits: TextEdit[] = [{ start: save.nameStart, end: save.nameEnd, text: name }];
  const list = save.parameterList;
  const line = lineAt(source, save.nameStart);
  const renamedWidth = columns(line) + name.length - (save.nameEnd - save.nameStart);
  const written = writtenParameters(save);
  if (
    list?.open !== undefined &&
    written.length > 0 &&
    renamedWidth > style.width &&
    !source.slice(save.nameStart, list.close).includes('\n')
  ) {
    const indent = lineIndent(source, save.nameStart);
    const parameters = written.map((parameter) => `${style.newline}${indent}${style.indentUnit}${parameter}`);
    edits.push({
      start: list.open,
      end: list.close + 1,
      text: `(${parameters.join(',')}${style.parameterTrailingCommas ? ',' : ''}${style.newline}${indent})`,
    });
  }
  return edits;
}

/** The parameters as written, a `this` parameter first when there is one. */
function writtenParameters(save: SaveFacts): string[] {
  return [...(save.thisParameter === undefined ? [] : [save.thisParameter]), ...save.parameters.map((p) => p.text)];
}

function statement(text: string, context: MemberTextContext): string {
  return context.style.semicolons ? `${text};` : text;
}

/** The refusal of every condition but `any()`: thrown in an async function, returned as a rejection otherwise. */
function guard(bodyIndent: string, condition: string, isAsync: boolean, context: MemberTextContext): string[] {
  const { quote, indentUnit } = context.style;
  const error = `new ${context.names.unsupportedError}(${condition})`;
  return [
    `${bodyIndent}if (${condition} !== undefined && ${condition}.kind !== ${quote}any${quote}) {`,
    `${bodyIndent}${indentUnit}${statement(isAsync ? `throw ${error}` : `return Promise.reject(${error})`, context)}`,
    `${bodyIndent}}`,
  ];
}

function conditionParameter(name: string, optional: boolean, typed: boolean, context: MemberTextContext): string {
  if (!context.typescript) {
    return name;
  }
  const mark = optional ? '?' : '';
  return typed ? `${name}${mark}: ${context.names.conditionType ?? 'unknown'}` : `${name}${mark}`;
}

function typedParameter(name: string, type: string, context: MemberTextContext): string {
  return context.typescript ? `${name}: ${type}` : name;
}

/**
 * A `save(id, checkpoint, condition?)` that refuses every condition but `any()` and sends the rest (the two-argument
 * call included) to `target`, written as the member the decision asks for (a method, or an arrow or function field),
 * with the type parameters, `this` parameter, modifiers and decorators of `like`, the member it stands beside.
 */
function delegatingSave(
  indent: string,
  decision: UpgradeDecision,
  like: SaveFacts | undefined,
  naming: Naming,
  context: MemberTextContext,
  target: string,
): string[] {
  const { style, typescript } = context;
  const unit = style.indentUnit;
  const isAsync = decision.saveIsAsync;
  const kind = decision.saveMember;
  const returnType = typescript ? `: ${like?.returnType ?? 'Promise<string>'}` : '';
  const accessibility = like === undefined && decision.implementer.explicitlyPublic ? 'public ' : '';
  const modifiers = `${accessibility}${like?.modifiers ?? ''}${decision.saveOverrides && typescript ? 'override ' : ''}`;
  const typeParameters = like?.typeParameters ?? '';
  // An arrow function has no `this` of its own to declare.
  const thisParameter = kind === 'arrow-field' ? undefined : like?.thisParameter;
  const parameters = [
    ...(thisParameter === undefined ? [] : [thisParameter]),
    typedParameter(naming.id, naming.idType, context),
    typedParameter(naming.checkpoint, naming.checkpointType, context),
    conditionParameter(naming.condition, true, true, context),
  ];
  const body = [
    ...guard(indent + unit, naming.condition, isAsync, context),
    `${indent}${unit}${statement(`return ${target}(${naming.id}, ${naming.checkpoint})`, context)}`,
  ];
  const async = isAsync ? 'async ' : '';
  const fieldTerminator =
    like?.form === 'property' ? (context.source[like.end - 1] === ';' ? ';' : '') : style.semicolons ? ';' : '';
  const { lines: decoratorLines, inline } = movedDecorators(indent, like, context);
  const head =
    kind === 'arrow-field'
      ? {
          head: `${inline}${modifiers}save = ${async}${typeParameters}`,
          tail: `${returnType} => {`,
          end: fieldTerminator,
        }
      : kind === 'function-field'
        ? {
            head: `${inline}${modifiers}save = ${async}function ${typeParameters}`,
            tail: `${returnType} {`,
            end: fieldTerminator,
          }
        : { head: `${inline}${modifiers}${async}save${typeParameters}`, tail: `${returnType} {`, end: '' };
  return [
    ...jsDocOfSave(indent, like, [naming.id, naming.checkpoint], naming.condition, true, context),
    ...decoratorLines,
    ...listLines({ indent, head: head.head, items: parameters, tail: head.tail, brackets: '()' }, style),
    ...body,
    `${indent}}${head.end}`,
  ];
}

/**
 * The decorators of `like`, as written, for the generated `save` that takes over its name: lines of their own, or,
 * when they stood on the member's line, a prefix of the generated head.
 */
function movedDecorators(
  indent: string,
  like: SaveFacts | undefined,
  context: MemberTextContext,
): { lines: string[]; inline: string } {
  if (like?.decorators === undefined) {
    return { lines: [], inline: '' };
  }
  const moved = context.source.slice(like.decorators.start, like.decorators.end);
  const lastBreak = moved.lastIndexOf('\n');
  if (lastBreak === -1) {
    return { lines: [], inline: moved };
  }
  const lines = moved.slice(0, lastBreak).replace(/\r$/, '').split(/\r?\n/);
  return { lines: lines.map((line, index) => (index === 0 ? `${indent}${line}` : line)), inline: '' };
}

/**
 * In JavaScript, the JSDoc that types a generated `save` the way TypeScript types it (so `checkJs` with `strict`
 * accepts it): the parameter types of the `save` it stands beside, where its JSDoc gives them, else `string`.
 */
function jsDocOfSave(
  indent: string,
  like: SaveFacts | undefined,
  names: readonly [string, string],
  condition: string,
  optionalCondition: boolean,
  context: MemberTextContext,
): string[] {
  if (context.typescript) {
    return [];
  }
  const { quote } = context.style;
  const conditionType = `import(${quote}${PACKAGE_NAME}${quote}).${CONDITION_TYPE}`;
  const parameter = (index: number): string => like?.parameters[index]?.jsDocType ?? 'string';
  return [
    `${indent}/**`,
    `${indent} * @param {${parameter(0)}} ${names[0]}`,
    `${indent} * @param {${parameter(1)}} ${names[1]}`,
    `${indent} * @param {${conditionType}} ${optionalCondition ? `[${condition}]` : condition}`,
    `${indent} * @returns {${like?.jsDocReturnType ?? 'Promise<string>'}}`,
    `${indent} */`,
  ];
}

/** A `save` that refuses every write, `any()` included: there is no unconditional write to send it to. */
function refusingSave(
  indent: string,
  implementer: ImplementerFacts,
  naming: Naming,
  context: MemberTextContext,
): string[] {
  const { style, typescript } = context;
  const names = [unused(naming.id), unused(naming.checkpoint)] as const;
  const parameters = [
    typedParameter(names[0], naming.idType, context),
    typedParameter(names[1], naming.checkpointType, context),
    conditionParameter(naming.condition, false, true, context),
  ];
  const head = `${implementer.explicitlyPublic ? 'public ' : ''}save`;
  return [
    ...jsDocOfSave(indent, undefined, names, naming.condition, false, context),
    ...listLines(
      { indent, head, items: parameters, tail: `${typescript ? ': Promise<string>' : ''} {`, brackets: '()' },
      style,
    ),
    `${indent}${style.indentUnit}${statement(`return Promise.reject(new ${context.names.unsupportedError}(${naming.condition}))`, context)}`,
    `${indent}}`,
  ];
}

/**
 * `writeVersion` answering that no version is stored. Not `async`, so it passes `require-await`; without the id
 * parameter it would not read, so it passes `no-unused-vars` under any options (the interface's parameter is
 * optional to an implementation). An arrow-function field or property when the implementer writes its `save` that way.
 */
function writeVersion(indent: string, implementer: ImplementerFacts, context: MemberTextContext): string[] {
  const { style, typescript } = context;
  const save = implementer.ownSave;
  const literal = implementer.kind === 'object-literal';
  const returnType = typescript && (!literal || typedParameters(save)) ? ': Promise<bigint | undefined>' : '';
  const result = 'Promise.resolve(undefined)';
  const accessibility = implementer.explicitlyPublic ? 'public ' : '';
  if (save?.functionKind === 'arrow' && save.form === 'property') {
    const terminator = !literal && context.source[save.end - 1] === ';' ? ';' : '';
    const head = `${indent}${accessibility}writeVersion${literal ? ':' : ' ='} ()${returnType} =>`;
    // Too long for one line: break after the arrow, as Prettier does.
    const single = `${head} ${result}${terminator}`;
    return columns(single) <= style.width ? [single] : [head, `${indent}${style.indentUnit}${result}${terminator}`];
  }
  return [
    `${indent}${accessibility}writeVersion()${returnType} {`,
    `${indent}${style.indentUnit}${statement(`return ${result}`, context)}`,
    `${indent}}`,
  ];
}

/**
 * An object literal cannot gain a renamed member (a typed literal rejects unknown properties), so its `save` takes
 * the condition in place: a third parameter and the refusal as its first statement, the rest of it untouched. Its
 * kind (method, arrow, function), `async`, `this` and parameter names stay as they were.
 */
function conditionInPlace(
  save: SaveFacts,
  decision: UpgradeDecision,
  naming: Naming,
  context: MemberTextContext,
): TextEdit[] {
  const { source, style } = context;
  const list = save.parameterList;
  const body = save.body;
  if (list === undefined || body === undefined) {
    throw new Error(
      `add-write-conditions: ${decision.implementer.name} has a save without parameters or body to extend; this is a bug.`,
    );
  }
  const nl = style.newline;
  const unit = style.indentUnit;
  const typed = typedParameters(save);
  const padding = [
    ...(save.parameterCount < 1
      ? [typed ? typedParameter(unused(naming.id), 'string', context) : unused(naming.id)]
      : []),
    ...(save.parameterCount < 2
      ? [typed ? typedParameter(unused(naming.checkpoint), 'string', context) : unused(naming.checkpoint)]
      : []),
  ];
  const added = [...padding, conditionParameter(naming.condition, true, typed, context)];
  const edits: TextEdit[] = [];
  const headIndent = lineIndent(source, save.start);

  if (list.open === undefined) {
    const single = source.slice(list.firstParameterStart ?? list.close, list.close);
    edits.push({
      start: list.firstParameterStart ?? list.close,
      end: list.close,
      text: `(${[single, ...added].join(', ')})`,
    });
  } else if (source.slice(list.open, list.close).includes('\n') && list.lastParameterEnd !== undefined) {
    const parameterIndent = lineIndent(source, list.lastParameterEnd - 1);
    edits.push({
      start: list.lastParameterEnd,
      end: list.lastParameterEnd,
      text: `${list.trailingComma ? '' : ','}${added.map((parameter) => `${nl}${parameterIndent}${parameter}`).join(',')}${list.trailingComma ? ',' : ''}`,
    });
  } else {
    const existing = writtenParameters(save);
    const at = list.lastParameterEnd ?? list.open + 1;
    const inserted = `${list.trailingComma ? ' ' : existing.length > 0 ? ', ' : ''}${added.join(', ')}`;
    const lineStart = source.lastIndexOf('\n', at - 1) + 1;
    const fullLine = lineAt(source, at);
    // A body on the same line as the head moves below the refusal (see below), so only the head has to fit.
    const line =
      body.kind === 'block' && !source.slice(body.open + 1, body.close).includes('\n')
        ? fullLine.slice(0, Math.max(0, body.open + 1 - lineStart))
        : fullLine;
    if (columns(line.slice(0, at - lineStart) + inserted + line.slice(at - lineStart)) <= style.width) {
      edits.push({ start: at, end: at, text: inserted });
    } else {
      const all = [...existing, ...added];
      edits.push({
        start: list.open,
        end: list.close + 1,
        text: `(${all.map((parameter) => `${nl}${headIndent}${unit}${parameter}`).join(',')}${style.parameterTrailingCommas ? ',' : ''}${nl}${headIndent})`,
      });
    }
  }

  if (body.kind === 'block') {
    const inside = source.slice(body.open + 1, body.close);
    const bodyIndent = /\r?\n([ \t]*)\S/.exec(inside)?.[1] ?? headIndent + unit;
    const refusal = guard(bodyIndent, naming.condition, save.isAsync, context).join(nl);
    if (inside.trim() === '') {
      edits.push({ start: body.open + 1, end: body.open + 1, text: `${nl}${refusal}${nl}${headIndent}` });
    } else if (!inside.includes('\n')) {
      // A body on one line (`{ rows.set(id, cp); return cp; }`) gets its statements on a line of their own below the
      // refusal, and its brace on the next, rather than statements trailing the refusal's closing brace.
      edits.push({
        start: body.open + 1,
        end: body.close,
        text: `${nl}${refusal}${nl}${bodyIndent}${inside.trim()}${nl}${headIndent}`,
      });
    } else {
      edits.push({ start: body.open + 1, end: body.open + 1, text: `${nl}${refusal}` });
    }
  } else {
    const bodyIndent = headIndent + unit;
    edits.push({
      start: body.start,
      end: body.end,
      text: [
        '{',
        ...guard(bodyIndent, naming.condition, save.isAsync, context),
        `${bodyIndent}${statement(`return ${source.slice(body.start, body.end)}`, context)}`,
        `${headIndent}}`,
      ].join(nl),
    });
  }
  return edits;
}

function appendMembers(
  implementer: ImplementerFacts,
  members: readonly (readonly string[])[],
  context: MemberTextContext,
): TextEdit {
  const { body } = implementer;
  const newline = context.style.newline;
  const gap = separator(implementer, context);
  const texts = members.map((lines) => lines.join(newline));
  if (implementer.kind === 'object-literal') {
    const joined = texts.join(`,${gap}`);
    if (body.lastMemberEnd === undefined) {
      return {
        start: body.openBrace + 1,
        end: body.openBrace + 1,
        text: `${newline}${joined},${newline}${body.outerIndent}`,
      };
    }
    const text = body.lastMemberHasComma ? `${gap}${joined},` : `,${gap}${joined}`;
    return { start: body.lastMemberEnd, end: body.lastMemberEnd, text };
  }
  if (body.lastMemberEnd === undefined) {
    return {
      start: body.openBrace + 1,
      end: body.openBrace + 1,
      text: `${newline}${texts.join(gap)}${newline}${body.outerIndent}`,
    };
  }
  return { start: body.lastMemberEnd, end: body.lastMemberEnd, text: gap + texts.join(gap) };
}
