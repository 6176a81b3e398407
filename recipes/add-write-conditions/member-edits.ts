import type { ts as Typescript } from 'ts-morph';
import { ts } from './typescript.js';
import type { GeneratedNames, ImplementerFacts, SaveFacts } from './implementer-facts.js';
import { commentLines, fillTemplate, itemsAfter, TEMPLATES } from './member-templates.js';
import { isThisParameter } from './read-implementer-facts.js';
import { attachedCommentsStart } from './read-import-facts.js';
import type { UpgradeDecision } from './shape-decision.js';
import { afterComma, columns, lineAt, lineIndent, type SourceStyle } from './source-style.js';
import type { TextEdit } from './upgrade-file-text.js';
import { markerText } from './upgrade-messages.js';

const KEPT_MODIFIERS = [
  ts.SyntaxKind.PublicKeyword,
  ts.SyntaxKind.ProtectedKeyword,
  ts.SyntaxKind.PrivateKeyword,
  ts.SyntaxKind.ReadonlyKeyword,
];

/** Everything the text of a member depends on besides the decision. */
export interface MemberTextContext {
  readonly source: string;
  readonly style: SourceStyle;
  readonly names: GeneratedNames;
  /** Whether to write type annotations (TypeScript) or leave them out (JavaScript). */
  readonly typescript: boolean;
}

/** One decision being written: the indent of its members, and the parameter names they use. */
interface Writer extends MemberTextContext {
  readonly decision: UpgradeDecision;
  readonly implementer: ImplementerFacts;
  readonly indent: string;
  readonly body: ReturnType<typeof bodyOf>;
  readonly naming: ReturnType<typeof namingOf>;
}

/** The members a decision adds, by name, for reports. */
export function membersAdded(decision: UpgradeDecision): string[] {
  return [
    ...(['unchanged', 'follows-base'].includes(decision.saveShape) ? [] : ['save']),
    ...(decision.addWriteVersion ? ['writeVersion'] : []),
  ];
}

/**
 * The text edits that carry out one decision: the marker, renames of the existing unconditional write, the new or
 * extended `save`, the new `writeVersion`. Everything else in the file stays byte for byte. A generated member keeps
 * the kind of the member it stands beside (an arrow-function field, `async`) and the parameter names it uses.
 */
export function memberEdits(decision: UpgradeDecision, context: MemberTextContext): TextEdit[] {
  const { implementer, saveShape, unconditionalSaveName: renamed, superSaveRename } = decision;
  if (decision.skipReason !== undefined) {
    return [];
  }
  // A `super.save` that meant the base's unconditional write keeps reaching it under its new name.
  const edits: TextEdit[] = implementer.superSaveNames.flatMap((name) => {
    const quote = ts.isStringLiteralLike(name) ? 1 : 0;
    return superSaveRename === undefined
      ? []
      : [{ start: name.getStart() + quote, end: name.end - quote, text: superSaveRename }];
  });
  const { style, source } = context;
  const save = implementer.ownSave;
  const body = bodyOf(source, implementer.node);
  const indent = body.memberIndent !== '' ? body.memberIndent : body.outerIndent + style.indentUnit;
  const writer: Writer = { ...context, decision, implementer, indent, body, naming: namingOf(implementer) };
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
    edits.push(...[decorators(source, save), tokens(source, overrides)].filter((edit) => edit !== undefined));
    const text = generatedSave(writer, save, `this.${renamed}`).join(style.newline);
    edits.push({ start: save.member.end, end: save.member.end, text: separator(writer) + text });
  }
  const appended = [
    ...(saveShape === 'inherited' || saveShape === 'refusing'
      ? [generatedSave(writer, undefined, saveShape === 'inherited' ? 'super.save' : undefined)]
      : []),
    ...(decision.addWriteVersion ? [writeVersion(writer)] : []),
  ];
  const [first, ...rest] = appended;
  return first === undefined
    ? edits
    : [...edits, appendMembers(writer, [[...(editsSave ? [] : marker), ...first], ...rest])];
}

