import { chainSummary, type ChainSummary, type ImplementerFacts, type SaveFacts } from './implementer-facts.js';
import { upgradeMessages } from './upgrade-messages.js';

/**
 * The shape of `save` written for an implementer (doc/adr/0202, 0205):
 * - `delegating`: it has its own two-parameter `save`; that write is kept under a new name and `any()` goes to it.
 * - `inherited`: it inherits a two-parameter `save` from a base that is not an implementer; `any()` goes to `super.save`.
 * - `refusing`: no two-parameter `save` anywhere; every write is refused, so generated code cannot call back into itself.
 * - `object-literal`: an object literal's own two-parameter `save` takes the condition in place; nothing is renamed.
 * - `constructor-assigned`: so does the function a class assigns to its `save` field (in the constructor, or a bound
 *   method); being the instance's own property, it shadows any `save` a base declares, renamed or not.
 * - `follows-base`: an implementing base got the delegating shape; this class's own two-parameter `save` overrode the
 *   base's unconditional write, so it is renamed the same way and keeps overriding it.
 * - `unchanged`: `save` already takes a condition (own or inherited), or a subclass provides it.
 */
export type SaveShape =
  'delegating' | 'object-literal' | 'constructor-assigned' | 'inherited' | 'refusing' | 'follows-base' | 'unchanged';

/** What to do with one implementer. */
export interface UpgradeDecision {
  readonly implementer: ImplementerFacts;
  readonly saveShape: SaveShape;
  /** The new name of the existing two-parameter `save` (`delegating` and `follows-base`). */
  readonly unconditionalSaveName: string | undefined;
  /** The generated `save` overrides an inherited one (`override`). */
  readonly saveOverrides: boolean;
  /** The generated `save` is `async`, as the `save` it wraps is; a refusing one never is. */
  readonly saveIsAsync: boolean;
  readonly addWriteVersion: boolean;
  /** See {@link generatedSaveMember}. */
  readonly saveMember: 'method' | 'arrow-field' | 'function-field';
  /** Set when a base renamed its `save`: every `super.save` in this class is renamed to this. */
  readonly superSaveRename: string | undefined;
  /** Set when the implementer is left alone because the recipe cannot decide safely. */
  readonly skipReason: string | undefined;
}

/** The name the existing unconditional write is kept under, unless the class already uses it. */
const UNCONDITIONAL_SAVE_NAME = 'saveUnconditionally';

/** What a subclass inherits once its base is decided: `skipReason` leaves the subclass alone too. */
type Effective = ChainSummary & {
  readonly unconditionalSaveName: string | undefined;
  readonly skipReason: string | undefined;
};

/**
 * Decides, ancestors first, which members every implementer gets and in which shape. `refusals` are left alone; a
 * subclass that cannot follow its base's renamed `save` gets the base refused too, until that settles.
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
    stranded.forEach(([id, reason]) => refused.set(id, reason));
  }
}

function decideOnce(
  implementers: readonly ImplementerFacts[],
  refusals: ReadonlyMap<string, string>,
): UpgradeDecision[] {
  const byId = new Map(implementers.map((implementer) => [implementer.id, implementer]));
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
    const base = implementer.base;
    // A base outside this run (a path that was not selected) is not upgraded: it stands as it is.
    const baseInRun = base?.kind === 'implementer' ? byId.get(base.id) : undefined;
    const parent =
      base === undefined
        ? undefined
        : base.kind === 'unknown'
          ? null
          : baseInRun !== undefined
            ? decide(baseInRun, visiting)
            : { ...base, unconditionalSaveName: undefined, skipReason: undefined };
    const refusal = refusals.get(implementer.id);
    const decision =
      refusal === undefined
        ? { ...decideOne(implementer, parent, implementers), superSaveRename: parent?.unconditionalSaveName }
        : skip(implementer, refusal);
    decisions.set(implementer.id, decision);
    const summary = chainSummary(
      implementer.ownSave,
      implementer.ownWriteVersion || decision.addWriteVersion,
      parent ?? undefined,
    );
    // A generated or extended `save` takes the condition.
    const keepsSave = decision.skipReason !== undefined || decision.saveShape === 'unchanged';
    const result: Effective = {
      ...summary,
      saveAcceptsCondition: keepsSave ? summary.saveAcceptsCondition : true,
      skipReason: decision.skipReason,
      unconditionalSaveName: decision.unconditionalSaveName ?? parent?.unconditionalSaveName,
    };
    effective.set(implementer.id, result);
    return result;
  };
  implementers.forEach((implementer) => decide(implementer, new Set()));
  return implementers.map((implementer) => decisions.get(implementer.id) as UpgradeDecision);
}

/** Every implementer below `id`, nearest first. */
function descendants(implementers: readonly ImplementerFacts[], id: string): ImplementerFacts[] {
  const childrenOf = (parent: string) =>
    implementers.filter((child) => child.base?.kind === 'implementer' && child.base.id === parent);
  const found = childrenOf(id);
  // Appended while iterating, so that grandchildren come after every child.
  for (const child of found) {
    found.push(...childrenOf(child.id).filter((grandchild) => !found.includes(grandchild)));
  }
  return found;
}

