/** How long an answer of the Sentinels is used before they are asked again (in the background, while it answers). */
const sentinelAnswerRefreshMs = 1_000;

/** A connection to one Sentinel, made with the client's `duplicate`: an ioredis `Redis`. */
interface SentinelConnection {
  call(...args: string[]): Promise<unknown>;
  on(event: 'error', listener: (error: unknown) => void): unknown;
  disconnect(): void;
}

/**
 * The part of an ioredis `Redis` that finds its master through Sentinels (`new Redis({ sentinels, name })`): the
 * Sentinels it was given, the master's name and the Sentinels' credentials. Its `duplicate` reaches them as ioredis
 * does itself (a connection a question, closed after the answer); it is looked up where it is called rather than
 * declared here, since a `Cluster`'s takes other arguments. Typed structurally, so the package needs no ioredis types.
 */
export interface SentinelClient {
  readonly options?: {
    readonly sentinels?: readonly { readonly host?: string; readonly port?: number }[] | null | undefined;
    readonly name?: string | undefined;
    readonly sentinelUsername?: string | undefined;
    readonly sentinelPassword?: string | undefined;
    readonly sentinelTLS?: unknown;
    /** Shared with a Cluster's options, so that they too fit this type (TypeScript's weak-type check). */
    readonly enableAutoPipelining?: boolean | undefined;
  };
}

interface Answer {
  readonly replicas: number | undefined;
  readonly askedAt: number;
}

/** What one Sentinel answered: how many Sentinels it counts (itself and those it knows), and the replicas it lists. */
export interface SentinelView {
  readonly sentinels: number;
  /** The replicas it could consider for promotion, by address, and whether it flags each down. */
  readonly replicas: readonly { readonly address: string; readonly down: boolean }[];
}

/**
 * The replicas the Sentinels a client knows would consider for promotion (ADR 1106): each Sentinel's
 * `SENTINEL REPLICAS <name>`, united by address, less a replica with `replica-priority 0` (never promoted), one the
 * Sentinel has never reached (no run ID: a stale address), and one it last saw answering as a master (a deposed master
 * waiting to be made a replica, or a dead one). A replica the Sentinels cannot reach is counted too (on the other side
 * of a partition, it is the one the majority may promote), unless a majority of the Sentinels answered and every one of
 * them that lists it flags it down: no Sentinel majority can promote it then. Asked of every Sentinel at once, each
 * with the wait's timeout; the answers that came decide, and `undefined` says none came. An answer is used for a
 * second, then read again in the background while it goes on answering.
 */
export class SentinelReplicas {
  #answer: Answer | undefined;
  #asking: Promise<number | undefined> | undefined;

  private constructor(
    private readonly client: SentinelClient,
    private readonly name: string,
    private readonly sentinels: readonly { readonly host?: string; readonly port?: number }[],
  ) {}

  /** The Sentinels' replicas of `client`'s master; `undefined` for a client that does not find its master through Sentinels. */
  static over(client: SentinelClient): SentinelReplicas | undefined {
    const { sentinels, name } = client.options ?? {};
    return sentinels === null || sentinels === undefined || sentinels.length === 0 || name === undefined
      ? undefined
      : new SentinelReplicas(client, name, sentinels);
  }

  /** Starts asking the Sentinels when no answer is in or the last is a second old, so that {@link count} finds it in. */
  refresh(timeoutMs: number): void {
    const answer = this.#answer;
    if (answer === undefined || performance.now() - answer.askedAt >= sentinelAnswerRefreshMs) {
      this.#ask(timeoutMs).catch(() => undefined);
    }
  }

  /** How many replicas the Sentinels list that could be promoted; `undefined` when none of them answered. */
  async count(timeoutMs: number): Promise<number | undefined> {
    const answer = this.#answer;
    if (answer !== undefined) {
      this.refresh(timeoutMs);
      return answer.replicas;
    }
    return this.#ask(timeoutMs);
  }