/** The parameter names generated members use: those the implementer already uses, or the interface's. */
function namingOf(implementer: ImplementerFacts) {
  const [first, second] = (implementer.ownSave?.parameters ?? []).map((parameter) => ({
    name: ts.isIdentifier(parameter.name) ? parameter.name.text : undefined,
    type: parameter.type?.getText() ?? 'string',
  }));
  const id = first?.name ?? implementer.idParameterName ?? 'subscriptionId';
  const checkpoint = second?.name ?? 'checkpoint';
  const condition = id === 'condition' || checkpoint === 'condition' ? 'writeCondition' : 'condition';
  return { id, checkpoint, condition, idType: first?.type ?? 'string', checkpointType: second?.type ?? 'string' };
}

/**
 * Where new members go in a class body or object literal (`lastMemberEnd` after a literal's trailing comma), and their
 * indent: that of the members, and of the line the body opens on.
 */
function bodyOf(text: string, container: Typescript.ClassLikeDeclaration | Typescript.ObjectLiteralExpression) {
  const literal = ts.isObjectLiteralExpression(container);
  const members: Typescript.NodeArray<Typescript.Node> = literal ? container.properties : container.members;
  const last = members.at(-1)?.end;
  const { end, comma } = literal && last !== undefined ? afterComma(text, last) : { end: last, comma: false };
  return {
    openBrace: members.pos - 1,
    closeBrace: container.end - 1,
    lastMemberEnd: end,
    lastMemberHasComma: comma,
    memberIndent: members[0] === undefined ? '' : lineIndent(text, members[0].getStart()),
    outerIndent: lineIndent(text, container.getStart()),
  };
}

/**
 * `;` after a generated field when the field `beside` ends in one; beside a method, or a `save` only the constructor
 * assigns, when the file's statements do.
 */
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

/** A blank line between members when the body already separates its members that way. */
function separator({ body, source, style }: Writer): string {
  const { openBrace, closeBrace, lastMemberEnd } = body;
  const blank = /\n[ \t]*\r?\n/.test(source.slice(openBrace, closeBrace)) || lastMemberEnd === undefined;
  return blank ? style.newline + style.newline : style.newline;
}

/** A parameter list broken one a line at `indent`, as Prettier breaks one that does not fit. */
function brokenParameters(parameters: readonly string[], indent: string, style: SourceStyle): string {
  return fillTemplate('({{parameters}})', { parameters }, indent, style, 0).join(style.newline).slice(indent.length);
}

/** The modifiers of the member, as nodes. */
function modifiers(save: SaveFacts): readonly Typescript.ModifierLike[] {
  return ts.canHaveModifiers(save.member) ? (ts.getModifiers(save.member) ?? []) : [];
}

/** From the first decorator to the token after the last: they move to the generated `save`. */
function decorators(source: string, save: SaveFacts | undefined): TextEdit | undefined {
  const member = save?.member;
  return tokens(source, member !== undefined && ts.canHaveDecorators(member) ? (ts.getDecorators(member) ?? []) : []);
}

/** Deletes a range of tokens, from the first one's start to the next token after the last (so the whitespace between). */
function tokens(text: string, nodes: readonly Typescript.Node[]): TextEdit | undefined {
  const [first, last] = [nodes[0], nodes.at(-1)];
  return first === undefined || last === undefined
    ? undefined
    : { start: first.getStart(), end: last.end + (/^\s*/.exec(text.slice(last.end))?.[0].length ?? 0), text: '' };
}

/** Offsets of the parameter list of `fn`; `open` is `undefined` for an arrow's single unparenthesised parameter. */
function parameterList(source: string, fn: Typescript.SignatureDeclaration) {
  const list = fn.parameters;
  const last = list.at(-1);
  const open = source[list.pos - 1] === '(' ? list.pos - 1 : undefined;
  const after = afterComma(source, last?.end ?? list.end);
  return {
    open,
    close: open === undefined ? (last?.end ?? list.end) : source.indexOf(')', list.end),
    firstParameterStart: list[0]?.getStart(),
    /** After the last parameter's trailing comma when it has one. */
    lastParameterEnd: last === undefined ? undefined : open === undefined ? last.end : after.end,
    trailingComma: open !== undefined && last !== undefined && after.comma,
  };
}

