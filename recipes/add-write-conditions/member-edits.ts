import type { ts as Typescript } from 'ts-morph';
import { attachedCommentsStart, ts } from './typescript.js';
import {
  commentLines,
  fillTemplate,
  listEdits,
  markerText,
  TEMPLATES,
  writeVersionLines,
} from '../../vocabulary/member-templates.js';
import { lineIndent, type SourceStyle } from '../../vocabulary/source-style.js';
import type { FileFacts, SaveFacts, TextEdit, UpgradeDecision } from './upgrade-data.js';

/** The members a decision adds, by name, for reports. */
export function membersAdded(decision: UpgradeDecision): string[] {
  return [
    ...(['unchanged', 'follows-base'].includes(decision.saveShape) ? [] : ['save']),
    ...(decision.addWriteVersion ? ['writeVersion'] : []),
  ];
}

/** The edits that carry out one decision: marker, renames, new or extended `save`, `writeVersion`; nothing else. */
export function memberEdits(decision: UpgradeDecision, file: FileFacts, style: SourceStyle): TextEdit[] {
  const { implementer, saveShape, unconditionalSaveName: renamed, superSaveRename } = decision;
  if (decision.skipReason !== undefined) {
    return [];
  }
  // A `super.save` that meant the base's unconditional write keeps reaching it under its new name.
  const edits: TextEdit[] = (superSaveRename === undefined ? [] : implementer.superSaveNames).map((name) => {
    const quote = ts.isStringLiteralLike(name) ? 1 : 0;
    return { start: name.getStart() + quote, end: name.end - quote, text: superSaveRename ?? '' };
  });
  const save = implementer.ownSave;
  const writer = writerFor(decision, file, style);
  const { source, indent } = writer;
  const marker = commentLines(indent, markerText(decision), style);
  const editsSave = save !== undefined && !['unchanged', 'inherited', 'refusing'].includes(saveShape);
  if (editsSave) {
    const commentsStart = attachedCommentsStart(source, save.member);
    const above = [...marker, indent].join(style.newline).slice(indent.length);
    edits.push({ start: commentsStart, end: commentsStart, text: above });
    edits.push(...(renamed === undefined ? conditionInPlace(writer, save) : renameEdits(writer, save, renamed)));
  }
  if (editsSave && saveShape === 'delegating' && renamed !== undefined) {
    // The generated save takes over the public name, so it takes over what is keyed on it too; and the new name
    // overrides nothing, while the generated save overrides what the old one did.
    const overrides = modifiers(save).filter((modifier) => modifier.kind === ts.SyntaxKind.OverrideKeyword);
    edits.push(...tokens(source, modifiers(save).filter(ts.isDecorator)), ...tokens(source, overrides));
    const text = generatedSave(writer, save, `this.${renamed}`).join(style.newline);
    edits.push({ start: save.member.end, end: save.member.end, text: writer.gap + text });
  }
  const appended = [
    ...(saveShape === 'inherited' ? [generatedSave(writer, undefined, 'super.save')] : []),
    ...(saveShape === 'refusing' ? [generatedSave(writer, undefined, undefined)] : []),
    ...(decision.addWriteVersion ? [writeVersion(writer)] : []),
  ];
  // The marker goes above the first member the decision adds, unless it already stands above the edited `save`.
  appended[0]?.unshift(...(editsSave ? [] : marker));
  return appended.length === 0 ? edits : [...edits, appendMembers(writer, appended)];
}

