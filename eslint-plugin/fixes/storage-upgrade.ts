import { AST_NODE_TYPES } from '@typescript-eslint/types';
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import {
  commentLines,
  fillTemplate,
  listEdits,
  markerText,
  TEMPLATES,
  writeVersionLines,
} from '../../vocabulary/member-templates.js';
import { lineIndent } from '../../vocabulary/source-style.js';
import {
  CONDITION_TYPE,
  STORAGE_MEMBER_NAMES,
  UNSUPPORTED_ERROR,
  type StorageMemberName,
} from '../../vocabulary/index.js';
import { descendantNodeList, parameterBinding, staticMemberName, staticPropertyKeyName } from '../analysis/index.js';
import { runtimeImportEdits, runtimeImports, type RuntimeImports } from './runtime-imports.js';
import type { ContractImplementation } from '../analysis/recognisers/index.js';
import { extendedInAnotherFile } from './subclasses-elsewhere.js';
import { attachedCommentsStart, listItem, type FixContext, type TextEdit } from './text-edits.js';

// The editor fix of `no-ignored-write-condition`: the text `npx checkpoint-fencing-codemod upgrade` writes for one
// storage, from the same templates (recipes/add-write-conditions/member-templates.ts) filled the same way, its member
// edits (member-edits.ts) read from ESTree instead of TypeScript's tree. It writes only where the codemod's edit stays
// in this file and its decision needs no other class: wherever the codemod would skip the storage, or look at a base
// class or subclasses, there is no fix rather than a different one (doc/rules/no-ignored-write-condition.md lists
// the shapes). test/eslint-plugin/editor-fix-matches-upgrade.process.test.ts holds it to the codemod byte for byte.

type Storage = TSESTree.ClassDeclaration | TSESTree.ClassExpression | TSESTree.ObjectExpression;
type FunctionValue = TSESTree.FunctionExpression | TSESTree.ArrowFunctionExpression;

const SAVE: StorageMemberName = 'save';
const WRITE_VERSION: StorageMemberName = 'writeVersion';
/** Members whose first parameter names the id, in the order their name is preferred for generated members. */
const ID_TAKING_MEMBERS: readonly StorageMemberName[] = ['read', 'writeVersion', 'delete'];
/** The name the existing unconditional write is kept under, unless the class already uses it. */
const UNCONDITIONAL_SAVE_NAME = 'saveUnconditionally';

/** The storage's own `save`, in a form the fix can rewrite. */
interface Save {
  readonly member: TSESTree.MethodDefinition | TSESTree.PropertyDefinition | TSESTree.Property;
  readonly fn: FunctionValue;
  readonly form: 'method' | 'arrow' | 'function';
  /** Its parameters but a `this` parameter. */
  readonly parameters: readonly TSESTree.Parameter[];
}

/** The codemod's decision for a storage without a base class or subclass (shape-decision.ts's `decideOne`). */
interface Decision {
  readonly saveShape: 'delegating' | 'object-literal' | 'refusing' | 'unchanged';
  readonly saveMember: 'method' | 'arrow-field' | 'function-field';
  readonly saveIsAsync: boolean;
  readonly addWriteVersion: boolean;
  readonly unconditionalSaveName: string | undefined;
}

/** The codemod's edit of one storage: its text edits, and what it does in words, for the suggestion's message. */
export interface StorageUpgrade {
  readonly edits: readonly TextEdit[];
  readonly change: string;
}

/** A class member assigned a function by its field initialiser (`read = this.readRow.bind(this)`), by name. */
export type AssignedFunctions = ReadonlyMap<string, { readonly value: TSESTree.FunctionLike | undefined }>;

/**
 * The codemod's edit of a class or object literal the rule found implementing `CheckpointStorage`, or `undefined`
 * where the codemod would skip it, edit another class or file with it, or change nothing.
 */
