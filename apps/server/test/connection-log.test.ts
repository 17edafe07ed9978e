import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.ts";
import { connectionObserver, logConnectionMode } from "../src/connection-log.ts";
import { createLogger } from "../src/logger.ts";
import { createMetrics } from "../src/metrics.ts";

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split("\n").filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: createLogger("info", destination) };
}

describe("connection caps: log and metrics", () => {
  it("names the cap that refused, its limit and the address group, once a minute per cap; counts every refusal by cap", async () => {
    const { lines, logger } = capture();
    const metrics = createMetrics();
    let now = 0;
    const observer = connectionObserver(loadConfig({ MAX_CONNECTIONS: "500" }), logger, metrics, () => now);
    observer.refused("per_address", "203.0.113.0/24");
    observer.refused("per_address", "203.0.113.0/24");
    observer.refused("total", undefined);
    now = 60_000;
    observer.refused("per_address", "2001:db8:1:0::/56");
    observer.opened(7);
    expect(lines.map(({ cap, group, limit, variable, refused }) => ({ cap, group, limit, variable, refused }))).toEqual([
      { cap: "per_address", group: "203.0.113.0/24", limit: 5, variable: "MAX_CONNECTIONS_PER_IP", refused: 1 },
      { cap: "total", group: undefined, limit: 500, variable: "MAX_CONNECTIONS", refused: 1 },
      { cap: "per_address", group: "2001:db8:1:0::/56", limit: 5, variable: "MAX_CONNECTIONS_PER_IP", refused: 2 },
    ]);
    const text = await metrics.registry.metrics();
    expect(text).toContain('gatehouse_connections_refused_total{cap="per_address"} 3');
    expect(text).toContain('gatehouse_connections_refused_total{cap="total"} 1');
    expect(text).toContain("gatehouse_connections_open 7");
  });

  it.each([
    [{}, "direct", /direct \(TRUST_PROXY=0\): at most 100 connections per address group \(IPv4 \/24, IPv6 \/56\)/],
    [{ TRUST_PROXY: "1" }, "behind_proxy", /behind a proxy \(TRUST_PROXY=1\): no per-address cap/],
  ])("says at start-up which mode is on (%j)", (env, mode, message) => {
    const { lines, logger } = capture();
    logConnectionMode(loadConfig(env), logger);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ connectionMode: mode });
    expect(lines[0]!.msg).toMatch(message);
  });
});
