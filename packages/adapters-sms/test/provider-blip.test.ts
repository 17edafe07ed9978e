/**
 * A provider blip, end to end through the core: the real HTTP sender against a provider that answers 500 to the
 * sign-ins made during its outage, then recovers. Each failed sign-in costs one of the phone's five sends (the text
 * may have gone out) and answers `sms_unavailable` at once; the next sign-in after the recovery gets its code.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createGatehouse, GatehouseError, SYSTEM_ACTOR } from "@gatehouse/core";
import { createMemoryStores, ManualClock, OutboxEmailSender, SequenceRandom } from "@gatehouse/core/testing";
import { createHttpSmsSender } from "../src/index.ts";
import { startFakeProvider, type FakeProvider } from "./fake-provider.ts";
import { manualTiming } from "./manual-timing.ts";

const PASSWORD = "correct horse battery";
const PHONE = "+15551234567";

let provider: FakeProvider | undefined;
afterEach(async () => {
  await provider?.close();
  provider = undefined;
});

async function signInSetup(answer: () => number) {
  provider = await startFakeProvider((response) => response.writeHead(answer()).end());
  const sms = createHttpSmsSender({
    apiKey: "sk_test_blip",
    baseUrl: provider.url,
    ...manualTiming(),
    retry: { maxAttempts: 3, baseDelayMs: 40, maxDelayMs: 400 },
  });
  const stores = createMemoryStores();
  const clock = new ManualClock();
  const gatehouse = createGatehouse({
    stores,
    clock,
    random: new SequenceRandom(),
    sms,
    email: new OutboxEmailSender(),
    config: { password: { memoryKiB: 1024, passes: 1, parallelism: 1 } },
  });
  const { orgId } = await gatehouse.admin.createOrg(SYSTEM_ACTOR, { name: "Acme" });
  const { userId } = await gatehouse.register({ email: "ada@example.com", password: PASSWORD, emailVerified: true });
  await gatehouse.admin.addMember(SYSTEM_ACTOR, { orgId, email: "ada@example.com", role: "member" });
  await stores.users.setVerifiedPhone(userId, PHONE);
  let device = 0;
  const signIn = () =>
    gatehouse.login({ email: "ada@example.com", password: PASSWORD, orgId, deviceFingerprint: `d${++device}` }).then(
      (outcome) => outcome.kind,
      (error: unknown) => (error instanceof GatehouseError ? error.kind : String(error)),
    );
  return { signIn, clock, requests: () => provider!.requests.length };
}

describe("SMS provider blip", () => {
  it("a provider answering 500 to two sign-ins and then recovering lets the user sign in at once: one request, one unit each", async () => {
    let down = true;
    const { signIn, requests } = await signInSetup(() => (down ? 500 : 202));
    expect([await signIn(), await signIn()]).toEqual(["sms_unavailable", "sms_unavailable"]);
    // No retry of a request that may have been delivered: two sign-ins, two requests.
    expect(requests()).toBe(2);
    down = false;
    expect(await signIn()).toBe("mfa_required");
    expect(requests()).toBe(3);
  });

  it("the toll-fraud bound holds: a provider that delivers and answers 500 reaches the phone at most 5 times in 15 minutes", async () => {
    const { signIn, clock, requests } = await signInSetup(() => 500);
    const outcomes: string[] = [];
    for (let i = 0; i < 12; i++) outcomes.push(await signIn());
    expect(requests()).toBe(5);
    expect(outcomes.slice(0, 5)).toEqual(Array(5).fill("sms_unavailable"));
    expect(new Set(outcomes.slice(5))).toEqual(new Set(["rate_limited"]));
    clock.advance(15 * 60_000 + 1);
    expect(await signIn()).toBe("sms_unavailable");
    expect(requests()).toBe(6);
  });
});
