import type { ChainSummary, ImplementerFacts, SaveFacts } from './implementer-facts.js';
import { upgradeMessages } from './upgrade-messages.js';

/**
 * The shape of `save` written for an implementer:
 * - `delegating`: it has its own two-parameter `save`; that write is kept under a new name and `any()` goes to it.
 * - `inherited`: it inherits a two-parameter `save` from a base that is not an implementer; `any()` goes to `super.save`.
 * - `refusing`: no two-parameter `save` anywhere; every write is refused, so generated code cannot call back into itself.
 * - `follows-base`: an implementing base got the delegating shape; this class's own two-parameter `save` overrode the
 *   base's unconditional write, so it is renamed the same way and keeps overriding it.
 * - `unchanged`: `save` already takes a condition (own or inherited), or a subclass provides it.
 */
export type SaveShape = 'delegating' | 'inherited' | 'refusing' | 'follows-base' | 'unchanged';

/** What to do with one implementer. */
export interface UpgradeDecision {
  readonly implementer: ImplementerFacts;
  readonly saveShape: SaveShape;
  /** The new name of the existing two-parameter `save` (`delegating` and `follows-base`). */
  readonly unconditionalSaveName: string | undefined;
  /** Whether the generated `save` overrides an inherited one and needs the `override` modifier. */
  readonly saveOverrides: boolean;
  /** Whether the generated `save` is `async`, as the `save` it wraps is; a refusing one never is. */
  readonly saveIsAsync: boolean;
  readonly addWriteVersion: boolean;
  /**
   * How the generated `save` is written. A field stays a field; and when every concrete `save` it will call (its own,
   * its subclasses') is an arrow-function field, so is the generated one, so a detached call keeps its `this`.
   */
  readonly saveMember: SaveMember;
  /** Set when a base renamed its `save`: every `super.save` in this class is renamed to this, to keep reaching it. */
  readonly superSaveRename: string | undefined;
  /** Set when the implementer is left alone because the recipe cannot decide safely. */
  readonly skipReason: string | undefined;
}

/** A method, or an arrow-function or function-expression field. */
export type SaveMember = 'method' | 'arrow-field' | 'function-field';

/** The name the existing unconditional write is kept under, unless the class already uses it. */
export const UNCONDITIONAL_SAVE_NAME = 'saveUnconditionally';

interface Effective {
  /** Whether the `save` visible after the upgrade receives the condition; undefined when there is no `save`. */
  readonly saveAcceptsCondition: boolean | undefined;
  /** Whether that `save` is async, so a generated one that wraps it can be too. */
  readonly saveIsAsync: boolean;
  /** Whether that `save` is a field, which a method in a subclass cannot override. */
  readonly saveIsField: boolean;
  readonly hasWriteVersion: boolean;
  /** Set when an implementing ancestor renamed its two-parameter `save` to this name. */
  readonly unconditionalSaveName: string | undefined;
  /** Set when the implementer is left alone; its subclasses are then left alone too. */
  readonly skipReason: string | undefined;
}

/**
 * Decides, for every implementer, which members to write and in which shape. This is the one place both front ends
 * (ts-morph and jscodeshift) ask; they only differ in how they find the facts. Ancestors are decided before their
 * subclasses, so that members land where they belong, once. `refusals` names implementers a front end already knows
 * it must leave alone (a subclass it cannot change along with them); a subclass that cannot follow its base's
 * renamed `save` makes the base refused too, and the hierarchy is decided again until that settles.
 */
export function decideUpgrades(
  implementers: readonly ImplementerFacts[],
  refusals: ReadonlyMap<string, string> = new Map(),
): UpgradeDecision[] {
  const refused = new Map(refusals);
  for (;;) {
    const decisions = decideOnce(implementers, refused);
    const stranded = strandedBases(implementers, decisions).filter(([id]) => !refused.has(id));
    if (stranded.length === 0) {
      return decisions;
    }
    for (const [id, reason] of stranded) {
      refused.set(id, reason);
    }
  }
}

