/**
 * The round-trip time to the server for the risk engine (docs/risk.md): the quicker of two tiny requests to
 * `/healthz`, which answers without touching the database. The first may pay for a connection; the second
 * rides it. A failure or a figure past 10 s is no measurement: the sign-in goes on without one.
 */
const PROBES = 2;
const MAX_MS = 10_000;

export type Fetch = (url: string, init: RequestInit) => Promise<Response>;

export async function measureRoundTrip(fetch: Fetch, now: () => number, origin: string): Promise<number | undefined> {
  let quickest = Number.POSITIVE_INFINITY;
  for (let i = 0; i < PROBES; i++) {
    const started = now();
    try {
      const response = await fetch(`${origin}/healthz`, { cache: "no-store", credentials: "omit" });
      if (!response.ok) return undefined;
      await response.arrayBuffer();
    } catch {
      return undefined;
    }
    quickest = Math.min(quickest, now() - started);
  }
  const ms = Math.round(quickest);
  return ms >= 1 && ms <= MAX_MS ? ms : undefined;
}
