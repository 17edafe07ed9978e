import { createRouterTransport } from "@connectrpc/connect";
import { AuthService } from "@gatehouse/contract/gen/gatehouse/v1/auth_pb";
import { describe, expect, it } from "vitest";
import { createAuthClient } from "../src/api/auth-client.ts";
import { measureRoundTrip, type Fetch } from "../src/round-trip.ts";

/** A server whose answers take the listed milliseconds on a clock the test moves; a figure of -1 fails. */
function server(delays: number[]) {
  let clock = 1_000;
  const urls: string[] = [];
  const fetch: Fetch = async (url) => {
    urls.push(url);
    const delay = delays.shift()!;
    if (delay < 0) throw new TypeError("network error");
    clock += delay;
    return new Response('{"status":"ok"}', { status: 200 });
  };
  return { fetch, now: () => clock, urls };
}

describe("measureRoundTrip", () => {
  it("answers the quicker of two requests to /healthz: the first may pay for the connection", async () => {
    const s = server([180, 42.4]);
    expect(await measureRoundTrip(s.fetch, s.now, "https://id.example")).toBe(42);
    expect(s.urls).toEqual(["https://id.example/healthz", "https://id.example/healthz"]);
  });

  it.each([
    ["a failed request", [30, -1]],
    ["no time at all", [0, 0]],
    ["more than ten seconds", [12_000, 11_000]],
  ])("measures nothing from %s", async (_case, delays) => {
    const s = server(delays);
    expect(await measureRoundTrip(s.fetch, s.now, "")).toBeUndefined();
  });

  it("answers nothing from a server that refuses the probe", async () => {
    const fetch: Fetch = async () => new Response("", { status: 503 });
    expect(await measureRoundTrip(fetch, () => 0, "")).toBeUndefined();
  });
});

describe("Login's round-trip time", () => {
  function loginSeen(roundTrip?: () => Promise<number | undefined>) {
    const seen: number[] = [];
    const transport = createRouterTransport(({ service }) => {
      service(AuthService, {
        login: (request) => {
          seen.push(request.rttMs);
          return { result: { case: "phoneRequired", value: { intentId: "i" } } };
        },
      });
    });
    const auth = createAuthClient(transport, () => "fp", roundTrip);
    return { seen, login: () => auth.login({ email: "ada@example.com", password: "pw", org: "acme" }) };
  }

  it("sends what was measured, and 0 (not measured) when nothing was", async () => {
    const measured = loginSeen(async () => 37);
    await measured.login();
    const unmeasured = loginSeen(async () => undefined);
    await unmeasured.login();
    expect([...measured.seen, ...unmeasured.seen]).toEqual([37, 0]);
  });
});
