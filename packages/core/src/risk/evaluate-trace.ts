import { FeatureCounts } from "./feature-counts.ts";
import { assessRisk } from "./assess.ts";
import { UserRiskHistory } from "./history.ts";
import type { RiskObservation } from "../records/risk-observation.ts";
import { RISK_DECISIONS, type RiskDecision, type RiskPolicy } from "../records/risk-policy.ts";
import type { FailureVelocity } from "./rules.ts";

/** One row of a login history, as the open RBA dataset labels it. */
export interface LabelledSignIn {
  readonly userId: string;
  readonly observation: RiskObservation;
  /** The password was right. Failed sign-ins are not scored; they feed the failure velocity. */
  readonly successful: boolean;
  readonly accountTakeover: boolean;
}

export interface TraceEvaluation {
  readonly sign_ins: number;
  readonly scored: number;
  readonly decisions: Readonly<Record<RiskDecision, number>>;
  readonly attack_logins: number;
  /** Account-takeover sign-ins stepped up or blocked, of all of them. */
  readonly attack_caught_rate: number;
  readonly owner_logins: number;
  /** Owners' successful sign-ins (other than each owner's first) stepped up or blocked, of all of them. */
  readonly owner_reauth_rate: number;
  /** Per scored sign-in, in milliseconds, when a timer was given. */
  readonly score_ms: { readonly p50: number; readonly p99: number; readonly max: number } | null;
}

const HOUR_MS = 3_600_000;

/** Counts of events per key in the last hour, for the failure velocity. */
class HourlyCounts {
  readonly #times = new Map<string, number[]>();

  count(key: string, now: number): number {
    const times = this.#times.get(key);
    if (times === undefined) return 0;
    while (times.length > 0 && times[0]! <= now - HOUR_MS) times.shift();
    if (times.length === 0) this.#times.delete(key);
    return times.length;
  }

  add(key: string, now: number): void {
    const times = this.#times.get(key);
    if (times === undefined) this.#times.set(key, [now]);
    else times.push(now);
  }
}

/**
 * Replays a login history through the real engine in time order, in memory: each successful sign-in is scored
 * against what came before it, then learnt from when its owner would have got through (an owner passes the
 * step-up; an attacker got through only when allowed). Rows must come oldest first; they are fed one at a
 * time so a history larger than memory streams through.
 */
export class TraceEvaluator {
  readonly #policy: RiskPolicy;
  readonly #anonymizerAsns: ReadonlySet<number>;
  readonly #timer: (() => number) | undefined;
  readonly #platform = new FeatureCounts();
  readonly #histories = new Map<string, UserRiskHistory>();
  readonly #failures = new HourlyCounts();
  readonly #decisions = Object.fromEntries(RISK_DECISIONS.map((each) => [each, 0])) as Record<RiskDecision, number>;
  readonly #durations: number[] = [];
  #signIns = 0;
  #attacks = 0;
  #caught = 0;
  #owners = 0;
  #reauthenticated = 0;

  constructor(policy: RiskPolicy, options: { readonly anonymizerAsns?: ReadonlySet<number>; readonly timer?: () => number } = {}) {
    this.#policy = policy;
    this.#anonymizerAsns = options.anonymizerAsns ?? new Set<number>();
    this.#timer = options.timer;
  }

  /** Scores one row and learns from it; answers the decision, or null for a failed sign-in (not scored). */
  observe(row: LabelledSignIn): RiskDecision | null {
    this.#signIns++;
    const { observation } = row;
    const at = observation.at;
    const keys = [`ip:${observation.ip}`, `asn:${observation.asn ?? "?"}`, `user:${row.userId}`] as const;
    if (!row.successful) {
      for (const key of keys) this.#failures.add(key, at);
      return null;
    }
    let history = this.#histories.get(row.userId);
    if (history === undefined) this.#histories.set(row.userId, (history = new UserRiskHistory()));
    history.prune(at);
    const firstSignIn = history.size === 0;
    const velocity: FailureVelocity = {
      perIp: this.#failures.count(keys[0], at),
      perAsn: this.#failures.count(keys[1], at),
      perAccount: this.#failures.count(keys[2], at),
    };
    const started = this.#timer?.();
    const input = {
      observation,
      user: history.counts,
      platform: this.#platform,
      previous: history.previous(),
      velocity,
      anonymizerAsns: this.#anonymizerAsns,
      commonPassword: false,
    };
    const { decision } = assessRisk(this.#policy, input);
    if (started !== undefined) this.#durations.push(this.#timer!() - started);
    this.#decisions[decision]++;
    const challenged = decision !== "allow";
    if (row.accountTakeover) {
      this.#attacks++;
      if (challenged) this.#caught++;
    } else if (!firstSignIn) {
      this.#owners++;
      if (challenged) this.#reauthenticated++;
    }
    if (!row.accountTakeover || !challenged) history.add(observation);
    this.#platform.add(observation);
    return decision;
  }

  result(): TraceEvaluation {
    const durations = [...this.#durations].sort((a, b) => a - b);
    const percentile = (p: number) => durations[Math.min(durations.length - 1, Math.ceil((p / 100) * durations.length) - 1)]!;
    return {
      sign_ins: this.#signIns,
      scored: Object.values(this.#decisions).reduce((a, b) => a + b, 0),
      decisions: { ...this.#decisions },
      attack_logins: this.#attacks,
      attack_caught_rate: this.#attacks === 0 ? 0 : round(this.#caught / this.#attacks),
      owner_logins: this.#owners,
      owner_reauth_rate: this.#owners === 0 ? 0 : round(this.#reauthenticated / this.#owners),
      score_ms: durations.length === 0 ? null : { p50: round(percentile(50)), p99: round(percentile(99)), max: round(durations.at(-1)!) },
    };
  }
}

const round = (value: number) => Math.round(value * 10_000) / 10_000;