function decideOnce(
  implementers: readonly ImplementerFacts[],
  refusals: ReadonlyMap<string, string>,
): UpgradeDecision[] {
  const byId = new Map(implementers.map((implementer) => [implementer.id, implementer]));
  const hierarchy = new Hierarchy(implementers);
  const decisions = new Map<string, UpgradeDecision>();
  const effective = new Map<string, Effective>();

  const decide = (implementer: ImplementerFacts, visiting: Set<string>): Effective => {
    const known = effective.get(implementer.id);
    if (known !== undefined) {
      return known;
    }
    if (visiting.has(implementer.id)) {
      throw new Error(upgradeMessages.extendsItself(implementer.name, implementer.file));
    }
    visiting.add(implementer.id);
    const parent = parentEffective(implementer, byId, (base) => decide(base, visiting));
    const refusal = refusals.get(implementer.id);
    const decision =
      refusal === undefined
        ? { ...decideOne(implementer, parent, hierarchy), superSaveRename: parent?.unconditionalSaveName }
        : skip(implementer, refusal);
    decisions.set(implementer.id, decision);
    const keepsVisibleSave = decision.skipReason !== undefined || decision.saveShape === 'unchanged';
    const result: Effective = {
      skipReason: decision.skipReason,
      saveIsAsync: implementer.ownSave?.isAsync ?? parent?.saveIsAsync ?? true,
      saveIsField:
        implementer.ownSave === undefined ? parent?.saveIsField === true : implementer.ownSave.form === 'property',
      saveAcceptsCondition:
        decision.saveShape === 'follows-base'
          ? parent?.saveAcceptsCondition
          : keepsVisibleSave
            ? (implementer.ownSave?.acceptsCondition ?? parent?.saveAcceptsCondition)
            : true,
      hasWriteVersion: implementer.ownWriteVersion || parent?.hasWriteVersion === true || decision.addWriteVersion,
      unconditionalSaveName: decision.unconditionalSaveName ?? parent?.unconditionalSaveName,
    };
    effective.set(implementer.id, result);
    return result;
  };

  for (const implementer of implementers) {
    decide(implementer, new Set());
  }
  return implementers.map((implementer) => decisions.get(implementer.id) as UpgradeDecision);
}

/** Subclasses by base, within the implementers of one run. */
class Hierarchy {
  readonly #children = new Map<string, ImplementerFacts[]>();

  constructor(implementers: readonly ImplementerFacts[]) {
    for (const implementer of implementers) {
      if (implementer.base?.kind === 'implementer') {
        this.#children.set(implementer.base.id, [...(this.#children.get(implementer.base.id) ?? []), implementer]);
      }
    }
  }