/** One decision being written, with what its text depends on: the file, its style, names, indent and member gap. */
function writerFor(decision: UpgradeDecision, { text: source, imports }: FileFacts, style: SourceStyle) {
  const { names, typescript } = imports;
  const { node } = decision.implementer;
  const members = ts.isObjectLiteralExpression(node) ? node.properties : node.members;
  const memberIndent = members[0] === undefined ? '' : lineIndent(source, members[0].getStart());
  // A blank line between members when the body already separates its members that way.
  const blank = /\n[ \t]*\r?\n/.test(source.slice(members.pos, node.end)) || members.length === 0;
  const indent = memberIndent !== '' ? memberIndent : lineIndent(source, node.getStart()) + style.indentUnit;
  const gap = blank ? style.newline + style.newline : style.newline;
  // Generated members use the parameter names and types the implementer's `save` states, else the interface's.
  const parameters = decision.implementer.ownSave?.parameters ?? [];
  const [idName, checkpointName] = parameters.map(({ name }) => (ts.isIdentifier(name) ? name.text : undefined));
  // JavaScript states the types in JSDoc.
  const [idType = 'string', checkpointType = 'string'] = parameters.map((parameter) =>
    (typescript ? parameter.type : ts.getJSDocType(parameter))?.getText(),
  );
  const id = idName ?? decision.implementer.idParameterName ?? 'subscriptionId';
  const checkpoint = checkpointName ?? 'checkpoint';
  const condition = id === 'condition' || checkpoint === 'condition' ? 'writeCondition' : 'condition';
  const naming = { id, checkpoint, condition, idType, checkpointType };
  return { decision, source, style, names, typescript, members, indent, gap, naming };
}

type Writer = ReturnType<typeof writerFor>;

/** `;` after a generated field when the field `beside` ends in one, else when the file's statements do. */
function fieldEnd({ source, style }: Writer, beside: SaveFacts | undefined): string {
  const field =
    beside !== undefined && ['arrow', 'function'].includes(beside.form) && !ts.isConstructorDeclaration(beside.member);
  return (field ? source[beside.member.end - 1] === ';' : style.semicolons) ? ';' : '';
}

/** `_name` for a parameter the generated body never reads. */
function unused(name: string): string {
  return `_${name.replace(/^_+/, '')}`;
}

function typedParameters(save: SaveFacts | undefined): boolean {
  return save === undefined || save.parameters.length === 0 || save.parameters.some((p) => p.type !== undefined);
}

function modifiers(save: SaveFacts | undefined): readonly Typescript.ModifierLike[] {
  const member = save?.member;
  return member !== undefined && ts.canHaveModifiers(member) ? (member.modifiers ?? []) : [];
}

/** Deletes `nodes` and the whitespace after them. */
function tokens(text: string, nodes: readonly Typescript.Node[]): TextEdit[] {
  const [first, last] = [nodes[0], nodes.at(-1)];
  const end = last && last.end + (/^\s*/.exec(text.slice(last.end))?.[0].length ?? 0);
  return first && end !== undefined ? [{ start: first.getStart(), end, text: '' }] : [];
}

/** Renames the member; a signature the longer name pushes past the width has its parameters broken one a line. */
function renameEdits(writer: Writer, save: SaveFacts, name: string): TextEdit[] {
  const old = save.member.name ?? save.member;
  const wider = name.length - old.getWidth();
  const parameters = save.fn === undefined ? [] : parametersAdded(writer, save.fn, [], { wider });
  return [{ start: old.getStart(), end: old.end, text: name }, ...parameters];
}

function refusal({ names, naming }: Writer, isAsync: boolean): string {
  const error = `new ${names.unsupportedError}(${naming.condition})`;
  return isAsync ? `throw ${error}` : `return Promise.reject(${error})`;
}

/** A parameter as TypeScript or JavaScript writes it; untyped without `type`. */
function parameter({ typescript }: Writer, name: string, type: string | undefined, optional = false): string {
  return typescript ? `${name}${optional ? '?' : ''}${type === undefined ? '' : `: ${type}`}` : name;
}

/**
 * A `save` that refuses every condition but `any()`, sending the rest to `target` (without one, refusing every write),
 * of the kind the decision asks for, with the type parameters, `this` parameter and modifiers of `like` beside it.
 */