export function storageUpgrade(
  implementation: ContractImplementation,
  assigned: AssignedFunctions,
  context: FixContext,
): StorageUpgrade | undefined {
  const { sourceCode, filename } = context;
  const storage = implementation.node;
  // The type-aware codemod upgrades TypeScript; JavaScript is the jscodeshift transform's, with JSDoc types.
  if (/\.[cm]?jsx?$/u.test(filename) || !fixable(storage, sourceCode)) {
    return undefined;
  }
  const save = ownSave(storage);
  if (save === null) {
    return undefined;
  }
  // Declared, or in a literal maybe brought by a spread or a computed key.
  const ownWriteVersion =
    implementation.memberNames.has(WRITE_VERSION) ||
    (storage.type === AST_NODE_TYPES.ObjectExpression && implementation.mayInheritMembers);
  const decision = decide(storage, save, ownWriteVersion);
  const renames = decision?.saveShape === 'delegating' && storage.type !== AST_NODE_TYPES.ObjectExpression;
  if (decision === undefined || (renames && maySubclass(storage, context))) {
    return undefined;
  }
  const change = [
    {
      delegating: `keep save() as ${decision.unconditionalSaveName ?? ''}() behind a save() that refuses every condition but any()`,
      'object-literal': 'give save() the condition and refuse every one but any()',
      refusing: 'add a save() that refuses every write',
      unchanged: undefined,
    }[decision.saveShape],
    decision.addWriteVersion ? 'add a writeVersion() that reports no version' : undefined,
  ]
    .filter((part) => part !== undefined)
    .join(', and ');
  const imports = runtimeImports(context);
  const writer = writerFor(implementation, assigned, save, decision, context, imports);
  const written = memberEdits(writer);
  // The names generated code uses that the file does not import yet (upgrade-file-text.ts's `importEdits`).
  const text = written.map((edit) => edit.text).join('\n');
  const { names } = writer;
  const typeMissing = imports.namespace === undefined && imports.imported(CONDITION_TYPE, false) === undefined;
  const errorMissing = imports.namespace === undefined && imports.imported(UNSUPPORTED_ERROR, true) === undefined;
  const needed = {
    types: typeMissing && text.includes(`: ${names.conditionType}`) ? [CONDITION_TYPE] : [],
    values: errorMissing && text.includes(`new ${names.unsupportedError}(`) ? [UNSUPPORTED_ERROR] : [],
  };
  return {
    edits: [...runtimeImportEdits(sourceCode.text, imports, writer.style, needed), ...written],
    change,
  };
}

/** What no fix is written for: an abstract class or one with a base class, and one whose constructor writes members. */
function fixable(storage: Storage, sourceCode: Readonly<TSESLint.SourceCode>): boolean {
  if (storage.type === AST_NODE_TYPES.ObjectExpression) {
    return true;
  }
  const constructorMethod = storage.body.body.find(
    (element) => element.type === AST_NODE_TYPES.MethodDefinition && element.kind === 'constructor',
  );
  // `this.save = …`, `this[key] = …` or `Object.assign(this, …)`: a constructor-assigned shape, or one the codemod
  // cannot follow, or a member whose parameters it reads from the constructor; another decision than the ones here.
  const writesMembers =
    constructorMethod !== undefined &&
    descendantNodeList(constructorMethod, sourceCode.visitorKeys, false).some(
      (node) =>
        (node.type === AST_NODE_TYPES.AssignmentExpression &&
          node.left.type === AST_NODE_TYPES.MemberExpression &&
          node.left.object.type === AST_NODE_TYPES.ThisExpression &&
          [...STORAGE_MEMBER_NAMES, undefined].includes(staticMemberName(node.left) as StorageMemberName)) ||
        (node.type === AST_NODE_TYPES.CallExpression &&
          sourceCode.getText(node.callee) === 'Object.assign' &&
          node.arguments[0]?.type === AST_NODE_TYPES.ThisExpression),
    );
  return storage.superClass === null && !storage.abstract && !storage.declare && !writesMembers;
}

/** The name of a class member or literal property, as the codemod's `memberName` reads it; `#x` is no name. */
function memberName(member: TSESTree.ClassElement | TSESTree.ObjectLiteralElement): string | undefined {
  if (!('key' in member) || member.key.type === AST_NODE_TYPES.PrivateIdentifier) {
    return undefined;
  }
  return staticPropertyKeyName(member.key, member.computed);
}

/** The instance members of a class, or a literal's properties, named `name`. */
function membersNamed(storage: Storage, name: string) {
  const members = storage.type === AST_NODE_TYPES.ObjectExpression ? storage.properties : storage.body.body;
  return members.filter((member) => memberName(member) === name && !('static' in member && member.static));
}