/** Renames the member; a signature the longer name pushes past the width has its parameters broken one a line. */
function renameEdits({ source, style }: Writer, save: SaveFacts, name: string): TextEdit[] {
  const old = save.member.name ?? save.member;
  const [start, end] = [old.getStart(), old.end];
  const edits: TextEdit[] = [{ start, end, text: name }];
  const list = save.fn === undefined ? undefined : parameterList(source, save.fn);
  const renamedWidth = columns(lineAt(source, start)) + name.length - (end - start);
  // As written, a `this` parameter first when there is one.
  const written = (save.fn?.parameters ?? []).map((parameter) => parameter.getText());
  if (
    list?.open !== undefined &&
    written.length > 0 &&
    renamedWidth > style.width &&
    !source.slice(start, list.close).includes('\n')
  ) {
    const text = brokenParameters(written, lineIndent(source, start), style);
    edits.push({ start: list.open, end: list.close + 1, text });
  }
  return edits;
}

/** The refusal statement: thrown in an async function, returned as a rejection otherwise. */
function refusal({ names, naming }: Writer, isAsync: boolean): string {
  const error = `new ${names.unsupportedError}(${naming.condition})`;
  return isAsync ? `throw ${error}` : `return Promise.reject(${error})`;
}

function parameter({ typescript }: Writer, name: string, type: string): string {
  return typescript ? `${name}: ${type}` : name;
}

function conditionParameter({ typescript, names, naming }: Writer, optional: boolean, typed: boolean): string {
  const type = typescript && typed ? `: ${names.conditionType ?? 'unknown'}` : '';
  return `${naming.condition}${optional && typescript ? '?' : ''}${type}`;
}

/**
 * A `save(id, checkpoint, condition?)` that refuses every condition but `any()` and sends the rest (the two-argument
 * call included) to `target`, or with no `target` refuses every write; written as the member the decision asks for (a
 * method, or an arrow or function field), with the type parameters, `this` parameter, modifiers and decorators of
 * `like`, the member it stands beside.
 */
function generatedSave(writer: Writer, like: SaveFacts | undefined, target: string | undefined): string[] {
  const { decision, naming, style, typescript, source } = writer;
  const kind = decision.saveMember;
  const fn = like?.fn;
  const refusing = target === undefined;
  const [id, checkpoint] = refusing ? [unused(naming.id), unused(naming.checkpoint)] : [naming.id, naming.checkpoint];
  const accessibility = like === undefined && writer.implementer.explicitlyPublic ? 'public ' : '';
  const override = decision.saveOverrides && typescript ? 'override ' : '';
  const typeParameters =
    fn?.typeParameters === undefined
      ? ''
      : source.slice(fn.typeParameters.pos - 1, source.indexOf('>', fn.typeParameters.end) + 1);
  // An arrow function has no `this` of its own to declare.
  const thisParameter = kind === 'arrow-field' ? undefined : fn?.parameters.find(isThisParameter)?.getText();
  const { lines: decoratorLines, inline } = movedDecorators(writer, like);
  const kept = like === undefined ? [] : modifiers(like).filter((modifier) => KEPT_MODIFIERS.includes(modifier.kind));
  const values = {
    ...naming,
    modifiers: `${inline}${accessibility}${kept.map((modifier) => `${modifier.getText()} `).join('')}${override}`,
    async: decision.saveIsAsync ? 'async ' : '',
    typeParameters,
    returnType: typescript ? `: ${fn?.type?.getText() ?? 'Promise<string>'}` : '',
    end: kind === 'method' ? '' : fieldEnd(writer, like),
    target: target ?? '',
    refusal: refusal(writer, decision.saveIsAsync),
    error: writer.names.unsupportedError,
    parameters: [
      ...(thisParameter === undefined ? [] : [thisParameter]),
      parameter(writer, id, naming.idType),
      parameter(writer, checkpoint, naming.checkpointType),
      conditionParameter(writer, !refusing, true),
    ],
  };
  // In JavaScript, JSDoc types the parameters, as `like`'s JSDoc does where it gives them.
  const jsDoc = {
    id,
    checkpoint,
    condition: refusing ? naming.condition : `[${naming.condition}]`,
    idType: jsDocType(like?.parameters[0]),
    checkpointType: jsDocType(like?.parameters[1]),
    returnType: (fn && ts.getJSDocReturnType(fn)?.getText()) ?? 'Promise<string>',
  };
  const template = refusing ? TEMPLATES.refusingSave : TEMPLATES.delegatingSave[kind];
  return [
    ...(typescript ? [] : fillTemplate(TEMPLATES.saveJsDoc, jsDoc, writer.indent, style)),
    ...decoratorLines,
    ...fillTemplate(template, values, writer.indent, style),
  ];
}

