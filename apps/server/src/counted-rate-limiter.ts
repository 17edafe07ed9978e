import type { RateLimiter } from "@gatehouse/core";

/**
 * Wraps the RateLimiter port so every refusal is reported with the limit it hit, without the
 * core knowing about metrics. Keys look like `ip:<address>` or `otp-send:phone:<phone>:<windowMs>`:
 * only the kind and the window become the label, never the address, phone or user id.
 */
export function countedRateLimiter(limiter: RateLimiter, onRejected: (limit: string) => void): RateLimiter {
  return {
    refund: (receipt) => limiter.refund(receipt),
    consume: async (key, limit, windowMs, now) => {
      const decision = await limiter.consume(key, limit, windowMs, now);
      if (!decision.allowed) onRejected(limitLabel(key, windowMs));
      return decision;
    },
    // Every window that refused is reported, not only the one the caller names: each was exhausted.
    consumeMany: async (requests, now) => {
      const decisions = await limiter.consumeMany(requests, now);
      for (const [i, { key, windowMs }] of requests.entries()) if (decisions[i]?.allowed === false) onRejected(limitLabel(key, windowMs));
      return decisions;
    },
  };
}

/**
 * Every limit the core and the edge name (core rate-limits.ts `rateLimitKeys`, email-send-limits.ts, the edge's
 * `ip`), each its own label: a key of a kind not listed is `other`, so a new kind can never put an id in a label.
 */
export const LIMIT_KINDS: readonly string[] = [
  "ip",
  "otp-send:phone",
  "otp-send:user",
  "otp-send:step-up-session",
  "otp-send:prefix",
  "otp-fail:user",
  "otp-fail:step-up-session",
  "policy-write:org",
  "policy-write:user",
  "password-fail:account",
  "password-fail:device",
  "audit-anon:ip",
  "passkey-sign-in:ip",
  "risk-fail:ip",
  "risk-fail:asn",
  "risk-fail:account",
  "email-send:address",
  "email-send:client",
  "email-send:org",
];
const KNOWN_KINDS = new Set(LIMIT_KINDS);

export function limitLabel(key: string, windowMs: number): string {
  const parts = key.split(":");
  const kind = parts[0] === "ip" ? "ip" : parts.slice(0, 2).join(":");
  return KNOWN_KINDS.has(kind) ? `${kind}:${formatWindow(windowMs)}` : "other";
}

function formatWindow(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  return `${Math.round(ms / 1000)}s`;
}
