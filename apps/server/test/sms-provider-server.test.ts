/**
 * A real server configured with SMS_PROVIDER=twilio against a local stand-in for Twilio's
 * Messages API: a refusal answers Unavailable, is logged with provider, status and code and a
 * masked phone (never the token, OTP or full number), is counted by provider, and the retried
 * SubmitPhone goes through once the provider accepts.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Code } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientsFor, rpcError } from "./support/clients.ts";
import { DEV_ENV, seedOrgAndMember, startServerProcess, tempSqliteDatabase, type ServerProcess, type TestDatabase } from "./support/server-process.ts";

const EMAIL = "sms@example.com";
const PASSWORD = "correct horse battery";
const PHONE = "+15551234567";
const ACCOUNT_SID = "AC0123456789abcdef0123456789abcdef";
const AUTH_TOKEN = "twilio_token_do_not_log_77";

describe("SMS_PROVIDER=twilio, end to end", () => {
  let twilio: Server;
  let twilioUrl: string;
  let accept = false;
  const bodies: URLSearchParams[] = [];
  let db: TestDatabase;
  let server: ServerProcess;
  let orgId: string;

  beforeAll(async () => {
    twilio = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const form = new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
        bodies.push(form);
        const authorized = request.headers.authorization === `Basic ${Buffer.from(`${ACCOUNT_SID}:${AUTH_TOKEN}`).toString("base64")}`;
        if (accept && authorized && request.url === `/2010-04-01/Accounts/${ACCOUNT_SID}/Messages.json`) {
          response.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify({ sid: "SM0123456789abcdef0123456789abcdef", status: "queued" }));
          return;
        }
        // Twilio's own error text quotes the number: it must not reach the log.
        const message = `Attempt to send to unsubscribed recipient ${form.get("To")}`;
        response
          .writeHead(400, { "content-type": "application/json" })
          .end(JSON.stringify({ code: 21610, message, more_info: "https://www.twilio.com/docs/errors/21610", status: 400 }));
      });
    });
    await new Promise<void>((resolve) => twilio.listen(0, "127.0.0.1", resolve));
    twilioUrl = `http://127.0.0.1:${(twilio.address() as AddressInfo).port}`;

    db = tempSqliteDatabase();
    const env = {
      DATABASE_URL: db.databaseUrl,
      PASSWORD_HASH_MEMORY_KIB: DEV_ENV.PASSWORD_HASH_MEMORY_KIB!,
      PASSWORD_HASH_PASSES: DEV_ENV.PASSWORD_HASH_PASSES!,
      RATE_LIMIT_IP_PER_MINUTE: "0",
      METRICS_PORT: "0",
      SMS_PROVIDER: "twilio",
      TWILIO_ACCOUNT_SID: ACCOUNT_SID,
      TWILIO_AUTH_TOKEN: AUTH_TOKEN,
      TWILIO_FROM: "+15557654321",
      TWILIO_BASE_URL: twilioUrl,
    };
    ({ orgId } = await seedOrgAndMember(env, EMAIL, PASSWORD));
    server = await startServerProcess(env);
  });

  afterAll(async () => {
    await server?.stop();
    db?.dispose();
    twilio?.closeAllConnections();
    await new Promise((resolve) => twilio?.close(resolve));
  });

  it("a Twilio refusal is Unavailable, logged with code and masked phone, counted; the retry succeeds once Twilio accepts", async () => {
    const api = clientsFor(server.url);
    const outcome = await api.auth.login({ email: EMAIL, password: PASSWORD, orgId, deviceFingerprint: "phone-1" });
    if (outcome.result.case !== "phoneRequired") throw new Error("expected phoneRequired");
    const intentId = outcome.result.value.intentId;

    expect((await rpcError(api.auth.submitPhoneAndRequestMFA({ intentId, phone: PHONE }))).code).toBe(Code.Unavailable);
    const failure = await server.logEntry((entry) => entry.msg === "SMS delivery failed");
    expect(failure).toMatchObject({ provider: "twilio", reason: "rejected", status: 400, providerCode: "21610", attempts: 1, phone: "+*******4567" });
    const logText = server.logs.join("\n");
    expect(logText).not.toContain(AUTH_TOKEN);
    expect(logText).not.toContain(PHONE);
    const otp = /code is (\d{6})/.exec(bodies[0]!.get("Body") ?? "")?.[1];
    expect(otp).toMatch(/^\d{6}$/);
    expect(logText).not.toContain(otp);

    accept = true;
    const sent = await api.auth.submitPhoneAndRequestMFA({ intentId, phone: PHONE });
    expect(sent.phoneMask).toBe("+*******4567");
    expect(Object.fromEntries(bodies.at(-1)!)).toMatchObject({ To: PHONE, From: "+15557654321" });

    const metrics = await (await fetch(server.metricsUrl())).text();
    expect(metrics).toContain('gatehouse_otp_sends_total{provider="twilio",outcome="failed"} 1');
    expect(metrics).toContain('gatehouse_otp_sends_total{provider="twilio",outcome="sent"} 1');
    expect(metrics).toContain('gatehouse_rpc_requests_total{method="gatehouse.v1.AuthService/SubmitPhoneAndRequestMFA",code="unavailable"} 1');
  });
});