/**
 * The decorators of `like`, as written, for the generated `save` that takes over its name: lines of their own, or,
 * when they stood on the member's line, a prefix of the generated head.
 */
function movedDecorators({ indent, source }: Writer, like: SaveFacts | undefined) {
  const range = decorators(source, like);
  const moved = range === undefined ? '' : source.slice(range.start, range.end);
  const lastBreak = moved.lastIndexOf('\n');
  if (lastBreak === -1) {
    return { lines: [], inline: moved };
  }
  const lines = moved.slice(0, lastBreak).replace(/\r$/, '').split(/\r?\n/);
  return { lines: lines.map((line, index) => (index === 0 ? `${indent}${line}` : line)), inline: '' };
}

function jsDocType(parameter: Typescript.ParameterDeclaration | undefined): string {
  return (parameter && ts.getJSDocParameterTags(parameter)[0]?.typeExpression?.type.getText()) ?? 'string';
}

/** `writeVersion`, as an arrow-function field or property when the implementer writes its `save` that way. */
function writeVersion(writer: Writer): string[] {
  const { implementer, typescript, style, indent } = writer;
  const save = implementer.ownSave;
  const literal = implementer.kind === 'object-literal';
  const returnType = typescript && (!literal || typedParameters(save)) ? ': Promise<bigint | undefined>' : '';
  const head = `${implementer.explicitlyPublic ? 'public ' : ''}writeVersion`;
  if (save?.form !== 'arrow') {
    return fillTemplate(TEMPLATES.writeVersion, { head, returnType }, indent, style);
  }
  const values = {
    head: `${head}${literal ? ':' : ' ='}`,
    returnType,
    end: literal ? '' : fieldEnd(writer, save),
  };
  const [single, broken] = TEMPLATES.arrowWriteVersion.map((template) => fillTemplate(template, values, indent, style));
  return single !== undefined && single.every((line) => columns(line) <= style.width) ? single : (broken ?? []);
}

/**
 * An object literal cannot gain a renamed member (a typed literal rejects unknown properties), and a function a class
 * assigns to its `save` field is the instance's own, whatever a renamed one would be; so that `save` takes the
 * condition in place: a third parameter and the refusal as its first statement, the rest of it untouched. A function
 * type written on the field gains the parameter too, so that calls on the class can pass it.
 */
