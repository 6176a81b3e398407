/** Where the checkpoint scripts and the lease store's token-floor script keep a version: the version key, `KEYS[2]`. */
const versionKeyLua = "redis.call('GET', KEYS[2])";

/**
 * The opening lines every script that judges a stored version (or raises a token counter) shares: `stored` is the
 * value of `storedExpression` (a Lua expression; the version key `KEYS[2]` by default, a hash field for the
 * dual-anchor scripts) or `false`, and a value that is not a canonical non-negative decimal (`"007"`, `"1e5"`, `"-5"`,
 * `" 9"`, `"abc"`) ends the script with the reply `invalid:<stored>` before anything is written, because comparing it
 * as a decimal string would decide wrongly. `%d` is ASCII 0–9 whatever the server's locale. One text, so the rule
 * cannot drift between scripts.
 */
export function readStoredVersionLua(storedExpression: string = versionKeyLua): string {
  return `local stored = ${storedExpression}
if stored and stored ~= '0' and not string.find(stored, '^[1-9]%d*$') then
  return 'invalid:' .. stored
end
`;
}

/**
 * Follows {@link readStoredVersionLua}: sets `wanted` to a Lua expression such as `ARGV[2]` (a canonical decimal from
 * `String(bigint)`) and replies `refused:<stored>` when the stored version is a larger decimal. Compared as decimal
 * strings, length first, then lexicographically, never through `tonumber`, which rounds above 2**53 (ADR 0101).
 */
export function refuseOlderVersionLua(wanted: string): string {
  return `local wanted = ${wanted}
if stored and (#stored > #wanted or (#stored == #wanted and stored > wanted)) then
  return 'refused:' .. stored
end
`;
}
