import { inspect } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { createVonageSmsSender, SmsDeliveryError, type VonageSmsSenderOptions } from "../src/index.ts";
import type { FakeProvider } from "./fake-provider.ts";
import type { Scripted } from "./fake-twilio.ts";
import { startFakeVonage, VONAGE_KEY, VONAGE_SECRET, vonageAnswer } from "./fake-vonage.ts";
import { manualTiming } from "./manual-timing.ts";

const OTP = "482913";
const PHONE = "+15551234567";
const message = { phone: PHONE, otp: OTP, challengeId: "ch_test_1" };

let vonage: FakeProvider | undefined;
afterEach(async () => {
  await vonage?.close();
  vonage = undefined;
});

async function start(scripted: Scripted[] = []): Promise<FakeProvider> {
  vonage = await startFakeVonage(scripted);
  return vonage;
}

function senderFor(server: FakeProvider, options: Partial<VonageSmsSenderOptions> = {}) {
  return createVonageSmsSender({ apiKey: VONAGE_KEY, apiSecret: VONAGE_SECRET, from: "Gatehouse", baseUrl: server.url, ...options });
}

async function failureOf(promise: Promise<unknown>): Promise<SmsDeliveryError> {
  const error = await promise.then(
    () => expect.fail("the send should have failed"),
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(SmsDeliveryError);
  const failure = error as SmsDeliveryError;
  for (const text of [failure.message, String(failure), failure.stack ?? "", inspect(failure, { depth: 5 }), JSON.stringify(failure)]) {
    for (const secret of [VONAGE_SECRET, OTP, PHONE.slice(1)]) expect(text).not.toContain(secret);
  }
  return failure;
}

describe("Vonage sender against Vonage's documented SMS API", () => {
  it("posts api_key, api_secret, from, to without the +, and text as a form; status 0 is sent", async () => {
    const server = await start();
    await senderFor(server, { messageTemplate: (otp) => `${otp} is your code` }).sendOtp(message);

    const request = server.requests[0]!;
    expect(request.url).toBe("/sms/json");
    expect(Object.fromEntries(new URLSearchParams(request.body))).toEqual({
      api_key: VONAGE_KEY,
      api_secret: VONAGE_SECRET,
      from: "Gatehouse",
      to: "15551234567",
      text: "482913 is your code",
    });
  });

  it("reads a non-zero message status from the HTTP 200 as a refusal, with its code, and does not retry it", async () => {
    const server = await start();
    const timing = manualTiming();
    const error = await failureOf(senderFor(server, { ...timing, apiSecret: "wrong_secret_value" }).sendOtp(message));
    expect(error).toMatchObject({ provider: "vonage", reason: "rejected", status: 200, providerCode: "4", attempts: 1, mayHaveBeenSent: false });
    expect(error.message).toBe("Vonage refused the message (status 4: invalid credentials)");
    expect(timing.sleeps).toEqual([]);
  });

  it("retries status 1 (throttled) with backoff, then succeeds", async () => {
    const server = await start([(response) => vonageAnswer(response, "1", { "error-text": "Throughput Rate Exceeded" })]);
    const timing = manualTiming();
    await senderFor(server, { ...timing, retry: { maxAttempts: 3, baseDelayMs: 50, maxDelayMs: 500 } }).sendOtp(message);
    expect(timing.sleeps).toEqual([50]);
    expect(server.requests).toHaveLength(2);
  });

  it("honours Retry-After on an HTTP 429", async () => {
    const server = await start([(response) => response.writeHead(429, { "retry-after": "1" }).end()]);
    const timing = manualTiming();
    await senderFor(server, { ...timing }).sendOtp(message);
    expect(timing.sleeps).toEqual([1000]);
  });

  it("fails a 200 whose body is not the documented messages list, without retrying (the message may have gone)", async () => {
    const server = await start([(response) => response.writeHead(200, { "content-type": "text/html" }).end("<html>proxy</html>")]);
    const error = await failureOf(senderFor(server).sendOtp(message));
    expect(error).toMatchObject({ reason: "http_status", status: 200, attempts: 1, mayHaveBeenSent: true });
    expect(server.requests).toHaveLength(1);
  });

  it("status 5 (internal error) does not say whether the message went out: it counts as sent and is not retried", async () => {
    const internal = (response: Parameters<typeof vonageAnswer>[0]) => vonageAnswer(response, "5", { "error-text": "Internal Error" });
    const server = await start([internal, internal]);
    const timing = manualTiming();
    const error = await failureOf(senderFor(server, { ...timing, retry: { maxAttempts: 3, baseDelayMs: 50, maxDelayMs: 500 } }).sendOtp(message));
    expect(error).toMatchObject({ reason: "rejected", providerCode: "5", attempts: 1, mayHaveBeenSent: true });
    expect(server.requests).toHaveLength(1);
  });

  it("refuses empty credentials or sender at construction", () => {
    expect(() => createVonageSmsSender({ apiKey: "", apiSecret: VONAGE_SECRET, from: "x" })).toThrow(/key or secret/);
    expect(() => createVonageSmsSender({ apiKey: VONAGE_KEY, apiSecret: VONAGE_SECRET, from: " " })).toThrow(/from/);
  });
});