  #ask(timeoutMs: number): Promise<number | undefined> {
    if (this.#asking !== undefined) {
      return this.#asking;
    }
    const askedAt = performance.now();
    const asking = Promise.allSettled(this.sentinels.map((sentinel) => this.#viewOf(sentinel, timeoutMs)))
      .then((answers) => {
        const views = answers.flatMap((answer) => (answer.status === 'fulfilled' ? [answer.value] : []));
        // No Sentinel answered: an earlier answer stays, and the next call asks again.
        const replicas = views.length > 0 ? promotableReplicasIn(views) : this.#answer?.replicas;
        this.#answer = { replicas, askedAt: views.length > 0 ? askedAt : (this.#answer?.askedAt ?? askedAt) };
        return replicas;
      })
      .finally(() => {
        this.#asking = undefined;
      });
    this.#asking = asking;
    return asking;
  }

  /** What `sentinel` answers `SENTINEL MASTER` and `SENTINEL REPLICAS` with, within `timeoutMs`. */
  async #viewOf(
    sentinel: { readonly host?: string; readonly port?: number },
    timeoutMs: number,
  ): Promise<SentinelView> {
    const { options = {} } = this.client;
    const duplicate: unknown = Reflect.get(this.client, 'duplicate');
    if (typeof duplicate !== 'function') {
      throw new Error('The client has no duplicate() to reach its Sentinels with.');
    }
    // ioredis's Redis#duplicate(override): a new client with the options given over the client's own.
    const connection = duplicate.call(this.client, {
      // A plain connection to the Sentinel itself, with its own credentials, as ioredis's Sentinel connector makes.
      sentinels: undefined,
      Connector: undefined,
      path: undefined,
      host: sentinel.host ?? 'localhost',
      port: sentinel.port ?? 26379,
      username: options.sentinelUsername ?? null,
      password: options.sentinelPassword ?? null,
      tls: options.sentinelTLS,
      db: 0,
      lazyConnect: false,
      enableReadyCheck: false,
      enableOfflineQueue: true,
      enableAutoPipelining: false,
      readOnly: false,
      retryStrategy: null,
      maxRetriesPerRequest: 0,
      connectTimeout: timeoutMs,
      commandTimeout: timeoutMs,
    }) as SentinelConnection;
    connection.on('error', () => undefined);
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const [master, replicas] = await Promise.race([
        Promise.all([
          connection.call('SENTINEL', 'MASTER', this.name),
          connection.call('SENTINEL', 'REPLICAS', this.name),
        ]),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            reject(new Error(`no answer within ${timeoutMs} ms`));
          }, timeoutMs);
        }),
      ]);
      return sentinelViewIn(master, replicas);
    } finally {
      clearTimeout(timer);
      connection.disconnect();
    }
  }
}

/**
 * One Sentinel's view from its `SENTINEL MASTER` and `SENTINEL REPLICAS` replies: the Sentinels it counts
 * (`num-other-sentinels` and itself), and the replicas it could promote (not `replica-priority 0`, reached once, last
 * seen as a replica), each flagged down when it is `s_down`, `o_down` or `disconnected` there.
 */
export function sentinelViewIn(master: unknown, replicas: unknown): SentinelView {
  if (!Array.isArray(master) || !Array.isArray(replicas)) {
    throw new Error('SENTINEL MASTER or SENTINEL REPLICAS did not answer with a list.');
  }
  return {
    sentinels: Number(fieldsOf(master).get('num-other-sentinels') ?? 0) + 1,
    replicas: replicas.flatMap((entry: unknown) => {
      const fields = fieldsOf(entry);
      const priority = fields.get('replica-priority') ?? fields.get('slave-priority');
      if (priority === '0' || (fields.get('runid') ?? '') === '' || fields.get('role-reported') === 'master') {
        return [];
      }
      return [
        {
          address: `${fields.get('ip') ?? ''}:${fields.get('port') ?? ''}`,
          down: /(^|,)(s_down|o_down|disconnected)(,|$)/u.test(fields.get('flags') ?? ''),
        },
      ];
    }),
  };
}

/**
 * How many replicas the answering Sentinels' `views` list that could be promoted: united by address, less those that
 * every Sentinel listing them flags down, when the views are a majority of the Sentinels (as the most of them count).
 */
export function promotableReplicasIn(views: readonly SentinelView[]): number {
  const sentinels = Math.max(...views.map((view) => view.sentinels));
  const aMajorityAnswered = views.length >= Math.floor(sentinels / 2) + 1;
  const upSomewhere = new Map<string, boolean>();
  for (const { replicas } of views) {
    for (const { address, down } of replicas) {
      upSomewhere.set(address, upSomewhere.get(address) === true || !down);
    }
  }
  return [...upSomewhere.values()].filter((up) => up || !aMajorityAnswered).length;
}

/** A flat `[name, value, name, value, ...]` reply as a map. */
function fieldsOf(entry: unknown): Map<string, string> {
  const fields = new Map<string, string>();
  const flat = Array.isArray(entry) ? (entry as unknown[]) : [];
  for (let index = 0; index + 1 < flat.length; index += 2) {
    fields.set(String(flat[index]), String(flat[index + 1]));
  }
  return fields;
}