/**
 * The storage's own `save`; `undefined` without one, `null` when it has one the fix does not rewrite: overloads, a
 * computed or quoted name, `override`, an accessor, or a value that is not a function written there.
 */
function ownSave(storage: Storage): Save | undefined | null {
  const [member, ...overloads] = membersNamed(storage, SAVE);
  if (member === undefined) {
    return undefined;
  }
  const rewritable =
    (member.type === AST_NODE_TYPES.MethodDefinition ||
      member.type === AST_NODE_TYPES.PropertyDefinition ||
      member.type === AST_NODE_TYPES.Property) &&
    overloads.length === 0 &&
    member.key.type === AST_NODE_TYPES.Identifier &&
    !member.computed &&
    !('override' in member && member.override) &&
    !('kind' in member && (member.kind === 'get' || member.kind === 'set'));
  const fn = rewritable ? member.value : null;
  if (
    !rewritable ||
    (fn?.type !== AST_NODE_TYPES.FunctionExpression && fn?.type !== AST_NODE_TYPES.ArrowFunctionExpression)
  ) {
    return null;
  }
  const method =
    member.type === AST_NODE_TYPES.MethodDefinition || (member.type === AST_NODE_TYPES.Property && member.method);
  return {
    member,
    fn,
    form: method ? 'method' : fn.type === AST_NODE_TYPES.ArrowFunctionExpression ? 'arrow' : 'function',
    parameters: fn.params.filter((parameter) => !isThisParameter(parameter)),
  };
}

function isThisParameter(parameter: TSESTree.Parameter): boolean {
  return parameter.type === AST_NODE_TYPES.Identifier && parameter.name === 'this';
}

/** The codemod's decision (shape-decision.ts) for a storage with no base class: `undefined` when nothing changes. */
function decide(storage: Storage, save: Save | undefined, ownWriteVersion: boolean): Decision | undefined {
  const kept = {
    saveMember: 'method' as const,
    saveIsAsync: save?.fn.async ?? true,
    addWriteVersion: !ownWriteVersion,
    unconditionalSaveName: undefined,
  };
  if (save === undefined) {
    return { ...kept, saveShape: 'refusing', saveIsAsync: false };
  }
  const acceptsCondition =
    save.parameters.length >= 3 || save.parameters.some((parameter) => parameter.type === AST_NODE_TYPES.RestElement);
  if (acceptsCondition) {
    return ownWriteVersion ? undefined : { ...kept, saveShape: 'unchanged' };
  }
  if (storage.type === AST_NODE_TYPES.ObjectExpression) {
    return { ...kept, saveShape: 'object-literal' };
  }
  const names = new Set(storage.body.body.flatMap((member) => memberName(member) ?? []));
  let unconditionalSaveName = UNCONDITIONAL_SAVE_NAME;
  for (let suffix = 2; names.has(unconditionalSaveName); suffix += 1) {
    unconditionalSaveName = `${UNCONDITIONAL_SAVE_NAME}${suffix}`;
  }
  const saveMember = save.form === 'arrow' ? 'arrow-field' : save.form === 'function' ? 'function-field' : 'method';
  return { ...kept, saveShape: 'delegating', saveMember, unconditionalSaveName };
}

/**
 * Whether a class whose `save` the fix renames may have a subclass: the codemod renames a subclass's `save` and
 * `super.save` with its base's, or skips the base. One of this file extends its binding; one in another file of the
 * workspace spells `extends` with its name; a default export may be imported under any name.
 */
function maySubclass(storage: TSESTree.ClassDeclaration | TSESTree.ClassExpression, context: FixContext): boolean {
  const holder = storage.parent.type === AST_NODE_TYPES.VariableDeclarator ? storage.parent : storage;
  // A class declaration binds its name twice, around it and inside it.
  const variables = context.sourceCode.getDeclaredVariables(holder);
  const extendedHere = variables.some(({ references }) =>
    references.some(({ identifier }) => {
      const parent = identifier.parent;
      return (
        (parent.type === AST_NODE_TYPES.ClassDeclaration || parent.type === AST_NODE_TYPES.ClassExpression) &&
        parent.superClass === identifier
      );
    }),
  );
  const name = variables[0]?.name;
  return (
    name === undefined ||
    extendedHere ||
    storage.parent.type === AST_NODE_TYPES.ExportDefaultDeclaration ||
    extendedInAnotherFile(name, context.filename)
  );
}

