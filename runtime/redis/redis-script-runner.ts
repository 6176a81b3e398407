import type { RedisLuaScript } from './redis-lua-script.js';

/** The commands a {@link RedisScriptRunner} sends: an ioredis `Redis` or `Cluster`, version 5 or 6. */
export interface RedisScriptClient {
  evalsha(sha1: string, numkeys: number, ...keysAndArgs: string[]): Promise<unknown>;
  eval(script: string, numkeys: number, ...keysAndArgs: string[]): Promise<unknown>;
  info(section: string): Promise<string>;
}

/** Whether each client's server takes the `#!lua` shebang (Redis 7+), asked once per client with `INFO server`. */
const shebangSupport = new WeakMap<RedisScriptClient, Promise<boolean>>();

/**
 * Runs a script with `EVALSHA`, falling back to `EVAL` on `NOSCRIPT` (a restarted server, a `SCRIPT FLUSH`, or a
 * Cluster node that took over after a failover has an empty script cache). Each call is one script run: a
 * refusal or a connection error is surfaced as is, never retried here.
 */
export class RedisScriptRunner {
  /** The answer of {@link shebangSupport} once known; from then on a write goes out in the same tick it was asked for. */
  #shebang: boolean | undefined;

  constructor(private readonly client: RedisScriptClient) {}

  /** Runs `script` with `KEYS` = `keys` and `ARGV` = `args`. */
  run(script: RedisLuaScript, keys: readonly string[], args: readonly string[]): Promise<unknown> {
    if (this.#shebang === undefined) {
      return this.#supportsShebang().then((supported) => {
        this.#shebang = supported;
        return this.run(script, keys, args);
      });
    }
    const source = this.#shebang ? script.withShebang : script.withoutShebang;
    return this.client.evalsha(source.sha1, keys.length, ...keys, ...args).catch((error: unknown) => {
      if (!(error instanceof Error && error.message.startsWith('NOSCRIPT'))) {
        throw error;
      }
      return this.client.eval(source.text, keys.length, ...keys, ...args);
    });
  }

  #supportsShebang(): Promise<boolean> {
    let known = shebangSupport.get(this.client);
    if (known === undefined) {
      known = this.client.info('server').then((info) => Number(/^redis_version:(\d+)\./m.exec(info)?.[1] ?? 0) >= 7);
      shebangSupport.set(this.client, known);
      // A failed INFO (say, the server is down) is asked again by the next write instead of deciding for good.
      known.catch(() => shebangSupport.delete(this.client));
    }
    return known;
  }
}
