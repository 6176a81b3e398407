import { Redis } from 'ioredis';
import type { RedisAddress } from './admin-connection.js';

/** One master of a Cluster, as {@link SlotMigrator} knows it. */
interface Master {
  readonly id: string;
  readonly address: RedisAddress;
  readonly admin: Redis;
}

/**
 * Moves hash slots between the masters of a running Cluster the way `redis-cli --cluster reshard` does, on connections
 * it keeps open for hundreds of moves: `SETSLOT IMPORTING` on the target, `SETSLOT MIGRATING` on the source, `MIGRATE`
 * of the slot's keys a few at a time (so a multi-key command meets a slot whose keys are split between the two, and
 * gets `TRYAGAIN`), then `SETSLOT NODE` on the target, the source and the other masters.
 */
export class SlotMigrator {
  readonly #masters: readonly Master[];
  /** The master serving each slot, by node id, as read at connect time and kept up to date by {@link move}. */
  readonly #owners: Map<number, string>;

  private constructor(masters: readonly Master[], owners: Map<number, string>) {
    this.#masters = masters;
    this.#owners = owners;
  }

  /** Connects to every master (`addresses`, each a node's own port) and reads which serves each slot. */
  static async connect(addresses: readonly RedisAddress[]): Promise<SlotMigrator> {
    const masters = await Promise.all(
      addresses.map(async (address) => {
        const admin = new Redis({ ...address, maxRetriesPerRequest: 0, retryStrategy: () => null });
        admin.on('error', () => undefined);
        return { id: String(await admin.call('CLUSTER', 'MYID')), address, admin };
      }),
    );
    const owners = new Map<number, string>();
    const ranges = (await masters[0]?.admin.call('CLUSTER', 'SLOTS')) as [number, number, [string, number, string]][];
    for (const [first, last, [, , id]] of ranges) {
      for (let slot = first; slot <= last; slot += 1) {
        owners.set(slot, id);
      }
    }
    return new SlotMigrator(masters, owners);
  }

  /** How many masters there are; {@link move} takes the index of one. */
  get masterCount(): number {
    return this.#masters.length;
  }

  /** The index of the master serving `slot`. */
  ownerOf(slot: number): number {
    return this.#masters.findIndex(({ id }) => id === this.#owners.get(slot));
  }

  /**
   * Moves `slot` to master `to`, `MIGRATE`-ing `keysPerMigrate` keys at a time; resolves to the number of keys moved.
   * A slot already on `to` is left alone (0 keys).
   */
  async move(slot: number, to: number, keysPerMigrate: number): Promise<number> {
    const source = this.#masters[this.ownerOf(slot)];
    const target = this.#masters[to];
    if (source === undefined || target === undefined) {
      throw new Error(`Cannot move slot ${slot} to master ${to}: the Cluster has ${this.#masters.length} masters.`);
    }
    if (source === target) {
      return 0;
    }
    await target.admin.call('CLUSTER', 'SETSLOT', slot, 'IMPORTING', source.id);
    await source.admin.call('CLUSTER', 'SETSLOT', slot, 'MIGRATING', target.id);
    let moved = 0;
    for (;;) {
      const keys = (await source.admin.call('CLUSTER', 'GETKEYSINSLOT', slot, keysPerMigrate)) as string[];
      if (keys.length === 0) {
        break;
      }
      await source.admin.call('MIGRATE', target.address.host, target.address.port, '', 0, 5_000, 'KEYS', ...keys);
      moved += keys.length;
    }
    // The target first, so the slot never has no owner that accepts it (the order redis-cli uses).
    for (const master of [target, source, ...this.#masters.filter((one) => one !== source && one !== target)]) {
      await master.admin.call('CLUSTER', 'SETSLOT', slot, 'NODE', target.id);
    }
    this.#owners.set(slot, target.id);
    return moved;
  }

  /** Closes the connections. */
  close(): void {
    for (const { admin } of this.#masters) {
      admin.disconnect();
    }
  }
}