/** Bases whose renamed `save` would strand a subclass left alone that overrides or calls it (`super.save`). */
function strandedBases(
  implementers: readonly ImplementerFacts[],
  decisions: readonly UpgradeDecision[],
): [string, string][] {
  const reasons = new Map(decisions.map((decision) => [decision.implementer.id, decision.skipReason]));
  return decisions.flatMap(({ saveShape, implementer }): [string, string][] => {
    const subclass = (saveShape === 'delegating' ? descendants(implementers, implementer.id) : []).find(
      (candidate) =>
        (candidate.ownSave !== undefined || candidate.superSaveNames.length > 0) &&
        reasons.get(candidate.id) !== undefined,
    );
    const reason = subclass === undefined ? undefined : reasons.get(subclass.id);
    return subclass === undefined || reason === undefined
      ? []
      : [[implementer.id, upgradeMessages.subclassCannotFollow(subclass.name, subclass.file, reason)]];
  });
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

/** `parent`: what the implementer inherits; `undefined` without a base class, `null` when it cannot be seen into. */
function decideOne(
  implementer: ImplementerFacts,
  parent: Effective | undefined | null,
  implementers: readonly ImplementerFacts[],
): UpgradeDecision {
  const { ownSave, base } = implementer;
  const baseName = base?.name ?? 'its base class';
  const none = unchanged(implementer);
  if (ownSave?.acceptsCondition === true && implementer.ownWriteVersion) {
    return none;
  }
  if (implementer.unfollowedConstructorWrite !== undefined) {
    return skip(implementer, implementer.unfollowedConstructorWrite);
  }
  if (parent === null) {
    return skip(
      implementer,
      upgradeMessages.baseNotVisible(baseName, base?.kind === 'unknown' ? base.where : 'another-file'),
    );
  }
  if (parent?.skipReason !== undefined) {
    return skip(implementer, upgradeMessages.baseLeftAlone(baseName, parent.skipReason));
  }
  // Members spread into a literal cannot be seen; a generated writeVersion could replace one they provide.
  const addWriteVersion =
    !implementer.ownWriteVersion && parent?.hasWriteVersion !== true && !implementer.membersMayComeFromElsewhere;
  if (ownSave === undefined) {
    if (parent?.saveAcceptsCondition === false && parent.saveIsField) {
      return skip(implementer, upgradeMessages.inheritsSaveField(baseName, implementer.name));
    }
    if (parent?.saveAcceptsCondition === false) {
      return { ...none, saveShape: 'inherited', saveOverrides: true, saveIsAsync: parent.saveIsAsync, addWriteVersion };
    }
    const providedBelow =
      parent?.saveAcceptsCondition === true ||
      (implementer.isAbstract &&
        descendants(implementers, implementer.id).some((other) => other.ownSave !== undefined));
    return providedBelow
      ? { ...none, addWriteVersion }
      : { ...none, saveShape: 'refusing', saveIsAsync: false, addWriteVersion };
  }
  if (ownSave.acceptsCondition) {
    return { ...none, addWriteVersion };
  }
  if (ownSave.unsupported !== undefined) {
    return skip(implementer, ownSave.unsupported);
  }
  if (ownSave.assigned) {
    return { ...none, saveShape: 'constructor-assigned', addWriteVersion };
  }
  if (parent?.unconditionalSaveName !== undefined) {
    return ownSave.isDecorated
      ? skip(implementer, upgradeMessages.decoratedFollower(baseName))
      : { ...none, saveShape: 'follows-base', unconditionalSaveName: parent.unconditionalSaveName, addWriteVersion };
  }
  if (implementer.kind === 'object-literal') {
    return { ...none, saveShape: 'object-literal', addWriteVersion };
  }
  const saveMember = generatedSaveMember(implementer, ownSave, descendants(implementers, implementer.id));
  if (typeof saveMember !== 'string') {
    return skip(implementer, upgradeMessages.bindingsDiffer(saveMember.bound, saveMember.unbound));
  }
  let unconditionalSaveName = UNCONDITIONAL_SAVE_NAME;
  for (let suffix = 2; implementer.memberNames.includes(unconditionalSaveName); suffix += 1) {
    unconditionalSaveName = `${UNCONDITIONAL_SAVE_NAME}${suffix}`;
  }
  return {
    ...none,
    saveShape: 'delegating',
    unconditionalSaveName,
    saveOverrides: parent?.saveAcceptsCondition !== undefined || ownSave.isOverride,
    saveMember,
    addWriteVersion,
  };
}

/**
 * The member the generated `save` is: an arrow field when every unconditional write it may call (its own unless
 * abstract, every subclass's) is one, so `const save = storage.save` keeps working; when none is, a method or a
 * function field like the class's own; when they differ, none keeps every class as it was.
 */
function generatedSaveMember(
  implementer: ImplementerFacts,
  ownSave: SaveFacts,
  below: readonly ImplementerFacts[],
): UpgradeDecision['saveMember'] | { readonly bound: string; readonly unbound: string } {
  const concrete = [implementer, ...below].filter(
    (candidate) => candidate.ownSave !== undefined && candidate.ownSave.form !== 'abstract-method',
  );
  const bound = concrete.find((candidate) => candidate.ownSave?.form === 'arrow');
  const unbound = concrete.find((candidate) => candidate.ownSave?.form !== 'arrow');
  if (bound !== undefined && unbound !== undefined) {
    return { bound: bound.name, unbound: unbound.name };
  }
  return bound !== undefined ? 'arrow-field' : ownSave.form === 'function' ? 'function-field' : 'method';
}

/**
 * For a run over some paths: the selected implementers whose hierarchy reaches an unselected class whose `save` (or
 * `super.save`) a whole-project run would change; upgrading one side alone would break the other.
 */
export function refusalsForPartialRun(
  all: readonly ImplementerFacts[],
  selected: (implementer: ImplementerFacts) => boolean,
): Map<string, string> {
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
  for (const { implementer, skipReason, saveShape, superSaveRename } of decideUpgrades(all)) {
    const changes =
      saveShape !== 'unchanged' || (superSaveRename !== undefined && implementer.superSaveNames.length > 0);
    if (!selected(implementer) && skipReason === undefined && changes && !outside.has(rootOf(implementer))) {
      outside.set(rootOf(implementer), implementer);
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
