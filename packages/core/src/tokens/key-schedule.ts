/**
 * When each signing key signs and when it is published (pure). Keys are only added; the key that signs at
 * `now` is the one activated last (ties by kid), and a key retires when the next one activates. A key is
 * published from its creation until every token it can have signed has expired: its retirement plus
 * the longest token lifetime plus the clock skew verifiers allow.
 */
import type { EpochMs } from "../model.ts";
import type { SigningKeyRecord } from "../records/tokens.ts";

export interface KeySchedule {
  /** The key that signs at the time asked; null when none has activated yet. */
  readonly signer: SigningKeyRecord | null;
  /** Keys a verifier must know at the time asked, the signer included, newest activation first. */
  readonly published: readonly SigningKeyRecord[];
  /** Created and not yet activated: published ahead of their first token. */
  readonly pending: readonly SigningKeyRecord[];
}

export interface ScheduleTimes {
  /** The longest lifetime of a token a key signs. */
  readonly tokenTtlMs: number;
  /** How far a verifier's clock may run behind ours (jose's `clockTolerance`). */
  readonly clockSkewMs: number;
}

function byActivation(a: SigningKeyRecord, b: SigningKeyRecord): number {
  return a.activatesAt - b.activatesAt || (a.kid < b.kid ? -1 : a.kid > b.kid ? 1 : 0);
}

/** The schedule at `now` for every stored key. */
export function keyScheduleAt(keys: readonly SigningKeyRecord[], now: EpochMs, times: ScheduleTimes): KeySchedule {
  const ordered = [...keys].sort(byActivation);
  const active = ordered.filter((key) => key.activatesAt <= now);
  const signer = active.at(-1) ?? null;
  const published = ordered.filter((key, index) => {
    if (key.createdAt > now) return false;
    const next = ordered[index + 1];
    // A key whose successor has not activated yet is still the signer (or still to sign).
    if (next === undefined || next.activatesAt > now) return true;
    return now < next.activatesAt + times.tokenTtlMs + times.clockSkewMs;
  });
  return { signer, published: published.reverse(), pending: ordered.filter((key) => key.createdAt <= now && key.activatesAt > now) };
}

/**
 * When a key created at `now` by a rotation may start signing: once every verifier that caches the key set
 * for `jwksMaxAgeMs` has fetched it with the new key in, and at least one token lifetime later.
 */
export function rotationActivation(now: EpochMs, times: ScheduleTimes & { readonly jwksMaxAgeMs: number }): EpochMs {
  return now + Math.max(times.tokenTtlMs, times.jwksMaxAgeMs) + times.clockSkewMs;
}

/** The age of the signing key at `now` (from its activation), in milliseconds; null when no key signs. */
export function signerAgeMs(schedule: KeySchedule, now: EpochMs): number | null {
  return schedule.signer === null ? null : now - schedule.signer.activatesAt;
}