/** One storage being written: what its text depends on (member-edits.ts's `writerFor`). */
function writerFor(
  implementation: ContractImplementation,
  assigned: AssignedFunctions,
  save: Save | undefined,
  decision: Decision,
  { sourceCode, style: styleOf }: FixContext,
  imports: RuntimeImports,
) {
  const { text: source } = sourceCode;
  const storage = implementation.node;
  const style = styleOf();
  const literal = storage.type === AST_NODE_TYPES.ObjectExpression;
  const members = literal ? storage.properties : storage.body.body;
  const bodyStart = (literal ? storage.range[0] : storage.body.range[0]) + 1;
  // Where TypeScript's node starts: at its decorators, or at `export`.
  const exported =
    storage.parent.type === AST_NODE_TYPES.ExportNamedDeclaration ||
    storage.parent.type === AST_NODE_TYPES.ExportDefaultDeclaration;
  const start = Math.min(
    ...[literal ? storage : exported ? storage.parent : storage, ...(literal ? [] : decorators(storage))].map(
      (node) => node.range[0],
    ),
  );
  const memberIndent = members[0] === undefined ? '' : lineIndent(source, members[0].range[0]);
  // A blank line between members when the body already separates its members that way.
  const blank = /\n[ \t]*\r?\n/u.test(source.slice(bodyStart, storage.range[1])) || members.length === 0;
  const indent = memberIndent !== '' ? memberIndent : lineIndent(source, start) + style.indentUnit;
  // Generated members use the parameter names and types the storage's `save` states, else the interface's.
  const parameters = save?.parameters ?? [];
  const [idName, checkpointName] = parameters.map(parameterName);
  const [idType = 'string', checkpointType = 'string'] = parameters.map((parameter) => {
    const annotation = typeAnnotationOf(parameter);
    return annotation && sourceCode.getText(annotation);
  });
  const id = idName ?? idParameterName(implementation, assigned) ?? 'subscriptionId';
  const checkpoint = checkpointName ?? 'checkpoint';
  const condition = id === 'condition' || checkpoint === 'condition' ? 'writeCondition' : 'condition';
  const qualified = (name: string) => {
    const namespace = imports.namespace ?? imports.newNamespace;
    return namespace === undefined ? name : `${namespace}.${name}`;
  };
  const names = {
    conditionType: imports.imported(CONDITION_TYPE, false) ?? qualified(CONDITION_TYPE),
    unsupportedError: imports.imported(UNSUPPORTED_ERROR, true) ?? qualified(UNSUPPORTED_ERROR),
  };
  // The class writes `public` on its storage members, so generated ones carry it too.
  const explicitlyPublic = [SAVE, ...ID_TAKING_MEMBERS]
    .flatMap((wanted) => membersNamed(storage, wanted))
    .some((member) => 'accessibility' in member && member.accessibility === 'public');
  const naming = { id, checkpoint, condition, idType, checkpointType };
  return {
    storage,
    save,
    decision,
    sourceCode,
    source,
    style,
    names,
    members,
    bodyStart,
    start,
    indent,
    gap: blank ? style.newline + style.newline : style.newline,
    naming,
    explicitlyPublic,
  };
}

type Writer = ReturnType<typeof writerFor>;

function parameterName(parameter: TSESTree.Parameter): string | undefined {
  const binding = parameterBinding(parameter);
  return binding.type === AST_NODE_TYPES.Identifier ? binding.name : undefined;
}

/** The type written on a parameter, without its colon. */
function typeAnnotationOf(parameter: TSESTree.Parameter): TSESTree.TypeNode | undefined {
  const target = parameter.type === AST_NODE_TYPES.AssignmentPattern ? parameter.left : parameter;
  return 'typeAnnotation' in target ? target.typeAnnotation?.typeAnnotation : undefined;
}

