import type { ImplementerFacts, UpgradeDecision } from './upgrade-data.js';
import { upgradeMessages } from './upgrade-messages.js';

/** What a class passes on to its subclasses: a base outside the run as it stands, one in the run as decided. */
interface ChainSummary {
  /** `undefined` without a `save`. */
  readonly saveAcceptsCondition: boolean | undefined;
  readonly saveIsAsync: boolean;
  /** An own property that no method of a subclass can override. */
  readonly saveIsField: boolean;
  readonly hasWriteVersion: boolean;
  readonly unconditionalSaveName: string | undefined;
  /** The base is left alone, and so is the subclass. */
  readonly skipReason: string | undefined;
}

/** What `facts` passes on: its own `save` and `writeVersion` as `decision` leaves them, else what `parent` does. */
function passedOn(facts: ImplementerFacts, parent: ChainSummary | undefined, decision?: UpgradeDecision): ChainSummary {
  const save = facts.ownSave;
  // A generated or extended `save` takes the condition.
  const changesSave = decision !== undefined && decision.skipReason === undefined && decision.saveShape !== 'unchanged';
  return {
    saveAcceptsCondition: changesSave || (save?.acceptsCondition ?? parent?.saveAcceptsCondition),
    saveIsAsync: save?.isAsync ?? parent?.saveIsAsync ?? true,
    saveIsField: save === undefined ? parent?.saveIsField === true : ['arrow', 'function', 'value'].includes(save.form),
    hasWriteVersion: facts.ownWriteVersion || decision?.addWriteVersion === true || parent?.hasWriteVersion === true,
    unconditionalSaveName: decision?.unconditionalSaveName ?? parent?.unconditionalSaveName,
    skipReason: decision?.skipReason,
  };
}

/** The name the existing unconditional write is kept under, unless the class already uses it. */
const UNCONDITIONAL_SAVE_NAME = 'saveUnconditionally';

/**
 * Decides, ancestors first, what every implementer gets. `refusals` are left alone, and so, until that settles, is a
 * base whose renamed `save` a subclass left alone overrides or calls (`super.save`).
 */
export function decideUpgrades(
  implementers: readonly ImplementerFacts[],
  refusals: ReadonlyMap<string, string> = new Map(),
): UpgradeDecision[] {
  const byId = new Map(implementers.map((implementer) => [implementer.id, implementer]));
  const decided = new Map<string, { readonly decision: UpgradeDecision; readonly summary: ChainSummary }>();
  // What the base of `implementer` passes on; a base outside this run is not upgraded: it stands as it is.
  const inherited = (implementer: ImplementerFacts, visiting: readonly string[]): ChainSummary | undefined => {
    const base = implementer.base?.kind === 'unknown' ? undefined : implementer.base;
    const inRun = base && byId.get(base.id);
    return inRun !== undefined
      ? decide(inRun, [...visiting, implementer.id]).summary
      : base && passedOn(base, inherited(base, visiting));
  };
  const decide = (implementer: ImplementerFacts, visiting: readonly string[]) => {
    const earlier = decided.get(implementer.id);
    if (earlier !== undefined) {
      return earlier;
    }
    if (visiting.includes(implementer.id)) {
      throw new Error(upgradeMessages.extendsItself(implementer.name, implementer.file));
    }
    const parent = inherited(implementer, visiting);
    const below = descendants(implementers, implementer.id);
    const decision = decideOne(implementer, parent, refusals.get(implementer.id), below);
    const known = { decision, summary: passedOn(implementer, parent, decision) };
    decided.set(implementer.id, known);
    return known;
  };
  const decisions = implementers.map((implementer) => decide(implementer, []).decision);
  const stranded = decisions.flatMap(({ saveShape, implementer }): [string, string][] => {
    const [refusal] = (saveShape === 'delegating' ? descendants(implementers, implementer.id) : [])
      .filter((subclass) => subclass.ownSave !== undefined || subclass.superSaveNames.length > 0)
      .flatMap((subclass) => {
        const reason = decided.get(subclass.id)?.decision.skipReason;
        return reason === undefined ? [] : [upgradeMessages.subclassCannotFollow(subclass.name, subclass.file, reason)];
      });
    return refusal === undefined ? [] : [[implementer.id, refusal]];
  });
  return stranded.length === 0 ? decisions : decideUpgrades(implementers, new Map([...refusals, ...stranded]));
}

/** Every implementer below `id`, nearest first. */
function descendants(implementers: readonly ImplementerFacts[], id: string): ImplementerFacts[] {
  const childrenOf = (parent: string) =>
    implementers.filter((child) => child.base?.kind !== 'unknown' && child.base?.id === parent);
  const found = childrenOf(id);
  // Appended while iterating, so that grandchildren come after every child.
  for (const child of found) {
    found.push(...childrenOf(child.id).filter((grandchild) => !found.includes(grandchild)));
  }
  return found;
}

