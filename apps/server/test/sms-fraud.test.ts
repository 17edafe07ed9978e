/**
 * Issue 36's stories replayed against a real server and a stand-in SMS provider on the wire that
 * records every request it takes (a text that reached the phone) and then answers as told: 202,
 * 500 after delivering, or too late (after the send timeout).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Code } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientsFor, rpcError, type Clients } from "./support/clients.ts";
import { DEV_ENV, runCli, seedOrgAndMember, startServerProcess, tempSqliteDatabase, type ServerProcess, type TestDatabase } from "./support/server-process.ts";

const PASSWORD = "correct horse battery";
/** The send budget; a request answered later than this may still have been delivered. */
const TIMEOUT_MS = 1000;

type Mode = "accept" | "deliver-then-500" | "deliver-too-late";

describe("issue 36 end to end: SMS that cannot be pumped", () => {
  let provider: Server;
  let mode: Mode = "accept";
  /** Every text the provider took, by destination: what reached a phone. */
  const delivered: { to: string; body: string }[] = [];
  const held = new Set<ServerResponse>();
  let db: TestDatabase;
  let env: Record<string, string>;
  let server: ServerProcess;
  let api: Clients;
  let orgId: string;

  const answer = (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const { to, body } = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { to: string; body: string };
      delivered.push({ to, body });
      if (mode === "accept") response.writeHead(202).end();
      else if (mode === "deliver-then-500") response.writeHead(500).end();
      else held.add(response);
    });
  };

  beforeAll(async () => {
    provider = createServer(answer);
    await new Promise<void>((resolve) => provider.listen(0, "127.0.0.1", resolve));
    db = tempSqliteDatabase();
    env = {
      DATABASE_URL: db.databaseUrl,
      PASSWORD_HASH_MEMORY_KIB: DEV_ENV.PASSWORD_HASH_MEMORY_KIB!,
      PASSWORD_HASH_PASSES: DEV_ENV.PASSWORD_HASH_PASSES!,
      RATE_LIMIT_IP_PER_MINUTE: "0",
      REFUSAL_PAUSE_MS: "0",
      METRICS_PORT: "0",
      SMS_PROVIDER_API_KEY: "test-key-not-secret",
      SMS_PROVIDER_BASE_URL: `http://127.0.0.1:${(provider.address() as AddressInfo).port}/send`,
      SMS_PROVIDER_TIMEOUT_MS: String(TIMEOUT_MS),
      SMS_BREAKER_MIN_SENDS_PER_PREFIX: "5",
    };
    ({ orgId } = await seedOrgAndMember(env, "degraded@example.com", PASSWORD));
    for (const email of ["irsf@example.com", "pumping@example.com"]) {
      expect((await runCli(["user", "create", email, "--password-stdin"], env, `${PASSWORD}\n`)).status).toBe(0);
      expect((await runCli(["member", "add", orgId, email], env)).status).toBe(0);
    }
    server = await startServerProcess(env);
    api = clientsFor(server.url);
  });

  afterAll(async () => {
    await server?.stop();
    db?.dispose();
    for (const response of held) response.destroy();
    provider?.closeAllConnections();
    await new Promise((resolve) => provider?.close(resolve));
  });

  const login = (email: string, device: string) => api.auth.login({ email, password: PASSWORD, orgId, deviceFingerprint: device });
  const outcomeOf = (promise: Promise<unknown>) =>
    promise.then(
      () => "sent",
      (error: unknown) => Code[(error as { code: Code }).code],
    );

  it("story 1: a provider that delivers and answers 500 or too late: at most 5 texts reach the phone, and the limit still holds once it recovers", async () => {
    const phone = "+15551230001";
    const first = await login("degraded@example.com", "laptop");
    if (first.result.case !== "phoneRequired") throw new Error("expected phoneRequired");
    const { challengeId } = await api.auth.submitPhoneAndRequestMFA({ intentId: first.result.value.intentId, phone });
    const otp = /(\d{6})/.exec(delivered.at(-1)!.body)![1]!;
    await api.auth.verifyMFA({ challengeId, otp });

    const outcomes: string[] = [];
    for (let i = 0; i < 12; i++) {
      mode = i % 2 === 0 ? "deliver-then-500" : "deliver-too-late";
      outcomes.push(await outcomeOf(login("degraded@example.com", `device-${i}`)));
    }
    // The first code, then four degraded sends, one request each: a request that may have been delivered is never retried.
    expect(delivered.filter((text) => text.to === phone)).toHaveLength(5);
    expect(outcomes.slice(0, 4)).toEqual(Array(4).fill("Unavailable"));
    expect(outcomes.slice(4)).toEqual(Array(8).fill("ResourceExhausted"));

    mode = "accept";
    expect((await rpcError(login("degraded@example.com", "after-recovery"))).code).toBe(Code.ResourceExhausted);
    expect(delivered.filter((text) => text.to === phone)).toHaveLength(5);
    const failure = await server.logEntry((entry) => entry.msg === "SMS delivery failed" && entry.reason === "http_status");
    expect(failure).toMatchObject({ provider: "http", status: 500, attempts: 1, mayHaveBeenSent: true });
  });

  it("story 3: a pumping run against one prefix (many numbers, none verified) trips the breaker, which is logged, counted, audited and reported", async () => {
    mode = "accept";
    const outcomes: string[] = [];
    for (let i = 0; i < 7; i++) {
      const outcome = await login("pumping@example.com", `pump-${i}`);
      if (outcome.result.case !== "phoneRequired") throw new Error("expected phoneRequired");
      outcomes.push(await outcomeOf(api.auth.submitPhoneAndRequestMFA({ intentId: outcome.result.value.intentId, phone: `+44790012${1000 + i}` })));
    }
    expect(outcomes).toEqual(["sent", "sent", "sent", "sent", "sent", "ResourceExhausted", "ResourceExhausted"]);
    expect(delivered.filter((text) => text.to.startsWith("+44790012"))).toHaveLength(5);

    const warning = await server.logEntry((entry) => String(entry.msg).startsWith("SMS conversion breaker tripped"));
    expect(warning).toMatchObject({ scope: "prefix", key: "+44790012", sent: 5, verified: 0 });
    const metrics = await (await fetch(server.metricsUrl())).text();
    expect(metrics).toContain('gatehouse_sms_breaker_trips_total{scope="prefix"} 1');
    expect(metrics).toContain('gatehouse_sms_refusals_total{reason="conversion_breaker"} 2');

    const audit = await runCli(["audit", "list", "--kind", "sms.breaker_tripped"], env);
    expect(
      audit.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { payload: unknown }),
    ).toEqual([expect.objectContaining({ payload: expect.objectContaining({ scope: "prefix", key: "+44790012", sent: 5, verified: 0 }) })]);
    const report = await runCli(["sms", "report", "--since", new Date(Date.now() - 3_600_000).toISOString()], env);
    expect(report.status).toBe(0);
    expect(report.json.rows).toContainEqual({ scope: "prefix", key: "+44790012", sent: 5, verified: 0, conversion: 0 });
    expect(report.json.rows).toContainEqual({ scope: "prefix", key: "+1555123", sent: 5, verified: 1, conversion: 0.2 });
  });

  it("story 2: premium and international-revenue-share numbers at each login: 0 texts reach them, each refused with InvalidArgument", async () => {
    const policy = await runCli(["sms", "policy", "--json", JSON.stringify({ allowed_countries: ["US", "GB", "FR"] })], env);
    expect(policy.json).toMatchObject({ org_id: null, allowed_countries: ["FR", "GB", "US"] });
    mode = "accept";
    const before = delivered.length;
    const numbers = ["+882123456789", "+8816123456789", "+870123456789", "+19005551234", "+449090123456", "+252612345678", "+6901234", "+375291234567"];
    const refusals: string[] = [];
    for (let i = 0; i < 20; i++) {
      const outcome = await login("irsf@example.com", `irsf-${i}`);
      if (outcome.result.case !== "phoneRequired") throw new Error("expected phoneRequired");
      const error = await rpcError(api.auth.submitPhoneAndRequestMFA({ intentId: outcome.result.value.intentId, phone: numbers[i % numbers.length]! }));
      expect(error.code).toBe(Code.InvalidArgument);
      refusals.push(error.rawMessage);
    }
    expect(delivered.length - before).toBe(0);
    expect(refusals).toContain("phone: verification codes cannot be sent to a premium-rate number; use a mobile phone number");
    expect(refusals).toContain("phone: verification codes cannot be sent to phone numbers in this country; use a mobile number from an allowed country");
    const metrics = await (await fetch(server.metricsUrl())).text();
    expect(metrics).toMatch(/gatehouse_sms_refusals_total\{reason="number_type"\} \d+/);
    expect(metrics).toMatch(/gatehouse_sms_refusals_total\{reason="country_not_allowed"\} \d+/);
  });
});