/** The id parameter name `read`, `writeVersion` or `delete` uses, leading underscores off (read-implementer-facts.ts). */
function idParameterName({ methods }: ContractImplementation, assigned: AssignedFunctions): string | undefined {
  const [first] = ID_TAKING_MEMBERS.flatMap((wanted) => {
    const fn = methods.get(wanted) ?? assigned.get(wanted)?.value;
    const [parameter] = (fn?.params ?? []).filter((p) => !isThisParameter(p));
    const name = parameter === undefined ? undefined : parameterName(parameter);
    return name === undefined ? [] : [name];
  });
  return first?.replace(/^_+(?=.)/u, '');
}

/** The edits that carry out the decision: marker, rename, new or extended `save`, `writeVersion` (`memberEdits`). */
function memberEdits(writer: Writer): TextEdit[] {
  const { decision, save, sourceCode, style, indent } = writer;
  const { saveShape, unconditionalSaveName: renamed } = decision;
  const marker = commentLines(indent, markerText(decision), style);
  const edits: TextEdit[] = [];
  const editsSave = save !== undefined && (saveShape === 'delegating' || saveShape === 'object-literal');
  if (editsSave) {
    const commentsStart = attachedCommentsStart(sourceCode, save.member);
    const above = [...marker, indent].join(style.newline).slice(indent.length);
    edits.push({ start: commentsStart, end: commentsStart, text: above });
    edits.push(...(renamed === undefined ? conditionInPlace(writer, save) : renameEdits(writer, save, renamed)));
  }
  if (editsSave && renamed !== undefined) {
    // The generated save takes over the public name, so it takes over the decorators keyed on it too.
    edits.push(...tokens(writer.source, decoratorsOf(save)));
    const text = generatedSave(writer, save, `this.${renamed}`).join(style.newline);
    edits.push({ start: save.member.range[1], end: save.member.range[1], text: writer.gap + text });
  }
  const appended = [
    ...(saveShape === 'refusing' ? [generatedSave(writer, undefined, undefined)] : []),
    ...(decision.addWriteVersion ? [writeVersion(writer)] : []),
  ];
  // The marker goes above the first member the decision adds, unless it already stands above the edited `save`.
  appended[0]?.unshift(...(editsSave ? [] : marker));
  return appended.length === 0 ? edits : [...edits, appendMembers(writer, appended)];
}

function decoratorsOf(save: Save): readonly TSESTree.Decorator[] {
  return save.member.type === AST_NODE_TYPES.Property ? [] : decorators(save.member);
}

/** A class's or member's decorators: typescript-eslint 5's parser leaves the list out where there are none. */
function decorators(node: { readonly decorators?: readonly TSESTree.Decorator[] }): readonly TSESTree.Decorator[] {
  return node.decorators ?? [];
}

/** Deletes `nodes` and the whitespace after them. */
function tokens(text: string, nodes: readonly TSESTree.Node[]): TextEdit[] {
  const [first, last] = [nodes[0], nodes.at(-1)];
  const end = last && last.range[1] + (/^\s*/u.exec(text.slice(last.range[1]))?.[0].length ?? 0);
  return first && end !== undefined ? [{ start: first.range[0], end, text: '' }] : [];
}

/** `;` after a generated field when the field `beside` ends in one, else when the file's statements do. */
function fieldEnd({ source, style }: Writer, beside: Save | undefined): string {
  const field = beside !== undefined && beside.form !== 'method';
  return (field ? source[beside.member.range[1] - 1] === ';' : style.semicolons) ? ';' : '';
}

/** `_name` for a parameter the generated body never reads. */
function unused(name: string): string {
  return `_${name.replace(/^_+/u, '')}`;
}

function typedParameters(save: Save | undefined): boolean {
  return save === undefined || save.parameters.length === 0 || save.parameters.some((p) => typeAnnotationOf(p));
}

function refusal({ names, naming }: Writer, isAsync: boolean): string {
  const error = `new ${names.unsupportedError}(${naming.condition})`;
  return isAsync ? `throw ${error}` : `return Promise.reject(${error})`;
}

function parameter(name: string, type: string | undefined, optional = false): string {
  return `${name}${optional ? '?' : ''}${type === undefined ? '' : `: ${type}`}`;
}

