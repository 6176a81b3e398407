import type { GeneratedNames } from './import-plan.js';
import type { ImplementerFacts, SaveFacts } from './implementer-facts.js';
import type { UpgradeDecision } from './shape-decision.js';
import type { SourceStyle } from './source-style.js';
import type { TextEdit } from './text-edit.js';

/** The marker every generated or rewritten member carries, so that a search finds each one. */
export const TODO_MARKER = 'TODO [checkpoint-fencing upgrade]';

/** The comment above every generated or rewritten member. */
export const TODO_COMMENT = `// ${TODO_MARKER} This is the right permanent answer for a store that cannot evaluate write conditions; replace it only if this store can evaluate them atomically with the write.`;

/** Everything the text of a member depends on besides the decision. */
export interface MemberTextContext {
  readonly source: string;
  readonly style: SourceStyle;
  readonly names: GeneratedNames;
  /** Whether to write type annotations (TypeScript) or leave them out (JavaScript). */
  readonly typescript: boolean;
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

/**
 * The text edits that carry out one decision: renames of the existing unconditional write, the new `save`, the new
 * `writeVersion`. Everything else in the file stays byte for byte.
 */
export function memberEdits(decision: UpgradeDecision, context: MemberTextContext): TextEdit[] {
  if (decision.skipReason !== undefined) {
    return [];
  }
  const implementer = decision.implementer;
  const indent = memberIndent(implementer, context.style);
  const edits: TextEdit[] = [];
  const newMembers: string[] = [];
  const save = implementer.ownSave;
  const literal = implementer.kind === 'object-literal';

  switch (decision.saveShape) {
    case 'delegating':
      if (save === undefined) {
        throw new Error(
          `add-write-conditions: ${implementer.name} was given the delegating shape without a save of its own; this is a bug.`,
        );
      }
      if (literal || decision.unconditionalSaveName === undefined) {
        edits.push({ start: save.start, end: save.end, text: literalDelegatingSave(save, indent, context) });
      } else {
        edits.push(...renameEdits(save, decision.unconditionalSaveName, false, indent, context));
        edits.push({
          start: save.end,
          end: save.end,
          text:
            separator(implementer, context) +
            saveText(indent, context, decision.saveOverrides, `this.${decision.unconditionalSaveName}`),
        });
      }
      break;
    case 'follows-base':
      if (save === undefined || decision.unconditionalSaveName === undefined) {
        throw new Error(
          `add-write-conditions: ${implementer.name} follows its base without a save of its own; this is a bug.`,
        );
      }
      edits.push(...renameEdits(save, decision.unconditionalSaveName, true, indent, context));
      break;
    case 'inherited':
      newMembers.push(saveText(indent, context, decision.saveOverrides, 'super.save'));
      break;
    case 'refusing':
      newMembers.push(refusingSaveText(indent, context));
      break;
    case 'unchanged':
      break;
  }
  if (decision.addWriteVersion) {
    newMembers.push(writeVersionText(indent, context));
  }
  if (newMembers.length > 0) {
    edits.push(appendMembers(implementer, newMembers, context));
  }
  return edits;
}

function memberIndent(implementer: ImplementerFacts, style: SourceStyle): string {
  return implementer.body.memberIndent !== ''
    ? implementer.body.memberIndent
    : implementer.body.outerIndent + style.indentUnit;
}

/** A blank line between members when the body already separates its members that way. */
function separator(implementer: ImplementerFacts, context: MemberTextContext): string {
  const body = context.source.slice(implementer.body.openBrace, implementer.body.closeBrace);
  const blank = /\n[ \t]*\r?\n/.test(body) || implementer.body.lastMemberEnd === undefined;
  return blank ? context.style.newline + context.style.newline : context.style.newline;
}

function renameEdits(
  save: SaveFacts,
  name: string,
  renameSuperCalls: boolean,
  indent: string,
  context: MemberTextContext,
): TextEdit[] {
  return [
    { start: save.start, end: save.start, text: `${TODO_COMMENT}${context.style.newline}${indent}` },
    { start: save.nameStart, end: save.nameEnd, text: name },
    ...(renameSuperCalls ? save.superSaveNames.map((range) => ({ ...range, text: name })) : []),
  ];
}

function lines(indent: string, context: MemberTextContext, body: readonly string[]): string {
  return body.map((line, index) => (index === 0 ? line : line === '' ? '' : indent + line)).join(context.style.newline);
}

function statement(text: string, context: MemberTextContext): string {
  return context.style.semicolons ? `${text};` : text;
}

function saveSignature(
  context: MemberTextContext,
  overrides: boolean,
  conditionOptional: boolean,
  unusedPrefix: string,
): string {
  const { typescript, names } = context;
  const modifier = overrides && typescript ? 'override ' : '';
  if (!typescript) {
    return `${modifier}async save(${unusedPrefix}subscriptionId, ${unusedPrefix}checkpoint, condition)`;
  }
  const condition = `condition${conditionOptional ? '?' : ''}: ${names.conditionType ?? 'unknown'}`;
  return `${modifier}async save(${unusedPrefix}subscriptionId: string, ${unusedPrefix}checkpoint: string, ${condition}): Promise<string>`;
}

function guard(context: MemberTextContext): string[] {
  const { quote } = context.style;
  const unit = context.style.indentUnit;
  return [
    `${unit}if (condition !== undefined && condition.kind !== ${quote}any${quote}) {`,
    `${unit}${unit}${statement(`throw new ${context.names.unsupportedError}(condition)`, context)}`,
    `${unit}}`,
  ];
}

/** `save` that sends `any()` (and the legacy two-argument call) to `target` and refuses every other condition. */
function saveText(indent: string, context: MemberTextContext, overrides: boolean, target: string): string {
  return lines(indent, context, [
    `${indent}${TODO_COMMENT}`,
    `${saveSignature(context, overrides, true, '')} {`,
    ...guard(context),
    `${context.style.indentUnit}${statement(`return ${target}(subscriptionId, checkpoint)`, context)}`,
    '}',
  ]);
}

function refusingSaveText(indent: string, context: MemberTextContext): string {
  return lines(indent, context, [
    `${indent}${TODO_COMMENT}`,
    `${saveSignature(context, false, false, '_')} {`,
    `${context.style.indentUnit}${statement(`throw new ${context.names.unsupportedError}(condition)`, context)}`,
    '}',
  ]);
}

function writeVersionText(indent: string, context: MemberTextContext): string {
  const signature = context.typescript
    ? 'async writeVersion(_subscriptionId: string): Promise<bigint | undefined>'
    : 'async writeVersion(_subscriptionId)';
  return lines(indent, context, [
    `${indent}${TODO_COMMENT}`,
    `${signature} {`,
    `${context.style.indentUnit}${statement('return undefined', context)}`,
    '}',
  ]);
}

/**
 * An object literal cannot gain a renamed member (a typed literal rejects unknown properties), so its two-parameter
 * `save` becomes a function expression called from inside the new `save`, its body kept and indented one level deeper.
 */
function literalDelegatingSave(save: SaveFacts, indent: string, context: MemberTextContext): string {
  if (save.asFunctionExpression === undefined) {
    throw new Error(
      'add-write-conditions: an object-literal save arrived without its function expression; this is a bug.',
    );
  }
  const unit = context.style.indentUnit;
  const reindented = save.asFunctionExpression.replace(/\r?\n(?=[ \t]*\S)/g, (newline) => newline + unit);
  const call =
    save.needsThisBinding === true
      ? `(${reindented}).call(this, subscriptionId, checkpoint)`
      : `(${reindented})(subscriptionId, checkpoint)`;
  return lines(indent, context, [
    TODO_COMMENT,
    `${saveSignature(context, false, true, '')} {`,
    ...guard(context),
    `${unit}${statement(`return ${call}`, context)}`,
    '}',
  ]);
}

function appendMembers(
  implementer: ImplementerFacts,
  members: readonly string[],
  context: MemberTextContext,
): TextEdit {
  const { body } = implementer;
  const newline = context.style.newline;
  const gap = separator(implementer, context);
  if (implementer.kind === 'object-literal') {
    const joined = members.join(`,${gap}`);
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
      text: `${newline}${members.join(gap)}${newline}${body.outerIndent}`,
    };
  }
  return { start: body.lastMemberEnd, end: body.lastMemberEnd, text: gap + members.join(gap) };
}
