import type { ImplementerFacts } from './implementer-facts.js';
import { decideUpgrades } from './shape-decision.js';
import { upgradeMessages } from './upgrade-messages.js';

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
  const component = components(all);
  const refusals = new Map<string, string>();
  for (const members of component.values()) {
    const outside = members.find((member) => {
      const decision = whole.get(member.id);
      return (
        !selected(member) &&
        decision !== undefined &&
        decision.skipReason === undefined &&
        (decision.saveShape !== 'unchanged' ||
          (decision.superSaveRename !== undefined && member.superSaveNames.length > 0))
      );
    });
    if (outside === undefined) {
      continue;
    }
    for (const member of members.filter(selected)) {
      refusals.set(member.id, upgradeMessages.outsideSelection(outside.name, outside.file));
    }
  }
  return refusals;
}

/** Class hierarchies: implementers joined through the bases they extend, by the id of one member. */
function components(implementers: readonly ImplementerFacts[]): Map<string, ImplementerFacts[]> {
  const parent = new Map<string, string>();
  const find = (id: string): string => {
    const up = parent.get(id);
    if (up === undefined || up === id) {
      return id;
    }
    const root = find(up);
    parent.set(id, root);
    return root;
  };
  for (const implementer of implementers) {
    if (implementer.base?.kind === 'implementer') {
      parent.set(find(implementer.id), find(implementer.base.id));
    }
  }
  const groups = new Map<string, ImplementerFacts[]>();
  for (const implementer of implementers) {
    const root = find(implementer.id);
    groups.set(root, [...(groups.get(root) ?? []), implementer]);
  }
  return groups;
}
