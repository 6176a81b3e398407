import { createHash } from 'node:crypto';

/** One variant of a script's text and the SHA-1 that `EVALSHA` knows it by. */
export interface LuaScriptSource {
  readonly text: string;
  readonly sha1: string;
}

/**
 * A Lua script in two variants: with the `#!lua` shebang for Redis 7 and later (an undeclared or cross-slot key
 * access then fails instead of working by accident on one node) and without it for older servers, which reject it.
 */
export class RedisLuaScript {
  readonly withShebang: LuaScriptSource;
  readonly withoutShebang: LuaScriptSource;

  constructor(
    readonly name: string,
    body: string,
  ) {
    this.withShebang = source(`#!lua\n${body}`);
    this.withoutShebang = source(body);
  }
}

function source(text: string): LuaScriptSource {
  return { text, sha1: createHash('sha1').update(text, 'utf8').digest('hex') };
}