/** Renames the member; a signature the longer name pushes past the width has its parameters broken one a line. */
function renameEdits(writer: Writer, save: Save, name: string): TextEdit[] {
  const key = save.member.key;
  const wider = name.length - (key.range[1] - key.range[0]);
  return [{ start: key.range[0], end: key.range[1], text: name }, ...parametersAdded(writer, save, [], { wider })];
}

/**
 * A `save` that refuses every condition but `any()`, sending the rest to `target` (without one, refusing every write),
 * of the kind the decision asks for, with the type parameters, `this` parameter and modifiers of `like` beside it.
 */
function generatedSave(writer: Writer, like: Save | undefined, target: string | undefined): string[] {
  const { decision, naming, style, indent, sourceCode, source, names } = writer;
  const kind = decision.saveMember;
  const fn = like?.fn;
  const refusing = target === undefined;
  const [id, checkpoint] = refusing ? [unused(naming.id), unused(naming.checkpoint)] : [naming.id, naming.checkpoint];
  const accessibility = like === undefined && writer.explicitlyPublic ? 'public ' : '';
  // An arrow function has no `this` of its own to declare.
  const thisParameter = kind === 'arrow-field' ? undefined : fn?.params.find(isThisParameter);
  const [decorators] = like === undefined ? [] : tokens(source, decoratorsOf(like));
  const moved = decorators === undefined ? '' : source.slice(decorators.start, decorators.end);
  // `like`'s decorators stay on lines of their own, or inline, as they stood.
  const [decoratorLines, inline] = moved.includes('\n') ? [[indent + moved.trimEnd()], ''] : [[], moved];
  const member = like?.member;
  const kept = [
    member && 'accessibility' in member ? member.accessibility : undefined,
    member?.type === AST_NODE_TYPES.PropertyDefinition && member.readonly ? 'readonly' : undefined,
  ].flatMap((modifier) => (modifier === undefined ? [] : [`${modifier} `]));
  const values = {
    ...naming,
    id,
    checkpoint,
    modifiers: `${inline}${accessibility}${kept.join('')}`,
    async: decision.saveIsAsync ? 'async ' : '',
    typeParameters: fn?.typeParameters === undefined ? '' : sourceCode.getText(fn.typeParameters),
    returnType: `: ${fn?.returnType === undefined ? 'Promise<string>' : sourceCode.getText(fn.returnType.typeAnnotation)}`,
    end: kind === 'method' ? '' : fieldEnd(writer, like),
    target: target ?? '',
    refusal: refusal(writer, decision.saveIsAsync),
    error: names.unsupportedError,
    parameters: [
      ...(thisParameter === undefined ? [] : [sourceCode.getText(thisParameter)]),
      parameter(id, naming.idType),
      parameter(checkpoint, naming.checkpointType),
      parameter(naming.condition, names.conditionType, !refusing),
    ],
  };
  const template = refusing ? TEMPLATES.refusingSave : TEMPLATES.delegatingSave[kind];
  return [...decoratorLines, ...fillTemplate(template, values, indent, style)];
}

/** `writeVersion`, as an arrow-function field or property when the storage writes its `save` that way. */
function writeVersion(writer: Writer): string[] {
  const { storage, save, style, indent } = writer;
  const literal = storage.type === AST_NODE_TYPES.ObjectExpression;
  const values = {
    modifiers: writer.explicitlyPublic ? 'public ' : '',
    returnType: !literal || typedParameters(save) ? ': Promise<bigint | undefined>' : '',
    assign: literal ? ':' : ' =',
    end: literal ? '' : fieldEnd(writer, save),
  };
  return writeVersionLines(values, save?.form === 'arrow', indent, style);
}

