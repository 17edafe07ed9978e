/** Whatever holds memory-store state: `snapshot` captures it and returns the function that restores it. */
export interface Snapshottable {
  snapshot(): () => void;
}

/** The state of a set of memory stores, so a transaction that rejects can put all of it back. */
export interface MemoryTables {
  /** A Map whose contents belong to the tables' snapshots. Records are replaced, never edited in place, so a shallow copy is a snapshot. */
  map<K, V>(): Map<K, V>;
  /** Adds state held elsewhere (another store's own structure) to the snapshots. */
  track(state: Snapshottable): void;
  snapshot(): () => void;
}

export function createMemoryTables(): MemoryTables {
  const tracked: Snapshottable[] = [];
  return {
    map<K, V>() {
      const map = new Map<K, V>();
      tracked.push({
        snapshot() {
          const copy = new Map(map);
          return () => {
            map.clear();
            for (const [key, value] of copy) map.set(key, value);
          };
        },
      });
      return map;
    },
    track(state) {
      tracked.push(state);
    },
    snapshot() {
      const restores = tracked.map((state) => state.snapshot());
      return () => {
        for (const restore of restores) restore();
      };
    },
  };
}

/** Runs tasks one at a time, in the order they were queued. */
export interface SerialLock {
  run<T>(task: () => Promise<T>): Promise<T>;
  /** No task is running or queued. */
  readonly idle: boolean;
}

export function createSerialLock(): SerialLock {
  let tail: Promise<unknown> = Promise.resolve();
  let queued = 0;
  return {
    run(task) {
      queued++;
      const result = tail.then(task).finally(() => queued--);
      tail = result.catch(() => undefined);
      return result;
    },
    get idle() {
      return queued === 0;
    },
  };
}

type AsyncMethods<T> = { [K in keyof T]: T[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => Promise<R> : never };

/**
 * The store with every method waiting on `lock` while a transaction holds it or is queued. With the lock
 * idle a call runs at once: its body has no `await` before its write, so it cannot interleave with anything.
 */
export function serialised<T extends AsyncMethods<T>>(store: T, lock: SerialLock): T {
  const queued: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(store) as [string, (...args: unknown[]) => Promise<unknown>][]) {
    queued[name] = (...args: unknown[]) => (lock.idle ? method(...args) : lock.run(() => method(...args)));
  }
  return queued as T;
}
