import type { RedisCommandBatcher, ReplicaWait, WaitedReply } from './redis-command-batcher.js';
import type { LuaScriptSource, RedisLuaScript } from './redis-lua-script.js';

/** The commands a {@link RedisScriptRunner} sends: an ioredis `Redis` or `Cluster`, version 5 or 6. */
export interface RedisScriptClient {
  evalsha(sha1: string, numkeys: number, ...keysAndArgs: string[]): Promise<unknown>;
  eval(script: string, numkeys: number, ...keysAndArgs: string[]): Promise<unknown>;
  info(section: string): Promise<string>;
}

/** Sends one run of a script: its source, `KEYS` count, keys and args, and whether it is known to be loaded. */
type ScriptSender<T> = (
  source: LuaScriptSource,
  numkeys: number,
  keysAndArgs: readonly string[],
  loaded: boolean,
) => Promise<T>;

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

  /** `EVALSHA` of an unwaited run, through the batcher when there is one; made once, not per write. */
  readonly #send: ScriptSender<unknown> = (source, numkeys, keysAndArgs, loaded) =>
    this.commands === undefined
      ? this.client.evalsha(source.sha1, numkeys, ...keysAndArgs)
      : this.commands.evalsha(source.sha1, numkeys, keysAndArgs, loaded);

  /** `EVAL` of an unwaited run after `NOSCRIPT`. */
  readonly #eval: ScriptSender<unknown> = (source, numkeys, keysAndArgs) =>
    this.client.eval(source.text, numkeys, ...keysAndArgs);

  /** Runs `script` with `KEYS` = `keys` and `ARGV` = `args`. */
  run(script: RedisLuaScript, keys: readonly string[], args: readonly string[]): Promise<unknown> {
    return this.#run(script, keys, args, this.#send, this.#eval);
  }

  /**
   * Runs `script` like {@link run}, followed by `wait` on the same connection: resolves to the script's reply and what
   * `WAIT` answered. Needs the {@link RedisCommandBatcher} this runner was given.
   */
  runWaited(
    script: RedisLuaScript,
    keys: readonly string[],
    args: readonly string[],
    wait: ReplicaWait,
  ): Promise<WaitedReply> {
    const commands = this.commands;
    if (commands === undefined) {
      return Promise.reject(
        new Error('RedisScriptRunner.runWaited needs the RedisCommandBatcher the writes go through.'),
      );
    }
    return this.#run(
      script,
      keys,
      args,
      // A script not known to be loaded goes out as EVAL: a NOSCRIPT would cost a second WAIT, for up to its timeout.
      (source, numkeys, keysAndArgs, loaded) =>
        loaded
          ? commands.evalshaWaited(source.sha1, numkeys, keysAndArgs, wait)
          : commands.evalWaited(source.text, numkeys, keysAndArgs, wait),
      (source, numkeys, keysAndArgs) => commands.evalWaited(source.text, numkeys, keysAndArgs, wait),
    );
  }

  /** One script run through `send`, and through `fallback` with the script's text after `NOSCRIPT`. */
  #run<T>(
    script: RedisLuaScript,
    keys: readonly string[],
    args: readonly string[],
    send: ScriptSender<T>,
    fallback: ScriptSender<T>,
  ): Promise<T> {
    if (this.#shebang === undefined) {
      return this.#supportsShebang().then((supported) => {
        this.#shebang = supported;
        return this.#run(script, keys, args, send, fallback);
      });
    }
    const source = this.#shebang ? script.withShebang : script.withoutShebang;
    const keysAndArgs = [...keys, ...args];
    return send(source, keys.length, keysAndArgs, this.#loaded.has(source.sha1)).then(
      (reply) => {
        this.#loaded.add(source.sha1);
        return reply;
      },
      (error: unknown) => {
        if (!(error instanceof Error && error.message.startsWith('NOSCRIPT'))) {
          throw error;
        }
        this.#loaded.delete(source.sha1);
        return fallback(source, keys.length, keysAndArgs, false);
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