/** A literal's `save` takes the condition in place: a third parameter and the refusal first, the rest untouched. */
function conditionInPlace(writer: Writer, save: Save): TextEdit[] {
  const { source, style, naming, sourceCode, names } = writer;
  const { fn } = save;
  const block = fn.body.type === AST_NODE_TYPES.BlockStatement;
  const typed = typedParameters(save);
  const added = [
    ...[unused(naming.id), unused(naming.checkpoint)]
      .slice(save.parameters.length)
      .map((name) => parameter(name, typed ? 'string' : undefined)),
    parameter(naming.condition, typed ? names.conditionType : undefined, true),
  ];
  const headIndent = lineIndent(source, save.form === 'method' ? save.member.range[0] : fn.range[0]);
  // An expression body starts after `=>`, with any parentheses around it.
  const open = block ? fn.body.range[0] : (sourceCode.getTokenAfter(arrowToken(sourceCode, fn))?.range[0] ?? 0);
  const close = block ? fn.body.range[1] - 1 : fn.range[1];
  // A body on the same line as the head moves below the refusal, so only the head has to fit.
  const oneLineBlock = block && !source.slice(open + 1, close).includes('\n');
  const edits = parametersAdded(writer, save, added, { lineEnd: oneLineBlock ? open + 1 : undefined });
  const values = {
    condition: naming.condition,
    refusal: refusal(writer, fn.async),
    statements: block
      ? source.slice(open + 1, close).trim()
      : `return ${source.slice(open, close)}${style.semicolons ? ';' : ''}`,
  };
  if (!block || oneLineBlock) {
    const text = fillTemplate(TEMPLATES.bodyBlock, values, headIndent, style).join(style.newline);
    return [...edits, { start: open, end: fn.range[1], text: text.slice(headIndent.length) }];
  }
  const bodyIndent = /\r?\n([ \t]*)\S/u.exec(source.slice(open, close))?.[1] ?? headIndent + style.indentUnit;
  const guard = fillTemplate(TEMPLATES.guard, values, bodyIndent, style).join(style.newline);
  return [...edits, { start: open + 1, end: open + 1, text: style.newline + guard }];
}

function arrowToken(sourceCode: Readonly<TSESLint.SourceCode>, fn: FunctionValue): TSESTree.Token {
  const token = sourceCode.getTokenBefore(fn.body, { filter: (candidate) => candidate.value === '=>' });
  if (token === null) {
    throw new Error('no-ignored-write-condition: an arrow function without `=>`; this is a bug, please report it.');
  }
  return token;
}

/** `added` after the parameters of `save`, in the parentheses an arrow's single parameter lacked. */
function parametersAdded(
  { source, style, sourceCode }: Writer,
  { fn }: Save,
  added: readonly string[],
  fit: { lineEnd?: number | undefined; wider?: number },
): TextEdit[] {
  const [only, ...others] = fn.params;
  const isOpen = (token: TSESTree.Token) => token.value === '(';
  const open =
    fn.typeParameters === undefined
      ? sourceCode.getFirstToken(fn, { filter: isOpen })
      : sourceCode.getTokenAfter(fn.typeParameters, { filter: isOpen });
  const bare = only !== undefined && others.length === 0 && (open === null || open.range[0] > only.range[0]);
  if (bare) {
    const text = `(${[sourceCode.getText(only), ...added].join(', ')})`;
    return added.length === 0 ? [] : [{ start: only.range[0], end: only.range[1], text }];
  }
  const start = open?.range[0] ?? 0;
  const parentheses = [start, source.indexOf(')', fn.params.at(-1)?.range[1] ?? start + 1)] as const;
  const items = fn.params.map((item) => listItem(item, source));
  return listEdits(source, style, parentheses, items, added, fit);
}

/** The generated members after the last member (or inside empty braces), a literal's joined by commas. */
function appendMembers(writer: Writer, generated: string[][]): TextEdit {
  const { storage, source, style, gap, members: existing, bodyStart, start } = writer;
  const newline = style.newline;
  const literal = storage.type === AST_NODE_TYPES.ObjectExpression;
  const joined = generated.map((lines) => lines.join(newline)).join(literal ? `,${gap}` : gap);
  const last = existing.at(-1);
  if (last === undefined) {
    const text = `${newline}${joined}${literal ? ',' : ''}${newline}${lineIndent(source, start)}`;
    return { start: bodyStart, end: bodyStart, text };
  }
  const comma = literal ? /^\s*,/u.exec(source.slice(last.range[1]))?.[0] : undefined;
  const at = last.range[1] + (comma?.length ?? 0);
  const text = !literal ? gap + joined : comma !== undefined ? `${gap}${joined},` : `,${gap}${joined}`;
  return { start: at, end: at, text };
}
