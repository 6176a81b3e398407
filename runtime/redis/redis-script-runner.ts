import type { RedisScriptClient } from './redis-checkpoint-client.js';
import type { RedisCommandBatcher, ReplicaWait, WaitedReply } from './redis-command-batcher.js';
import type { LuaScriptSource, RedisLuaScript } from './redis-lua-script.js';

/** Sends one run of a script: its source, `KEYS` count, keys and args, and whether it is known to be loaded. */
type ScriptSender<T> = (
  source: LuaScriptSource,
  numkeys: number,
  keysAndArgs: readonly string[],
  loaded: boolean,
) => Promise<T>;

/** Whether each client's server takes the `#!lua` shebang (Redis 7+), asked once per client with `INFO server`. */
const shebangSupport = new WeakMap<RedisScriptClient, Promise<boolean>>();
/** The answers of {@link shebangSupport} already in, so that a new runner on a known client need not wait for them. */
const shebangAnswers = new WeakMap<RedisScriptClient, boolean>();

/**
 * Runs a script with `EVALSHA`, falling back to `EVAL` on `NOSCRIPT` (a restarted server, a `SCRIPT FLUSH`, or a
 * Cluster node that took over after a failover has an empty script cache). Each call is one script run: a
 * refusal or a connection error is surfaced as is, never retried here.
 *
 * Given a {@link RedisCommandBatcher}, every run goes through it, in the order of the storage's calls (ADR 0103): a
 * script not yet run here goes out as `EVAL` of its text (which also loads it), one known to be loaded as `EVALSHA`,
 * and neither waits for the shebang question: until its answer is in, the variant without the shebang runs, which
 * every version takes. Without a batcher, every `EVALSHA` goes straight to the client.
 */
export class RedisScriptRunner {
  /** The answer of {@link shebangSupport} once known. */
  #shebang: boolean | undefined;
  /** Scripts that ran here since the last `NOSCRIPT`: only these are sent as `EVALSHA` through a batcher. */
  readonly #loaded = new Set<string>();

  constructor(
    private readonly client: RedisScriptClient,
    private readonly commands?: RedisCommandBatcher,
  ) {}

  /** `EVALSHA` of an unbatched run, straight to the client. */
  readonly #send: ScriptSender<unknown> = (source, numkeys, keysAndArgs) =>
    this.client.evalsha(source.sha1, numkeys, ...keysAndArgs);

  /** `EVAL` of an unbatched run after `NOSCRIPT`. */
  readonly #eval: ScriptSender<unknown> = (source, numkeys, keysAndArgs) =>
    this.client.eval(source.text, numkeys, ...keysAndArgs);

  /** Runs `script` with `KEYS` = `keys` and `ARGV` = `args`, through the batcher when given. */
  run(script: RedisLuaScript, keys: readonly string[], args: readonly string[]): Promise<unknown> {
    const commands = this.commands;
    if (commands === undefined) {
      return this.#run(script, keys, args, this.#send, this.#eval);
    }
    return this.#runBatched(commands, script, keys, args, undefined);
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
    return this.#runBatched(commands, script, keys, args, wait) as Promise<WaitedReply>;
  }

  /** One run through the batcher, sent in the same tick it was asked for; `EVAL` again at once after `NOSCRIPT`. */
  #runBatched(
    commands: RedisCommandBatcher,
    script: RedisLuaScript,
    keys: readonly string[],
    args: readonly string[],
    wait: ReplicaWait | undefined,
  ): Promise<unknown> {
    this.#shebang ??= shebangAnswers.get(this.client);
    if (this.#shebang === undefined) {
      // Asked for the next runs; this one goes out now, in its place, in the variant every version takes.
      this.#supportsShebang().then(
        (supported) => {
          this.#shebang = supported;
        },
        () => undefined,
      );
    }
    return this.#sendSource(
      this.#shebang === true ? script.withShebang : script.withoutShebang,
      keys,
      args,
      (source, numkeys, keysAndArgs, loaded) =>
        loaded
          ? commands.evalsha(source.sha1, numkeys, keysAndArgs, wait)
          : commands.eval(source.text, numkeys, keysAndArgs, wait),
      (source, numkeys, keysAndArgs) => commands.evalNow(source.text, numkeys, keysAndArgs, wait),
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
    return this.#sendSource(this.#shebang ? script.withShebang : script.withoutShebang, keys, args, send, fallback);
  }

  /** Sends `source` through `send`, and through `fallback` after `NOSCRIPT`, keeping track of what is loaded here. */
  #sendSource<T>(
    source: LuaScriptSource,
    keys: readonly string[],
    args: readonly string[],
    send: ScriptSender<T>,
    fallback: ScriptSender<T>,
  ): Promise<T> {
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
      known = this.client.info('server').then((info) => {
        const supported = Number(/^redis_version:(\d+)\./m.exec(info)?.[1] ?? 0) >= 7;
        shebangAnswers.set(this.client, supported);
        return supported;
      });
      shebangSupport.set(this.client, known);
      // A failed INFO (say, the server is down) is asked again by the next write instead of deciding for good.
      known.catch(() => shebangSupport.delete(this.client));
    }
    return known;
  }
}
