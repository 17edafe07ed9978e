import type { EpochMs } from "../model.ts";
import { FeatureCounts } from "./feature-counts.ts";
import type { RiskObservation } from "../records/risk-observation.ts";
import type { PreviousSignIn } from "./rules.ts";

const DAY_MS = 86_400_000;

/** Six months of a user's sign-ins, as Wiefling et al. found enough, and never more than this many. */
export const RISK_HISTORY = { windowMs: 183 * DAY_MS, maxPerUser: 500 } as const;

/** What impossible travel reads of the user's latest sign-in before this one. */
export function previousSignIn(last: RiskObservation | null | undefined): PreviousSignIn | null {
  return last == null ? null : { at: last.at, location: last.location, country: last.country };
}

/** One user's successful sign-ins in the window, oldest first, with their counts kept in step. */
export class UserRiskHistory {
  readonly counts = new FeatureCounts();
  readonly #observations: RiskObservation[] = [];

  get size(): number {
    return this.#observations.length;
  }

  previous(): PreviousSignIn | null {
    return previousSignIn(this.#observations.at(-1));
  }

  /** Drops what fell out of the window by `now`. */
  prune(now: EpochMs): void {
    while (this.#observations.length > 0 && this.#observations[0]!.at < now - RISK_HISTORY.windowMs) this.counts.remove(this.#observations.shift()!);
  }

  add(observation: RiskObservation): void {
    this.prune(observation.at);
    this.#observations.push(observation);
    this.counts.add(observation);
    if (this.#observations.length > RISK_HISTORY.maxPerUser) this.counts.remove(this.#observations.shift()!);
  }
}