function generatedSave(writer: Writer, like: SaveFacts | undefined, target: string | undefined): string[] {
  const { decision, naming, style, typescript, source, indent } = writer;
  const kind = decision.saveMember;
  const fn = like?.fn;
  const refusing = target === undefined;
  const [id, checkpoint] = refusing ? [unused(naming.id), unused(naming.checkpoint)] : [naming.id, naming.checkpoint];
  const accessibility = like === undefined && decision.implementer.explicitlyPublic ? 'public ' : '';
  const override = decision.saveOverrides && typescript ? 'override ' : '';
  const typeParameters =
    fn?.typeParameters === undefined
      ? ''
      : source.slice(fn.typeParameters.pos - 1, source.indexOf('>', fn.typeParameters.end) + 1);
  // An arrow function has no `this` of its own to declare; the facts' parameters leave a `this` parameter out.
  const thisParameter = kind === 'arrow-field' ? undefined : fn?.parameters.find((p) => !like?.parameters.includes(p));
  const [decorators] = tokens(source, modifiers(like).filter(ts.isDecorator));
  const moved = decorators === undefined ? '' : source.slice(decorators.start, decorators.end);
  // `like`'s decorators stay on lines of their own, or inline, as they stood.
  const [decoratorLines, inline] = moved.includes('\n') ? [[indent + moved.trimEnd()], ''] : [[], moved];
  const kept = modifiers(like).filter((m) => /^(?:public|protected|private|readonly)$/.test(m.getText()));
  const resultType = (typescript ? fn?.type : fn && ts.getJSDocReturnType(fn))?.getText() ?? 'Promise<string>';
  const values = {
    ...naming,
    id,
    checkpoint,
    modifiers: `${inline}${accessibility}${kept.map((modifier) => `${modifier.getText()} `).join('')}${override}`,
    async: decision.saveIsAsync ? 'async ' : '',
    typeParameters,
    returnType: typescript ? `: ${resultType}` : '',
    resultType,
    // JSDoc writes an optional parameter's name in brackets.
    conditionName: refusing ? naming.condition : `[${naming.condition}]`,
    end: kind === 'method' ? '' : fieldEnd(writer, like),
    target: target ?? '',
    refusal: refusal(writer, decision.saveIsAsync),
    error: writer.names.unsupportedError,
    parameters: [
      ...(thisParameter === undefined ? [] : [thisParameter.getText()]),
      parameter(writer, id, naming.idType),
      parameter(writer, checkpoint, naming.checkpointType),
      parameter(writer, naming.condition, writer.names.conditionType, !refusing),
    ],
  };
  const template = refusing ? TEMPLATES.refusingSave : TEMPLATES.delegatingSave[kind];
  return [
    ...(typescript ? [] : fillTemplate(TEMPLATES.saveJsDoc, values, indent, style)),
    ...decoratorLines,
    ...fillTemplate(template, values, indent, style),
  ];
}

/** `writeVersion`, as an arrow-function field or property when the implementer writes its `save` that way. */
function writeVersion(writer: Writer): string[] {
  const { decision, typescript, style, indent } = writer;
  const { ownSave: save, kind, explicitlyPublic } = decision.implementer;
  const literal = kind === 'object-literal';
  const values = {
    modifiers: explicitlyPublic ? 'public ' : '',
    returnType: typescript && (!literal || typedParameters(save)) ? ': Promise<bigint | undefined>' : '',
    assign: literal ? ':' : ' =',
    end: literal ? '' : fieldEnd(writer, save),
  };
  return writeVersionLines(values, save?.form === 'arrow', indent, style);
}

/**
 * An object literal cannot gain a renamed member (a typed literal rejects unknown properties), and a function a class
 * assigns to its `save` field is the instance's own; so that `save` takes the condition in place: a third parameter
 * and the refusal first, the rest untouched. A function type on the field gains the parameter too, for the callers.
 */
