/** A jscodeshift transform that does nothing: the baseline the upgrade CLI is compared against. */
export default function noop(): undefined {
  return undefined;
}