function conditionInPlace(writer: Writer, save: SaveFacts): TextEdit[] {
  const { source, style, naming } = writer;
  const { fn, member } = save;
  const fnBody = fn?.body;
  if (fn === undefined || fnBody === undefined) {
    throw new Error(
      `add-write-conditions: ${writer.implementer.name} has a save without parameters or body to extend; this is a bug.`,
    );
  }
  const nl = style.newline;
  const typed = typedParameters(save);
  const padding = (written: number, typedHere: boolean) =>
    [unused(naming.id), unused(naming.checkpoint)]
      .slice(written)
      .map((name) => (typedHere ? parameter(writer, name, 'string') : name));
  const added = [...padding(save.parameters.length, typed), conditionParameter(writer, true, typed)];
  const headIndent = lineIndent(source, fn.getStart());
  // A block's braces, or an expression body's extent.
  const [open, close] = [fnBody.getStart(), ts.isBlock(fnBody) ? fnBody.end - 1 : fnBody.end];
  // A body on the same line as the head moves below the refusal (see below), so only the head has to fit.
  const oneLineBlock = ts.isBlock(fnBody) && !source.slice(open + 1, close).includes('\n');
  const edits = [parametersAdded(writer, fn, added, oneLineBlock ? open + 1 : undefined)];
  if (save.assigned && ts.isPropertyDeclaration(member) && member.type && ts.isFunctionTypeNode(member.type)) {
    const inType = [...padding(member.type.parameters.length, true), conditionParameter(writer, true, true)];
    edits.push(parametersAdded(writer, member.type, inType, undefined));
  }
  const values = { condition: naming.condition, refusal: refusal(writer, save.isAsync) };
  if (!ts.isBlock(fnBody)) {
    const expression = source.slice(open, close);
    const text = fillTemplate(TEMPLATES.expressionBody, { ...values, expression }, headIndent, style).join(nl);
    return [...edits, { start: open, end: close, text: text.slice(headIndent.length) }];
  }
  const inside = source.slice(open + 1, close);
  const bodyIndent = /\r?\n([ \t]*)\S/.exec(inside)?.[1] ?? headIndent + style.indentUnit;
  const guard = fillTemplate(TEMPLATES.guard, values, bodyIndent, style).join(nl);
  const start = open + 1;
  // A body on one line (`{ rows.set(id, cp); return cp; }`) gets its statements on a line of their own below the
  // refusal, and its brace on the next, rather than statements trailing the refusal's closing brace.
  const empty = inside.trim() === '';
  const oneLine = !empty && !inside.includes('\n');
  const rest = empty ? `${nl}${headIndent}` : oneLine ? `${nl}${bodyIndent}${inside.trim()}${nl}${headIndent}` : '';
  return [...edits, { start, end: oneLine ? close : start, text: `${nl}${guard}${rest}` }];
}

/**
 * `added` after the parameters of `signature`: in the parentheses an arrow's single parameter lacked, on lines of their
 * own in a list already broken, else on the line, or with the whole list broken one a line when the line (up to
 * `headEnd` when given) would no longer fit.
 */
function parametersAdded(
  { source, style }: Writer,
  signature: Typescript.SignatureDeclaration,
  added: readonly string[],
  headEnd: number | undefined,
): TextEdit {
  const list = parameterList(source, signature);
  if (list.open === undefined) {
    const start = list.firstParameterStart ?? list.close;
    return { start, end: list.close, text: `(${[source.slice(start, list.close), ...added].join(', ')})` };
  }
  if (source.slice(list.open, list.close).includes('\n') && list.lastParameterEnd !== undefined) {
    return itemsAfter(source, list.lastParameterEnd, list.trailingComma, added, style);
  }
  const existing = signature.parameters.map((parameter) => parameter.getText());
  const at = list.lastParameterEnd ?? list.open + 1;
  const inserted = `${list.trailingComma ? ' ' : existing.length > 0 ? ', ' : ''}${added.join(', ')}`;
  const lineStart = source.lastIndexOf('\n', at - 1) + 1;
  const fullLine = lineAt(source, at);
  const line = headEnd === undefined ? fullLine : fullLine.slice(0, Math.max(0, headEnd - lineStart));
  const headIndent = lineIndent(source, signature.getStart());
  return columns(line.slice(0, at - lineStart) + inserted + line.slice(at - lineStart)) <= style.width
    ? { start: at, end: at, text: inserted }
    : { start: list.open, end: list.close + 1, text: brokenParameters([...existing, ...added], headIndent, style) };
}

/** The generated members after the last member (or inside empty braces), a literal's joined by commas. */
function appendMembers(writer: Writer, members: readonly (readonly string[])[]): TextEdit {
  const { body, implementer } = writer;
  const newline = writer.style.newline;
  const gap = separator(writer);
  const literal = implementer.kind === 'object-literal';
  const joined = members.map((lines) => lines.join(newline)).join(literal ? `,${gap}` : gap);
  if (body.lastMemberEnd === undefined) {
    const text = `${newline}${joined}${literal ? ',' : ''}${newline}${body.outerIndent}`;
    return { start: body.openBrace + 1, end: body.openBrace + 1, text };
  }
  const text = !literal ? gap + joined : body.lastMemberHasComma ? `${gap}${joined},` : `,${gap}${joined}`;
  return { start: body.lastMemberEnd, end: body.lastMemberEnd, text };
}
