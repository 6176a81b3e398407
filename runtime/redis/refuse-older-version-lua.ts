/**
 * The opening lines every version-judging script shares: read the version key (`KEYS[2]`) and reply
 * `refused:<stored>` when the stored version is a larger decimal than `wanted` (a Lua expression such as `ARGV[2]`).
 * Versions are compared as decimal strings, length first, then lexicographically, never through `tonumber`, which
 * rounds above 2**53 (ADR 0101). One text, so the rule cannot drift between scripts.
 */
export function refuseOlderVersionLua(wanted: string): string {
  return `local stored = redis.call('GET', KEYS[2])
local wanted = ${wanted}
if stored and (#stored > #wanted or (#stored == #wanted and stored > wanted)) then
  return 'refused:' .. stored
end
`;
}
