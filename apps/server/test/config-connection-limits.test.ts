import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config.ts";
import { connectionGroup, DEFAULT_CONNECTION_LIMITS } from "../src/connection-limits.ts";

describe("config: connection limits", () => {
  it("defaults when unset", () => {
    expect(loadConfig({}).connections).toEqual(DEFAULT_CONNECTION_LIMITS);
    expect(DEFAULT_CONNECTION_LIMITS.http2MaxConcurrentStreams).toBe(100);
  });

  it("keeps one address to 1% of the connections unless told otherwise, and never above the total", () => {
    expect(DEFAULT_CONNECTION_LIMITS.maxConnectionsPerIp).toBe(DEFAULT_CONNECTION_LIMITS.maxConnections / 100);
    expect(loadConfig({ MAX_CONNECTIONS: "500" }).connections.maxConnectionsPerIp).toBe(5);
    expect(loadConfig({ MAX_CONNECTIONS: "20" }).connections.maxConnectionsPerIp).toBe(1);
    expect(() => loadConfig({ MAX_CONNECTIONS: "20", MAX_CONNECTIONS_PER_IP: "21" })).toThrow("MAX_CONNECTIONS_PER_IP must not exceed MAX_CONNECTIONS");
  });

  it("TRUST_PROXY turns the per-address cap off: every peer is a proxy", () => {
    expect(loadConfig({}).connections.behindProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: "1" }).connections.behindProxy).toBe(true);
  });

  it.each([
    ["203.0.113.7", "203.0.113.0/24"],
    ["203.0.113.250", "203.0.113.0/24"],
    ["::ffff:203.0.113.7", "203.0.113.0/24"],
    ["2001:db8:1:3::1", "2001:db8:1:0::/56"],
    ["2001:db8:1:ff::1", "2001:db8:1:0::/56"],
    ["2001:db8:1:ffaa:1:2:3:4", "2001:db8:1:ff00::/56"],
    ["::1", "0:0:0:0::/56"],
    ["fe80::1%eth0", "fe80:0:0:0::/56"],
    ["::ffff:1.2.3.4.5", "::ffff:1.2.3.4.5"],
    ["unknown", "unknown"],
  ])("counts connections from %s under %s (IPv4 /24, IPv6 /56)", (address, group) => {
    expect(connectionGroup(address)).toBe(group);
  });

  it("reads every variable", () => {
    const config = loadConfig({
      FIRST_BYTES_TIMEOUT_MS: "100",
      HEADERS_TIMEOUT_MS: "200",
      REQUEST_TIMEOUT_MS: "300",
      KEEP_ALIVE_TIMEOUT_MS: "400",
      MAX_CONNECTIONS: "50",
      MAX_HEADER_BYTES: "8192",
      HTTP2_MAX_CONCURRENT_STREAMS: "10",
      HTTP2_MAX_SESSION_MEMORY_MB: "5",
      MAX_CONNECTIONS_PER_IP: "7",
      MAX_BODY_BYTES_IN_FLIGHT: "2097152",
    });
    expect(config.connections).toEqual({
      firstBytesTimeoutMs: 100,
      headersTimeoutMs: 200,
      requestTimeoutMs: 300,
      keepAliveTimeoutMs: 400,
      maxConnections: 50,
      maxConnectionsPerIp: 7,
      behindProxy: false,
      maxBodyBytesInFlight: 2097152,
      maxHeaderBytes: 8192,
      http2MaxConcurrentStreams: 10,
      http2MaxSessionMemoryMb: 5,
    });
    // Not set: the refusal pause stays within half the request timeout.
    expect(config.refusalPauseMs).toBe(150);
    expect(loadConfig({}).refusalPauseMs).toBe(1000);
  });

  it.each([
    [{ REQUEST_TIMEOUT_MS: "0" }, "REQUEST_TIMEOUT_MS must be a whole number from 10"],
    [{ MAX_CONNECTIONS: "many" }, "MAX_CONNECTIONS must be a whole number"],
    [{ HTTP2_MAX_CONCURRENT_STREAMS: "4294967295" }, "HTTP2_MAX_CONCURRENT_STREAMS must be a whole number from 1 to 10000"],
    [{ HEADERS_TIMEOUT_MS: "5000", REQUEST_TIMEOUT_MS: "1000" }, "HEADERS_TIMEOUT_MS must not exceed REQUEST_TIMEOUT_MS"],
    [{ REFUSAL_PAUSE_MS: "1000", REQUEST_TIMEOUT_MS: "1000", HEADERS_TIMEOUT_MS: "500" }, "REFUSAL_PAUSE_MS must be shorter than REQUEST_TIMEOUT_MS"],
    [{ REFUSAL_PAUSE_MS: "-1" }, "REFUSAL_PAUSE_MS must be a whole number from 0 to 60000"],
  ])("refuses %j", (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});
