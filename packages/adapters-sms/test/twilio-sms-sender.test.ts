import { inspect } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { createTwilioSmsSender, SmsDeliveryError, type TwilioSmsSenderOptions } from "../src/index.ts";
import type { FakeProvider } from "./fake-provider.ts";
import { ACCOUNT_SID, API_KEY_SECRET, API_KEY_SID, AUTH_TOKEN, SERVICE_SID, startFakeTwilio, twilioError, type Scripted } from "./fake-twilio.ts";
import { manualTiming } from "./manual-timing.ts";

const OTP = "482913";
const PHONE = "+15551234567";
const message = { phone: PHONE, otp: OTP, challengeId: "ch_test_1" };

let twilio: FakeProvider | undefined;
afterEach(async () => {
  await twilio?.close();
  twilio = undefined;
});

async function start(scripted: Scripted[] = []): Promise<FakeProvider> {
  twilio = await startFakeTwilio(scripted);
  return twilio;
}

function senderFor(server: FakeProvider, options: Partial<TwilioSmsSenderOptions> = {}) {
  return createTwilioSmsSender({
    accountSid: ACCOUNT_SID,
    credentials: { kind: "auth_token", authToken: AUTH_TOKEN },
    sender: { from: "+15557654321" },
    baseUrl: server.url,
    ...options,
  });
}

async function failureOf(promise: Promise<unknown>): Promise<SmsDeliveryError> {
  const error = await promise.then(
    () => expect.fail("the send should have failed"),
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(SmsDeliveryError);
  const failure = error as SmsDeliveryError;
  for (const text of [failure.message, String(failure), failure.stack ?? "", inspect(failure, { depth: 5 }), JSON.stringify(failure)]) {
    for (const secret of [AUTH_TOKEN, API_KEY_SECRET, OTP, PHONE, PHONE.slice(1)]) expect(text).not.toContain(secret);
  }
  return failure;
}

describe("Twilio sender against Twilio's documented Messages API", () => {
  it("creates a message: form-encoded To/From/Body, basic auth with the account SID and auth token", async () => {
    const server = await start();
    await senderFor(server).sendOtp(message);

    expect(server.requests).toHaveLength(1);
    const request = server.requests[0]!;
    expect(request.url).toBe(`/2010-04-01/Accounts/${ACCOUNT_SID}/Messages.json`);
    expect(request.headers.authorization).toBe(`Basic ${Buffer.from(`${ACCOUNT_SID}:${AUTH_TOKEN}`).toString("base64")}`);
    expect(Object.fromEntries(new URLSearchParams(request.body))).toEqual({
      To: PHONE,
      From: "+15557654321",
      Body: "Your Gatehouse code is 482913. It expires in 10 minutes.",
    });
  });

  it("authenticates with an API key SID and secret, and sends through a messaging service", async () => {
    const server = await start();
    await senderFor(server, {
      credentials: { kind: "api_key", apiKeySid: API_KEY_SID, apiKeySecret: API_KEY_SECRET },
      sender: { messagingServiceSid: SERVICE_SID },
      messageTemplate: (otp) => `${otp} is your code`,
    }).sendOtp(message);

    const request = server.requests[0]!;
    expect(request.headers.authorization).toBe(`Basic ${Buffer.from(`${API_KEY_SID}:${API_KEY_SECRET}`).toString("base64")}`);
    expect(Object.fromEntries(new URLSearchParams(request.body))).toEqual({ To: PHONE, MessagingServiceSid: SERVICE_SID, Body: "482913 is your code" });
  });

  it("maps Twilio's error JSON to its code, without its message (which quotes the number), and does not retry a 400", async () => {
    const server = await start();
    const timing = manualTiming();
    const error = await failureOf(senderFor(server, { ...timing }).sendOtp({ ...message, phone: "+1555" }));
    expect(error).toMatchObject({ provider: "twilio", reason: "rejected", status: 400, providerCode: "21211", attempts: 1 });
    expect(error.message).toBe("Twilio answered 400 (code 21211: invalid To number)");
    expect(server.requests).toHaveLength(1);
    expect(timing.sleeps).toEqual([]);
  });

  it("refuses wrong credentials as Twilio does (401, code 20003), once", async () => {
    const server = await start();
    const error = await failureOf(senderFor(server, { credentials: { kind: "auth_token", authToken: "wrong_token_value" } }).sendOtp(message));
    expect(error).toMatchObject({ reason: "rejected", status: 401, providerCode: "20003", attempts: 1 });
  });

  it("retries a 429 after the Retry-After it names, then succeeds", async () => {
    const server = await start([(response) => twilioError(response, 429, 20429, "Too Many Requests", { "retry-after": "2" })]);
    const timing = manualTiming();
    await senderFor(server, { ...timing }).sendOtp(message);
    expect(timing.sleeps).toEqual([2000]);
    expect(server.requests).toHaveLength(2);
  });

  it("backs off exponentially on 429 and gives up after the last attempt", async () => {
    const throttled: Scripted = (response) => twilioError(response, 429, 20429, "Too Many Requests");
    const server = await start([throttled, throttled, throttled]);
    const timing = manualTiming();
    const error = await failureOf(senderFor(server, { ...timing, retry: { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 1000 } }).sendOtp(message));
    expect(error).toMatchObject({ status: 429, providerCode: "20429", attempts: 3, mayHaveBeenSent: false });
    expect(timing.sleeps).toEqual([100, 200]);
    expect(server.requests).toHaveLength(3);
  });

  it("does not retry a 5xx: the message may have gone out", async () => {
    const server = await start([(response) => twilioError(response, 503, 20500, "Service unavailable")]);
    const timing = manualTiming();
    const error = await failureOf(senderFor(server, { ...timing, retry: { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 1000 } }).sendOtp(message));
    expect(error).toMatchObject({ status: 503, providerCode: "20500", attempts: 1, mayHaveBeenSent: true });
    expect([timing.sleeps, server.requests.length]).toEqual([[], 1]);
  });

  it("fails at once when Retry-After would outlast the send timeout, rather than sleeping for nothing", async () => {
    const server = await start([(response) => twilioError(response, 429, 20429, "Too Many Requests", { "retry-after": "30" })]);
    const timing = manualTiming();
    const error = await failureOf(senderFor(server, { ...timing, timeoutMs: 5000 }).sendOtp(message));
    expect(error).toMatchObject({ status: 429, providerCode: "20429", attempts: 1 });
    expect(timing.sleeps).toEqual([]);
  });

  it("refuses malformed configuration at construction, without echoing secrets", () => {
    const base = { accountSid: ACCOUNT_SID, credentials: { kind: "auth_token", authToken: AUTH_TOKEN }, sender: { from: "+15557654321" } } as const;
    expect(() => createTwilioSmsSender({ ...base, accountSid: "AC123" })).toThrow(/account SID/);
    expect(() => createTwilioSmsSender({ ...base, sender: { messagingServiceSid: "MG1" } })).toThrow(/messaging service SID/);
    expect(() => createTwilioSmsSender({ ...base, credentials: { kind: "auth_token", authToken: `${AUTH_TOKEN}\r\nx` } })).toThrow(/credentials/);
    expect(() => createTwilioSmsSender({ ...base, baseUrl: "api.twilio.com" })).toThrow(/base URL/);
    try {
      createTwilioSmsSender({ ...base, credentials: { kind: "auth_token", authToken: `${AUTH_TOKEN} x` } });
    } catch (error) {
      expect(String(error)).not.toContain(AUTH_TOKEN);
    }
  });
});
