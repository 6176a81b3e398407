import type { CheckpointKeys } from './checkpoint-key-layout.js';
import type { RedisCheckpointClient } from './redis-checkpoint-client.js';
import type { RedisCommandBatcher } from './redis-command-batcher.js';
import type { RedisLuaScript } from './redis-lua-script.js';

/** Whether each client's server takes the `#!lua` shebang (Redis 7+), asked once per client with `INFO server`. */
const shebangSupport = new WeakMap<RedisCheckpointClient, Promise<boolean>>();

/**
 * Runs a script with `EVALSHA`, falling back to `EVAL` on `NOSCRIPT` (a restarted server, a `SCRIPT FLUSH`, or a
 * Cluster node that took over after a failover has an empty script cache). Each call is one script run: a
 * refusal or a connection error is surfaced as is, never retried here.
 */
export class RedisScriptRunner {
  /** The answer of {@link shebangSupport} once known; from then on a write goes out in the same tick it was asked for. */
  #shebang: boolean | undefined;
  /** Scripts that ran here since the last `NOSCRIPT`: only these join a pipeline, so a `NOSCRIPT` is rare there. */
  readonly #loaded = new Set<string>();

  constructor(
    private readonly client: RedisCheckpointClient,
    private readonly commands: RedisCommandBatcher,
  ) {}

  /** Runs `script` with `KEYS` = [checkpoint key, version key] and `ARGV` = `args`. */
  run(script: RedisLuaScript, keys: CheckpointKeys, args: readonly string[]): Promise<unknown> {
    if (this.#shebang === undefined) {
      return this.#supportsShebang().then((supported) => {
        this.#shebang = supported;
        return this.run(script, keys, args);
      });
    }
    const source = this.#shebang ? script.withShebang : script.withoutShebang;
    const keysAndArgs = [keys.checkpointKey, keys.versionKey, ...args];
    return this.commands.evalsha(source.sha1, keysAndArgs, this.#loaded.has(source.sha1)).then(
      (reply) => {
        this.#loaded.add(source.sha1);
        return reply;
      },
      (error: unknown) => {
        if (!(error instanceof Error && error.message.startsWith('NOSCRIPT'))) {
          throw error;
        }
        this.#loaded.delete(source.sha1);
        return this.client.eval(source.text, 2, ...keysAndArgs);
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