function conditionInPlace(writer: Writer, save: SaveFacts): TextEdit[] {
  const { source, style, naming } = writer;
  const { fn, member } = save;
  const fnBody = fn?.body;
  if (fn === undefined || fnBody === undefined) {
    throw new Error(
      `add-write-conditions: ${writer.decision.implementer.name} has a save without parameters or body to extend; this is a bug.`,
    );
  }
  // What a signature with `written` parameters lacks, typed like the parameters it has.
  const missing = (written: number, typed: boolean) => [
    ...[unused(naming.id), unused(naming.checkpoint)]
      .slice(written)
      .map((name) => parameter(writer, name, typed ? 'string' : undefined)),
    parameter(writer, naming.condition, typed ? writer.names.conditionType : undefined, true),
  ];
  const headIndent = lineIndent(source, fn.getStart());
  const [open, close] = [fnBody.getStart(), ts.isBlock(fnBody) ? fnBody.end - 1 : fnBody.end];
  // A body on the same line as the head moves below the refusal, so only the head has to fit.
  const oneLineBlock = ts.isBlock(fnBody) && !source.slice(open + 1, close).includes('\n');
  const added = missing(save.parameters.length, typedParameters(save));
  const edits = parametersAdded(writer, fn, added, { lineEnd: oneLineBlock ? open + 1 : undefined });
  if (save.assigned && ts.isPropertyDeclaration(member) && member.type && ts.isFunctionTypeNode(member.type)) {
    edits.push(...parametersAdded(writer, member.type, missing(member.type.parameters.length, true), {}));
  }
  const values = {
    condition: naming.condition,
    refusal: refusal(writer, save.isAsync),
    statements: ts.isBlock(fnBody)
      ? source.slice(open + 1, close).trim()
      : `return ${source.slice(open, close)}${style.semicolons ? ';' : ''}`,
  };
  if (!ts.isBlock(fnBody) || oneLineBlock) {
    const text = fillTemplate(TEMPLATES.bodyBlock, values, headIndent, style).join(style.newline);
    return [...edits, { start: open, end: fnBody.end, text: text.slice(headIndent.length) }];
  }
  const bodyIndent = /\r?\n([ \t]*)\S/.exec(source.slice(open, close))?.[1] ?? headIndent + style.indentUnit;
  const guard = fillTemplate(TEMPLATES.guard, values, bodyIndent, style).join(style.newline);
  return [...edits, { start: open + 1, end: open + 1, text: style.newline + guard }];
}

/** `added` after the parameters of `signature`, in the parentheses an arrow's single parameter lacked. */
function parametersAdded(
  { source, style }: Writer,
  signature: Typescript.SignatureDeclaration,
  added: readonly string[],
  fit: { lineEnd?: number | undefined; wider?: number },
): TextEdit[] {
  const { parameters } = signature;
  const [only] = parameters;
  if (source[parameters.pos - 1] !== '(') {
    const text = `(${[only?.getText(), ...added].join(', ')})`;
    return only === undefined || added.length === 0 ? [] : [{ start: only.getStart(), end: only.end, text }];
  }
  const parentheses = [parameters.pos - 1, source.indexOf(')', parameters.end)] as const;
  return listEdits(source, style, parentheses, parameters, added, fit);
}

/** The generated members after the last member (or inside empty braces), a literal's joined by commas. */
function appendMembers({ decision, source, style, gap, members: existing }: Writer, generated: string[][]): TextEdit {
  const { implementer } = decision;
  const newline = style.newline;
  const literal = implementer.kind === 'object-literal';
  const joined = generated.map((lines) => lines.join(newline)).join(literal ? `,${gap}` : gap);
  const last = existing.at(-1);
  if (last === undefined) {
    const text = `${newline}${joined}${literal ? ',' : ''}${newline}${lineIndent(source, implementer.node.getStart())}`;
    return { start: existing.pos, end: existing.pos, text };
  }
  const comma = literal ? /^\s*,/.exec(source.slice(last.end))?.[0] : undefined;
  const at = last.end + (comma?.length ?? 0);
  const text = !literal ? gap + joined : comma !== undefined ? `${gap}${joined},` : `,${gap}${joined}`;
  return { start: at, end: at, text };
}
