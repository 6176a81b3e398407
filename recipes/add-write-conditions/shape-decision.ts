import type { ChainSummary, ImplementerFacts } from './implementer-facts.js';
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
  /** Set when the implementer is left alone because the recipe cannot decide safely. */
  readonly skipReason: string | undefined;
}

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
 * subclasses, so that members land where they belong, once.
 */
export function decideUpgrades(
  implementers: readonly ImplementerFacts[],
  refusals: ReadonlyMap<string, string> = new Map(),
): UpgradeDecision[] {
  const byId = new Map(implementers.map((implementer) => [implementer.id, implementer]));
  const decisions = new Map<string, UpgradeDecision>();
  const effective = new Map<string, Effective>();

  const subclassDeclaresSave = (id: string): boolean =>
    implementers.some(
      (other) =>
        other.base?.kind === 'implementer' &&
        other.base.id === id &&
        (other.ownSave !== undefined || subclassDeclaresSave(other.id)),
    );

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
        ? decideOne(implementer, parent, subclassDeclaresSave(implementer.id))
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

function skip(implementer: ImplementerFacts, reason: string): UpgradeDecision {
  return {
    implementer,
    saveShape: 'unchanged',
    unconditionalSaveName: undefined,
    saveOverrides: false,
    saveIsAsync: false,
    addWriteVersion: false,
    skipReason: reason,
  };
}

function decideOne(
  implementer: ImplementerFacts,
  parent: Effective | undefined | null,
  subclassesDeclareSave: boolean,
): UpgradeDecision {
  const ownSave = implementer.ownSave;
  const unchanged = {
    implementer,
    saveShape: 'unchanged',
    unconditionalSaveName: undefined,
    saveOverrides: false,
    saveIsAsync: ownSave?.isAsync ?? true,
    addWriteVersion: false,
    skipReason: undefined,
  } as const;
  if (ownSave?.acceptsCondition === true && implementer.ownWriteVersion) {
    return unchanged;
  }
  if (parent === null) {
    const baseName = implementer.base?.kind === 'unknown' ? implementer.base.name : 'its base class';
    return skip(implementer, upgradeMessages.baseNotVisible(baseName));
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
      return { ...unchanged, addWriteVersion };
    }
    if (ownSave.form === 'value') {
      return skip(implementer, upgradeMessages.saveIsValue());
    }
    if (parent?.unconditionalSaveName !== undefined) {
      return {
        ...unchanged,
        saveShape: 'follows-base',
        unconditionalSaveName: parent.unconditionalSaveName,
        addWriteVersion,
      };
    }
    return {
      ...unchanged,
      saveShape: 'delegating',
      // An object literal takes the condition in place (see member-text.ts), so nothing is renamed.
      unconditionalSaveName:
        implementer.kind === 'class' ? freshName(UNCONDITIONAL_SAVE_NAME, implementer.memberNames) : undefined,
      saveOverrides: parent?.saveAcceptsCondition !== undefined,
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
      ? { ...unchanged, addWriteVersion }
      : {
          ...unchanged,
          saveShape: 'inherited',
          saveOverrides: true,
          saveIsAsync: parent.saveIsAsync,
          addWriteVersion,
        };
  }
  if (implementer.isAbstract && subclassesDeclareSave) {
    return { ...unchanged, addWriteVersion };
  }
  return { ...unchanged, saveShape: 'refusing', saveIsAsync: false, addWriteVersion };
}

function freshName(wanted: string, taken: readonly string[]): string {
  let candidate = wanted;
  for (let suffix = 2; taken.includes(candidate); suffix += 1) {
    candidate = `${wanted}${suffix}`;
  }
  return candidate;
}