/** `parent`: what the implementer inherits, `undefined` without a base class or one it cannot see into. */
function decideOne(
  implementer: ImplementerFacts,
  parent: ChainSummary | undefined,
  refusal: string | undefined,
  below: readonly ImplementerFacts[],
): UpgradeDecision {
  const { ownSave, base } = implementer;
  const baseName = base?.name ?? 'its base class';
  const none: UpgradeDecision = {
    implementer,
    saveShape: 'unchanged',
    unconditionalSaveName: undefined,
    saveOverrides: false,
    saveIsAsync: ownSave?.isAsync ?? true,
    addWriteVersion: false,
    saveMember: 'method',
    superSaveRename: parent?.unconditionalSaveName,
    skipReason: undefined,
  };
  const skip = (skipReason: string): UpgradeDecision => ({ ...none, skipReason });
  if (refusal !== undefined) {
    return skip(refusal);
  }
  if (ownSave?.acceptsCondition === true && implementer.ownWriteVersion) {
    return none;
  }
  if (implementer.unfollowedConstructorWrite !== undefined) {
    return skip(implementer.unfollowedConstructorWrite);
  }
  if (base?.kind === 'unknown') {
    return skip(upgradeMessages.baseNotVisible(base.name, base.where));
  }
  if (parent?.skipReason !== undefined) {
    return skip(upgradeMessages.baseLeftAlone(baseName, parent.skipReason));
  }
  const addWriteVersion = !implementer.ownWriteVersion && parent?.hasWriteVersion !== true;
  const kept: UpgradeDecision = { ...none, addWriteVersion };
  if (ownSave === undefined) {
    if (parent?.saveAcceptsCondition === false) {
      return parent.saveIsField
        ? skip(upgradeMessages.inheritsSaveField(baseName, implementer.name))
        : { ...kept, saveShape: 'inherited', saveOverrides: true, saveIsAsync: parent.saveIsAsync };
    }
    const providedBelow =
      parent?.saveAcceptsCondition === true ||
      (implementer.isAbstract && below.some((other) => other.ownSave !== undefined));
    return providedBelow ? kept : { ...kept, saveShape: 'refusing', saveIsAsync: false };
  }
  if (ownSave.acceptsCondition) {
    return kept;
  }
  if (ownSave.unsupported !== undefined) {
    return skip(ownSave.unsupported);
  }
  // In place: a literal has no base, and a constructor-assigned `save` shadows any base's.
  if (ownSave.assigned || implementer.kind === 'object-literal') {
    return { ...kept, saveShape: ownSave.assigned ? 'constructor-assigned' : 'object-literal' };
  }
  if (parent?.unconditionalSaveName !== undefined) {
    return ownSave.isDecorated
      ? skip(upgradeMessages.decoratedFollower(baseName))
      : { ...kept, saveShape: 'follows-base', unconditionalSaveName: parent.unconditionalSaveName };
  }
  // The unconditional writes the generated `save` may call: its own unless abstract, and every subclass's. An arrow
  // one keeps `const save = storage.save` working; when they differ, no generated member keeps every class as it was.
  const concrete = [implementer, ...below].filter(
    (other) => other.ownSave !== undefined && other.ownSave.form !== 'abstract-method',
  );
  const bound = concrete.find((other) => other.ownSave?.form === 'arrow');
  const unbound = concrete.find((other) => other.ownSave?.form !== 'arrow');
  if (bound !== undefined && unbound !== undefined) {
    return skip(upgradeMessages.bindingsDiffer(bound.name, unbound.name));
  }
  let unconditionalSaveName = UNCONDITIONAL_SAVE_NAME;
  for (let suffix = 2; implementer.memberNames.includes(unconditionalSaveName); suffix += 1) {
    unconditionalSaveName = `${UNCONDITIONAL_SAVE_NAME}${suffix}`;
  }
  return {
    ...kept,
    saveShape: 'delegating',
    unconditionalSaveName,
    saveOverrides: parent?.saveAcceptsCondition !== undefined || ownSave.isOverride,
    saveMember: bound !== undefined ? 'arrow-field' : ownSave.form === 'function' ? 'function-field' : 'method',
  };
}

/** In a partial run: the selected implementers in a hierarchy with an unselected class a full run changes. */
export function refusalsForPartialRun(
  all: readonly ImplementerFacts[],
  selected: (implementer: ImplementerFacts) => boolean,
): Map<string, string> {
  // A hierarchy is a tree (one base a class): its members share the id of their topmost implementing ancestor.
  const rootOf = (facts: ImplementerFacts): string =>
    facts.base?.kind !== 'unknown' && facts.base?.implements === true ? rootOf(facts.base) : facts.id;
  const changingOutside = decideUpgrades(all).filter(
    ({ implementer, skipReason, saveShape, superSaveRename }) =>
      !selected(implementer) &&
      skipReason === undefined &&
      (saveShape !== 'unchanged' || (superSaveRename !== undefined && implementer.superSaveNames.length > 0)),
  );
  return new Map(
    all.filter(selected).flatMap((member) => {
      const other = changingOutside.find(({ implementer }) => rootOf(implementer) === rootOf(member));
      return other === undefined
        ? []
        : [[member.id, upgradeMessages.outsideSelection(other.implementer.name, other.implementer.file)]];
    }),
  );
}
