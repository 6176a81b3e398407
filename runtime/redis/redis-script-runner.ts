import type { RedisCommandBatcher } from './redis-command-batcher.js';
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
 * refusal or a connection error is surfaced as is, never retried here. Given a {@link RedisCommandBatcher}, the
 * `EVALSHA` of a script known to be loaded goes through it, so it can share a pipeline with the other commands of its
 * tick (ADR 0103); without one, every `EVALSHA` goes straight to the client.
 */
export class RedisScriptRunner {
  /** The answer of {@link shebangSupport} once known; from then on a write goes out in the same tick it was asked for. */
  #shebang: boolean | undefined;
  /** Scripts that ran here since the last `NOSCRIPT`: only these join a pipeline, so a `NOSCRIPT` is rare there. */
  readonly #loaded = new Set<string>();

  constructor(
    private readonly client: RedisScriptClient,
    private readonly commands?: RedisCommandBatcher,
  ) {}

  /** Runs `script` with `KEYS` = `keys` and `ARGV` = `args`. */
  run(script: RedisLuaScript, keys: readonly string[], args: readonly string[]): Promise<unknown> {
    if (this.#shebang === undefined) {
      return this.#supportsShebang().then((supported) => {
        this.#shebang = supported;
        return this.run(script, keys, args);
      });
    }
    const source = this.#shebang ? script.withShebang : script.withoutShebang;
    const keysAndArgs = [...keys, ...args];
    const sent =
      this.commands === undefined
        ? this.client.evalsha(source.sha1, keys.length, ...keysAndArgs)
        : this.commands.evalsha(source.sha1, keys.length, keysAndArgs, this.#loaded.has(source.sha1));
    return sent.then(
      (reply) => {
        this.#loaded.add(source.sha1);
        return reply;
      },
      (error: unknown) => {
        if (!(error instanceof Error && error.message.startsWith('NOSCRIPT'))) {
          throw error;
        }
        this.#loaded.delete(source.sha1);
        return this.client.eval(source.text, keys.length, ...keysAndArgs);
      },
    );
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
