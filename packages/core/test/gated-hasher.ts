import type { PasswordHasher, PasswordVerification } from "../src/ports.ts";

interface Pending {
  readonly kind: "hash" | "verify";
  release(): void;
}

/**
 * A password hasher the test drives: every call waits until the test releases it, so queue
 * states are reached exactly, with no sleeps. Hashes are `gated$<password>` (they hold the
 * password in clear: a test double only); `stale$<password>` verifies and asks for a rehash.
 */
export class GatedHasher implements PasswordHasher {
  readonly pending: Pending[] = [];
  /** Calls started so far, by kind. */
  readonly started = { hash: 0, verify: 0 };

  hash(password: string): Promise<string> {
    return this.#gate("hash", () => `gated$${password}`);
  }

  verify(password: string, stored: string): Promise<PasswordVerification> {
    return this.#gate("verify", () => ({
      matches: stored === `gated$${password}` || stored === `stale$${password}`,
      needsRehash: stored === `stale$${password}`,
    }));
  }

  /** Releases the oldest waiting call; returns its kind. */
  releaseNext(): "hash" | "verify" {
    const next = this.pending.shift();
    if (next === undefined) throw new Error("no pending hasher call");
    next.release();
    return next.kind;
  }

  #gate<T>(kind: Pending["kind"], result: () => T): Promise<T> {
    this.started[kind]++;
    return new Promise((resolve) => this.pending.push({ kind, release: () => resolve(result()) }));
  }
}

/** Lets every pending promise continuation run (the queue starts the next task in a `finally`). */
export async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}
