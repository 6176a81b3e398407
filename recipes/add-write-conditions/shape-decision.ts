import type { ImplementerFacts } from './implementer-facts.js';

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
  readonly addWriteVersion: boolean;
  /** Set when the implementer is left alone because the recipe cannot decide safely. */
  readonly skipReason: string | undefined;
}

/** The name the existing unconditional write is kept under, unless the class already uses it. */
export const UNCONDITIONAL_SAVE_NAME = 'saveUnconditionally';

interface Effective {
  /** Parameter count of the `save` visible after the upgrade, or undefined when none exists. */
  readonly saveParameterCount: number | undefined;
  readonly hasWriteVersion: boolean;
  /** Set when an implementing ancestor renamed its two-parameter `save` to this name. */
  readonly unconditionalSaveName: string | undefined;
}

/**
 * Decides, for every implementer, which members to write and in which shape. This is the one place both front ends
 * (ts-morph and jscodeshift) ask; they only differ in how they find the facts. Ancestors are decided before their
 * subclasses, so that members land where they belong, once.
 */
export function decideUpgrades(implementers: readonly ImplementerFacts[]): UpgradeDecision[] {
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
      throw new Error(
        `add-write-conditions: ${implementer.name} in ${implementer.file} extends itself through its base classes.`,
      );
    }
    visiting.add(implementer.id);
    const parent = parentEffective(implementer, byId, (base) => decide(base, visiting));
    const decision = decideOne(implementer, parent, subclassDeclaresSave(implementer.id));
    decisions.set(implementer.id, decision);
    const keepsVisibleSave = decision.skipReason !== undefined || decision.saveShape === 'unchanged';
    const result: Effective = {
      saveParameterCount:
        decision.saveShape === 'follows-base'
          ? parent?.saveParameterCount
          : keepsVisibleSave
            ? (implementer.ownSave?.parameterCount ?? parent?.saveParameterCount)
            : 3,
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
      return {
        saveParameterCount: base.saveParameterCount,
        hasWriteVersion: base.hasWriteVersion,
        unconditionalSaveName: undefined,
      };
    case 'implementer': {
      const parent = byId.get(base.id);
      return parent === undefined ? null : decideBase(parent);
    }
  }
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
    addWriteVersion: false,
    skipReason: undefined,
  } as const;
  const ownIsComplete = ownSave !== undefined && ownSave.parameterCount >= 3 && implementer.ownWriteVersion;
  if (ownIsComplete) {
    return unchanged;
  }
  if (parent === null) {
    const baseName = implementer.base?.kind === 'unknown' ? implementer.base.name : 'its base class';
    return {
      ...unchanged,
      skipReason: `extends ${baseName}, whose members cannot be seen here; run \`npx checkpoint-fencing upgrade\` (type-aware) on this project instead.`,
    };
  }
  const addWriteVersion = !implementer.ownWriteVersion && parent?.hasWriteVersion !== true;
  const parentSave = parent?.saveParameterCount;

  if (ownSave !== undefined) {
    if (ownSave.parameterCount >= 3) {
      return { ...unchanged, addWriteVersion };
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
      // An object literal keeps its old write inline (see member-text.ts), so nothing is renamed.
      unconditionalSaveName:
        implementer.kind === 'class' ? freshName(UNCONDITIONAL_SAVE_NAME, implementer.memberNames) : undefined,
      saveOverrides: parentSave !== undefined,
      addWriteVersion,
    };
  }
  if (parentSave !== undefined) {
    return parentSave >= 3
      ? { ...unchanged, addWriteVersion }
      : { ...unchanged, saveShape: 'inherited', saveOverrides: true, addWriteVersion };
  }
  if (implementer.isAbstract && subclassesDeclareSave) {
    return { ...unchanged, addWriteVersion };
  }
  return { ...unchanged, saveShape: 'refusing', addWriteVersion };
}

function freshName(wanted: string, taken: readonly string[]): string {
  let candidate = wanted;
  for (let suffix = 2; taken.includes(candidate); suffix += 1) {
    candidate = `${wanted}${suffix}`;
  }
  return candidate;
}
