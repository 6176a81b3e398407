/**
 * The opening lines every version-judging script shares: read the stored version (`stored`, a Lua expression; the
 * version key `KEYS[2]` by default) and reply `refused:<stored>` when it is a larger decimal than `wanted` (a Lua
 * expression such as `ARGV[2]`). Versions are compared as decimal strings, length first, then lexicographically, never
 * through `tonumber`, which rounds above 2**53 (ADR 0101). One text, so the rule cannot drift between scripts.
 */
export function refuseOlderVersionLua(wanted: string, stored = "redis.call('GET', KEYS[2])"): string {
  return `local stored = ${stored}
local wanted = ${wanted}
if stored and (#stored > #wanted or (#stored == #wanted and stored > wanted)) then
  return 'refused:' .. stored
end
`;
}
