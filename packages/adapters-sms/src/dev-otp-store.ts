import type { Clock, OtpMessage, SmsSender } from "@gatehouse/core";
import { systemClock } from "@gatehouse/core";

export const DEFAULT_DEV_OTP_TTL_MS = 10 * 60_000;
export const DEFAULT_DEV_OTP_MAX_ENTRIES = 10_000;

export interface DevOtpStoreOptions {
  readonly clock?: Clock | undefined;
  /**
   * Pass the challenge lifetime the core was given (MFA_CHALLENGE_TTL_SECONDS), so an OTP is
   * retrievable exactly as long as it is usable; the default is the core's default, 10 minutes.
   */
  readonly ttlMs?: number | undefined;
  readonly maxEntries?: number | undefined;
}

interface Entry {
  readonly otp: string;
  readonly expiresAt: number;
}

/**
 * Dev OTP mode (OTP_RETURN_TO_CLIENT, never production): instead of sending an SMS, files the
 * plain OTP under its challenge id so GET /api/dev/mfa/otp can hand it out. The phone is not kept.
 *
 * In-memory and per process: it only works with a single replica, and a restart forgets every
 * code. Entries expire after `ttlMs`, and at most `maxEntries` are kept (the oldest is evicted
 * first), so a flood of logins cannot grow it without limit.
 */
export class DevOtpStore implements SmsSender {
  readonly #clock: Clock;
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  /** Insertion order is age order: a re-filed challenge is deleted and re-inserted at the end. */
  readonly #entries = new Map<string, Entry>();

  constructor(options: DevOtpStoreOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#ttlMs = options.ttlMs ?? DEFAULT_DEV_OTP_TTL_MS;
    this.#maxEntries = options.maxEntries ?? DEFAULT_DEV_OTP_MAX_ENTRIES;
    if (!(this.#ttlMs > 0)) throw new RangeError("dev OTP TTL must be positive");
    if (!Number.isInteger(this.#maxEntries) || this.#maxEntries < 1) {
      throw new RangeError("dev OTP store size must be a whole number of at least 1");
    }
  }

  async sendOtp(message: OtpMessage): Promise<void> {
    const now = this.#clock.now();
    this.#entries.delete(message.challengeId);
    this.#dropExpired(now);
    while (this.#entries.size >= this.#maxEntries) this.#dropOldest();
    this.#entries.set(message.challengeId, { otp: message.otp, expiresAt: now + this.#ttlMs });
  }

  /** The OTP filed for the challenge; null when unknown, expired or evicted. */
  get(challengeId: string): string | null {
    const entry = this.#entries.get(challengeId);
    if (entry === undefined) return null;
    if (entry.expiresAt <= this.#clock.now()) {
      this.#entries.delete(challengeId);
      return null;
    }
    return entry.otp;
  }

  /** Entries held, expired ones not yet swept included. */
  get size(): number {
    return this.#entries.size;
  }

  /** Every entry has the same TTL, so expired ones sit at the front: stop at the first live one. */
  #dropExpired(now: number): void {
    for (const [challengeId, entry] of this.#entries) {
      if (entry.expiresAt > now) return;
      this.#entries.delete(challengeId);
    }
  }

  #dropOldest(): void {
    const oldest = this.#entries.keys().next();
    if (!oldest.done) this.#entries.delete(oldest.value);
  }
}
