import { describe, expect, it } from "vitest";
import { GatehouseError } from "../src/errors.ts";
import { createHarness, PASSWORD } from "./harness.ts";

const MINUTE = 60_000;

describe("anonymous audit events are bounded per client IP", () => {
  it("a caller cannot fill an org's trail with text of its own: past 50 in 15 minutes its events are dropped, other callers' are kept", async () => {
    const h = await createHarness();
    const fail = async (n: number, clientIp: string) =>
      h.gatehouse
        .login({ email: `nobody-${n}@example.com`, password: "wrong password", orgId: h.orgId, request: { clientIp, userAgent: `spam ${n}` } })
        .catch((error: unknown) => {
          if (!(error instanceof GatehouseError) || error.kind !== "invalid_credentials") throw error;
        });
    for (let n = 0; n < 80; n++) await fail(n, "203.0.113.9");
    await fail(80, "198.51.100.7");
    const recorded = async () => (await h.stores.audit.list({ limit: 1000, kinds: ["sign_in.failed"] })).events;
    const byIp = (ip: string, events: Awaited<ReturnType<typeof recorded>>) => events.filter((event) => event.clientIp === ip).length;
    expect(byIp("203.0.113.9", await recorded())).toBe(50);
    expect(byIp("198.51.100.7", await recorded())).toBe(1);

    // A signed-in user's events are never bounded, whoever shares their IP.
    const outcome = await h.gatehouse.login({ email: "ada@example.com", password: PASSWORD, orgId: h.orgId, request: { clientIp: "203.0.113.9" } });
    expect(outcome.kind).toBe("phone_required");
    expect((await h.stores.audit.list({ limit: 10, kinds: ["sign_in.succeeded"] })).events).toHaveLength(1);

    h.clock.advance(15 * MINUTE);
    await fail(81, "203.0.113.9");
    expect(byIp("203.0.113.9", await recorded())).toBe(51);
  });
});