  /** Every class below `id`, nearest first. */
  descendants(id: string): ImplementerFacts[] {
    const found: ImplementerFacts[] = [];
    for (let pending = [...(this.#children.get(id) ?? [])]; pending.length > 0;) {
      const next = pending.shift() as ImplementerFacts;
      if (!found.includes(next)) {
        found.push(next);
        pending = [...pending, ...(this.#children.get(next.id) ?? [])];
      }
    }
    return found;
  }
}

/** Whether a subclass has code that must change with its base's renamed `save`: its own `save`, or `super.save`. */
function followsRename(implementer: ImplementerFacts): boolean {
  return implementer.ownSave !== undefined || implementer.superSaveNames.length > 0;
}

/**
 * Bases whose renamed `save` would strand a subclass that cannot follow it (left alone for a reason of its own):
 * that subclass would go on overriding, or calling, a member that no longer does what it did.
 */
function strandedBases(
  implementers: readonly ImplementerFacts[],
  decisions: readonly UpgradeDecision[],
): [string, string][] {
  const hierarchy = new Hierarchy(implementers);
  const decisionOf = new Map(decisions.map((decision) => [decision.implementer.id, decision]));
  const stranded: [string, string][] = [];
  for (const decision of decisions) {
    if (decision.saveShape !== 'delegating' || decision.unconditionalSaveName === undefined) {
      continue;
    }
    const subclass = hierarchy
      .descendants(decision.implementer.id)
      .find((candidate) => followsRename(candidate) && decisionOf.get(candidate.id)?.skipReason !== undefined);
    const reason = subclass === undefined ? undefined : decisionOf.get(subclass.id)?.skipReason;
    if (subclass !== undefined && reason !== undefined) {
      stranded.push([
        decision.implementer.id,
        upgradeMessages.subclassCannotFollow(subclass.name, subclass.file, reason),
      ]);
    }
  }
  return stranded;
}

/** What the implementer inherits, or `undefined` without a base class; `null` when the base cannot be seen into. */
function parentEffective(
  implementer: ImplementerFacts,
  byId: ReadonlyMap<string, ImplementerFacts>,
  decideBase: (base: ImplementerFacts) => Effective,
): Effective | undefined | null {
  const base = implementer.base;
  switch (base?.kind) {
    case undefined:
      return undefined;
    case 'unknown':
      return null;
    case 'plain':
      return summaryEffective(base);
    case 'implementer': {
      // A base outside this run (a path that was not selected) is not upgraded: it stands as it is.
      const parent = byId.get(base.id);
      return parent === undefined ? summaryEffective(base) : decideBase(parent);
    }
  }
}

function summaryEffective(summary: ChainSummary): Effective {
  return {
    saveAcceptsCondition: summary.saveParameterCount === undefined ? undefined : summary.saveParameterCount >= 3,
    saveIsAsync: summary.saveIsAsync,
    saveIsField: summary.saveIsField,
    hasWriteVersion: summary.hasWriteVersion,
    unconditionalSaveName: undefined,
    skipReason: undefined,
  };
}

/** Nothing to write: the decision every other one starts from. */
function unchanged(implementer: ImplementerFacts): UpgradeDecision {
  return {
    implementer,
    saveShape: 'unchanged',
    unconditionalSaveName: undefined,
    saveOverrides: false,
    saveIsAsync: implementer.ownSave?.isAsync ?? true,
    addWriteVersion: false,
    saveMember: 'method',
    superSaveRename: undefined,
    skipReason: undefined,
  };
}

function skip(implementer: ImplementerFacts, reason: string): UpgradeDecision {
  return { ...unchanged(implementer), saveIsAsync: false, skipReason: reason };
}

function decideOne(
  implementer: ImplementerFacts,
  parent: Effective | undefined | null,
  hierarchy: Hierarchy,
): UpgradeDecision {
  const ownSave = implementer.ownSave;
  const none = unchanged(implementer);
  if (ownSave?.acceptsCondition === true && implementer.ownWriteVersion) {
    return none;
  }
  if (parent === null) {
    const base = implementer.base?.kind === 'unknown' ? implementer.base : undefined;
    return skip(
      implementer,
      upgradeMessages.baseNotVisible(base?.name ?? 'its base class', base?.where ?? 'another-file'),
    );
  }
  if (parent?.skipReason !== undefined) {
    const baseName = implementer.base?.name ?? 'its base class';
    return skip(implementer, upgradeMessages.baseLeftAlone(baseName, parent.skipReason));
  }
  // Members spread into a literal cannot be seen; a generated writeVersion could replace one they provide.
  const addWriteVersion =
    !implementer.ownWriteVersion && parent?.hasWriteVersion !== true && !implementer.membersMayComeFromElsewhere;

  if (ownSave !== undefined) {
    if (ownSave.acceptsCondition) {
      return { ...none, addWriteVersion };
    }
    const unsupported = unsupportedSave(ownSave);
    if (unsupported !== undefined) {
      return skip(implementer, unsupported);
    }
    if (parent?.unconditionalSaveName !== undefined) {
      if (ownSave.decorators !== undefined) {
        return skip(implementer, upgradeMessages.decoratedFollower(implementer.base?.name ?? 'its base class'));
      }
      return {
        ...none,
        saveShape: 'follows-base',
        unconditionalSaveName: parent.unconditionalSaveName,
        addWriteVersion,
      };
    }
    if (implementer.kind === 'object-literal') {
      // An object literal takes the condition in place (see member-edits.ts), so nothing is renamed.
      return { ...none, saveShape: 'delegating', addWriteVersion };
    }
    const saveMember = generatedSaveMember(implementer, ownSave, hierarchy.descendants(implementer.id));
    if (typeof saveMember !== 'string') {
      return skip(implementer, upgradeMessages.bindingsDiffer(saveMember.bound, saveMember.unbound));
    }
    return {
      ...none,
      saveShape: 'delegating',
      unconditionalSaveName: freshName(UNCONDITIONAL_SAVE_NAME, implementer.memberNames),
      saveOverrides: parent?.saveAcceptsCondition !== undefined || ownSave.overrideKeyword !== undefined,
      saveMember,
      addWriteVersion,
    };
  }
  if (parent?.saveAcceptsCondition !== undefined) {
    if (!parent.saveAcceptsCondition && parent.saveIsField) {
      return skip(
        implementer,
        upgradeMessages.inheritsSaveField(implementer.base?.name ?? 'its base class', implementer.name),
      );
    }
    return parent.saveAcceptsCondition
      ? { ...none, addWriteVersion }
      : {
          ...none,
          saveShape: 'inherited',
          saveOverrides: true,
          saveIsAsync: parent.saveIsAsync,
          addWriteVersion,
        };
  }
  if (implementer.isAbstract && hierarchy.descendants(implementer.id).some((other) => other.ownSave !== undefined)) {
    return { ...none, addWriteVersion };
  }
  return { ...none, saveShape: 'refusing', saveIsAsync: false, addWriteVersion };
}

/** Why a `save` the recipe would rename or extend cannot be: overloads, a getter, a value from elsewhere. */
function unsupportedSave(save: SaveFacts): string | undefined {
  if (save.form === 'value') {
    return upgradeMessages.saveIsValue();
  }
  if (save.form === 'accessor') {
    return upgradeMessages.saveIsAccessor();
  }
  return save.hasOverloads ? upgradeMessages.saveHasOverloads() : undefined;
}

/**
 * The kind of member the generated `save` of a class is. It calls the unconditional write of whichever class an
 * instance is: when all of those (its own unless abstract, every subclass's) are arrow-function fields, it is one
 * too, so that `const save = storage.save` keeps working; when none is, it is a method, or a function field like
 * the class's own. When they differ, no single member keeps every class as it was.
 */
function generatedSaveMember(
  implementer: ImplementerFacts,
  ownSave: SaveFacts,
  descendants: readonly ImplementerFacts[],
): SaveMember | { readonly bound: string; readonly unbound: string } {
  const concrete = [
    ...(ownSave.form === 'abstract-method' ? [] : [{ name: implementer.name, save: ownSave }]),
    ...descendants.flatMap((descendant) =>
      descendant.ownSave === undefined || descendant.ownSave.form === 'abstract-method'
        ? []
        : [{ name: descendant.name, save: descendant.ownSave }],
    ),
  ];
  const isBound = (save: SaveFacts): boolean => save.form === 'property' && save.functionKind === 'arrow';
  const bound = concrete.find(({ save }) => isBound(save));
  const unbound = concrete.find(({ save }) => !isBound(save));
  if (bound !== undefined && unbound !== undefined) {
    return { bound: bound.name, unbound: unbound.name };
  }
  if (bound !== undefined) {
    return 'arrow-field';
  }
  return ownSave.form === 'property' && ownSave.functionKind === 'function' ? 'function-field' : 'method';
}

function freshName(wanted: string, taken: readonly string[]): string {
  let candidate = wanted;
  for (let suffix = 2; taken.includes(candidate); suffix += 1) {
    candidate = `${wanted}${suffix}`;
  }
  return candidate;
}

/**
 * For a run over some paths of a project: the implementers in those paths that must be left alone because their
 * class hierarchy reaches outside them, into a class whose `save` would have to change too (renamed along with a
 * base, or its `super.save` calls renamed). Upgrading one side alone would leave the other overriding, or calling,
 * a member that no longer does what it did. `all` are the implementers of the whole project, decided as a whole-project
 * run would; writeVersion added on one side alone changes nothing the other relies on.
 */
export function refusalsForPartialRun(
  all: readonly ImplementerFacts[],
  selected: (implementer: ImplementerFacts) => boolean,
): Map<string, string> {
  const whole = new Map(decideUpgrades(all).map((decision) => [decision.implementer.id, decision]));
  const byId = new Map(all.map((implementer) => [implementer.id, implementer]));
  // A hierarchy is a tree (one base a class): its members share the id of their topmost ancestor.
  const rootOf = (implementer: ImplementerFacts): string => {
    let id = implementer.id;
    for (let base = byId.get(id)?.base; base?.kind === 'implementer'; base = byId.get(id)?.base) {
      id = base.id;
    }
    return id;
  };
  const outside = new Map<string, ImplementerFacts>();
  for (const member of all) {
    const decision = whole.get(member.id);
    if (
      !selected(member) &&
      decision !== undefined &&
      decision.skipReason === undefined &&
      (decision.saveShape !== 'unchanged' ||
        (decision.superSaveRename !== undefined && member.superSaveNames.length > 0))
    ) {
      outside.set(rootOf(member), outside.get(rootOf(member)) ?? member);
    }
  }
  const refusals = new Map<string, string>();
  for (const member of all.filter(selected)) {
    const other = outside.get(rootOf(member));
    if (other !== undefined) {
      refusals.set(member.id, upgradeMessages.outsideSelection(other.name, other.file));
    }
  }
  return refusals;
}
