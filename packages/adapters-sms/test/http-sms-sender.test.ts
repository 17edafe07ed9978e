import { inspect } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpSmsSender, SmsDeliveryError, type HttpSmsSenderOptions } from "../src/index.ts";
import { closedPortUrl, startFakeProvider, type FakeProvider, type Respond } from "./fake-provider.ts";
import { manualTiming } from "./manual-timing.ts";

const API_KEY = "sk_live_9f8e7d6c5b4a39281706";
const OTP = "482913";
const PHONE = "+15551234567";
const message = { phone: PHONE, otp: OTP, challengeId: "ch_test_1" };

let provider: FakeProvider | undefined;

afterEach(async () => {
  await provider?.close();
  provider = undefined;
});

async function start(respond: Respond): Promise<FakeProvider> {
  provider = await startFakeProvider(respond);
  return provider;
}

function senderFor(baseUrl: string, options: Partial<HttpSmsSenderOptions> = {}) {
  return createHttpSmsSender({ apiKey: API_KEY, baseUrl, ...options });
}

async function failureOf(promise: Promise<unknown>): Promise<SmsDeliveryError> {
  const error = await promise.then(
    () => expect.fail("the send should have failed"),
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(SmsDeliveryError);
  return error as SmsDeliveryError;
}

/** Every way an error reaches a log must be free of the key, the OTP and the phone. */
function expectNoSecrets(error: SmsDeliveryError): void {
  const renderings = [error.message, String(error), error.stack ?? "", inspect(error, { depth: 5 }), JSON.stringify(error)];
  for (const text of renderings) {
    for (const secret of [API_KEY, OTP, PHONE, PHONE.slice(1)]) expect(text).not.toContain(secret);
  }
  expect(error.cause).toBeUndefined();
}

describe("createHttpSmsSender: the request", () => {
  it("POSTs the documented JSON to exactly the base URL with bearer auth", async () => {
    const server = await start((response) => response.writeHead(202).end('{"id":"msg_1"}'));
    await senderFor(`${server.url}/v1/messages?region=eu`, { sender: "Gatehouse" }).sendOtp(message);

    expect(server.requests).toHaveLength(1);
    const request = server.requests[0]!;
    expect(request.method).toBe("POST");
    expect(request.url).toBe("/v1/messages?region=eu");
    expect(request.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.headers.accept).toBe("application/json");
    expect(JSON.parse(request.body)).toEqual({
      to: PHONE,
      from: "Gatehouse",
      body: "Your Gatehouse code is 482913. It expires in 10 minutes.",
    });
  });

  it("leaves `from` out when no sender is configured, or an empty one", async () => {
    const server = await start((response) => response.writeHead(200).end());
    await senderFor(server.url).sendOtp(message);
    await senderFor(server.url, { sender: "" }).sendOtp(message);

    for (const request of server.requests) {
      expect(JSON.parse(request.body)).toEqual({ to: PHONE, body: "Your Gatehouse code is 482913. It expires in 10 minutes." });
      expect(request.body).not.toContain("from");
    }
  });

  it.each([
    [120_000, "2 minutes"],
    [60_000, "1 minute"],
    [90_000, "90 seconds"],
    [2_000, "2 seconds"],
  ])("names the configured challenge lifetime (%i ms → %s), not a fixed 10 minutes", async (challengeTtlMs, lifetime) => {
    const server = await start((response) => response.writeHead(200).end());
    await senderFor(server.url, { challengeTtlMs }).sendOtp(message);
    expect(JSON.parse(server.requests[0]!.body)).toMatchObject({ body: `Your Gatehouse code is 482913. It expires in ${lifetime}.` });
  });

  it("uses the message template when one is given", async () => {
    const server = await start((response) => response.writeHead(200).end());
    await senderFor(server.url, { messageTemplate: (otp) => `${otp} is your code` }).sendOtp(message);
    expect(JSON.parse(server.requests[0]!.body)).toMatchObject({ body: "482913 is your code" });
  });

  it("sends through an injected fetch", async () => {
    const calls: string[] = [];
    const fetch: typeof globalThis.fetch = async (input) => {
      calls.push(String(input));
      return new Response(null, { status: 204 });
    };
    await senderFor("https://sms.example.test/send", { fetch }).sendOtp(message);
    expect(calls).toEqual(["https://sms.example.test/send"]);
  });
});

describe("createHttpSmsSender: outcomes", () => {
  it("resolves on any 2xx", async () => {
    for (const status of [200, 201, 202, 204]) {
      const server = await startFakeProvider((response) => response.writeHead(status).end(status === 204 ? undefined : "{}"));
      try {
        await expect(senderFor(server.url).sendOtp(message)).resolves.toBeUndefined();
      } finally {
        await server.close();
      }
    }
  });

  it("rejects a 500 with the status only, even when the provider echoes the request", async () => {
    const server = await start((response, request) => response.writeHead(500).end(`failed: ${request.body} ${request.headers.authorization}`));
    const error = await failureOf(senderFor(server.url, { retry: { maxAttempts: 1 } }).sendOtp(message));

    expect(error.message).toBe("SMS provider answered 500");
    expect(error.reason).toBe("http_status");
    expect(error.status).toBe(500);
    expectNoSecrets(error);
  });

  it("does not follow redirects: a 3xx fails and the OTP goes nowhere else", async () => {
    const elsewhere = await startFakeProvider((response) => response.writeHead(200).end());
    try {
      const server = await start((response) => response.writeHead(307, { location: `${elsewhere.url}/steal` }).end());
      const error = await failureOf(senderFor(server.url).sendOtp(message));
      expect(error.message).toBe("SMS provider answered 307");
      expect(elsewhere.requests).toHaveLength(0);
    } finally {
      await elsewhere.close();
    }
  });

  it("rejects by timeout when the provider holds its answer, without waiting for it", async () => {
    const server = await start((response) => server.later(5_000, () => response.writeHead(200).end()));
    const started = performance.now();
    const error = await failureOf(senderFor(server.url, { timeoutMs: 200 }).sendOtp(message));
    const elapsed = performance.now() - started;

    expect(error.message).toBe("SMS provider timed out after 200 ms");
    expect(error.reason).toBe("timeout");
    expect(error.status).toBeUndefined();
    expect(elapsed).toBeGreaterThanOrEqual(150);
    expect(elapsed).toBeLessThan(2_000);
    expect(server.requests).toHaveLength(1);
    expectNoSecrets(error);
  });

  it("resolves when a 2xx body stalls: the provider has already accepted the message", async () => {
    const server = await start((response) => {
      response.writeHead(200, { "content-length": "100" });
      response.write("{");
    });
    const started = performance.now();
    await expect(senderFor(server.url, { timeoutMs: 200 }).sendOtp(message)).resolves.toBeUndefined();
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("rejects as unreachable when nothing listens", async () => {
    const error = await failureOf(senderFor(await closedPortUrl()).sendOtp(message));
    expect(error.message).toBe("SMS provider unreachable");
    expect(error.reason).toBe("unreachable");
    expectNoSecrets(error);
  });

  it("rejects as unreachable when the provider drops the connection", async () => {
    const server = await start((response) => response.socket?.destroy());
    const error = await failureOf(senderFor(server.url).sendOtp(message));
    expect(error.message).toBe("SMS provider unreachable");
    expectNoSecrets(error);
  });

  it("drains response bodies so keep-alive connections are reused", async () => {
    let calls = 0;
    const server = await start((response) => {
      calls += 1;
      response.writeHead(calls === 2 ? 503 : 200).end("x".repeat(64 * 1024));
    });
    const sender = senderFor(server.url, { retry: { maxAttempts: 1 } });
    // fetch hands a drained socket back to its pool a moment after the body ends; an undrained
    // one never comes back, so each send would open a new connection.
    const socketReturned = () => new Promise((resolve) => setTimeout(resolve, 10));
    await sender.sendOtp(message);
    await socketReturned();
    await expect(sender.sendOtp(message)).rejects.toThrow("SMS provider answered 503");
    await socketReturned();
    await sender.sendOtp(message);

    expect(server.requests).toHaveLength(3);
    expect(server.connections()).toBe(1);
  });
});

describe("createHttpSmsSender: retries", () => {
  it("retries a 429 (refused before the provider took it) inside the timeout, honouring Retry-After, and keeps the request", async () => {
    const statuses = [429, 429, 202];
    const server = await start((response) => {
      const status = statuses.shift()!;
      response.writeHead(status, status === 429 && statuses.length === 1 ? { "retry-after": "1" } : {}).end();
    });
    const timing = manualTiming();
    await senderFor(server.url, { ...timing, retry: { maxAttempts: 3, baseDelayMs: 40, maxDelayMs: 400 } }).sendOtp(message);
    expect(timing.sleeps).toEqual([40, 1000]);
    expect(server.requests.map((request) => request.body)).toEqual(Array(3).fill(server.requests[0]!.body));
  });

  it.each([500, 502, 503])("never retries a %i: the text may have gone out, and a retry could be a second one", async (status) => {
    const server = await start((response) => response.writeHead(status).end());
    const timing = manualTiming();
    const failure = await failureOf(senderFor(server.url, { ...timing, retry: { maxAttempts: 3, baseDelayMs: 40, maxDelayMs: 400 } }).sendOtp(message));
    expect(failure).toMatchObject({ status, attempts: 1, mayHaveBeenSent: true });
    expect(server.requests).toHaveLength(1);
    expect(timing.sleeps).toEqual([]);
  });

  it("retries a connection refused before the request was written, and sends once the provider is back", async () => {
    const server = await start((response) => response.writeHead(202).end());
    const refusedUrl = await closedPortUrl();
    let calls = 0;
    const flaky: typeof fetch = (input, init) => (++calls === 1 ? fetch(refusedUrl, init) : fetch(input, init));
    const timing = manualTiming();
    await senderFor(server.url, { ...timing, fetch: flaky, retry: { maxAttempts: 3, baseDelayMs: 40, maxDelayMs: 400 } }).sendOtp(message);
    expect({ calls, requests: server.requests.length, sleeps: timing.sleeps }).toEqual({ calls: 2, requests: 1, sleeps: [40] });
  });

  it("a 4xx says the text was not sent", async () => {
    const server = await start((response) => response.writeHead(400).end());
    expect(await failureOf(senderFor(server.url, manualTiming()).sendOtp(message))).toMatchObject({ status: 400, mayHaveBeenSent: false });
  });

  it("a connection refused before the request was written says the text was not sent", async () => {
    const unreachable = await failureOf(senderFor(await closedPortUrl(), manualTiming()).sendOtp(message));
    expect(unreachable).toMatchObject({ reason: "unreachable", mayHaveBeenSent: false });
  });

  it("a provider that takes the request and answers too late: the send may have gone out", async () => {
    const server = await start(() => undefined);
    const timedOut = await failureOf(senderFor(server.url, { timeoutMs: 50 }).sendOtp(message));
    expect(timedOut).toMatchObject({ reason: "timeout", mayHaveBeenSent: true });
    expect(server.requests).toHaveLength(1);
  });
});

describe("createHttpSmsSender: configuration", () => {
  it("refuses an unusable API key without echoing it", () => {
    for (const apiKey of ["", `${API_KEY}\r\nX-Injected: 1`, "key with spaces"]) {
      let thrown: unknown;
      try {
        createHttpSmsSender({ apiKey, baseUrl: "https://sms.example.test/send" });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(TypeError);
      if (apiKey !== "") expect(String(thrown)).not.toContain(apiKey.slice(0, 12));
    }
  });

  it("refuses a base URL that is not absolute http(s), without echoing it", () => {
    for (const baseUrl of ["sms.example.test/send", "ftp://sms.example.test", "https://user:s3cret@"]) {
      expect(() => createHttpSmsSender({ apiKey: API_KEY, baseUrl })).toThrow(/^SMS provider base URL is not/);
    }
  });

  it("refuses a timeout that is not a positive whole number", () => {
    for (const timeoutMs of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => createHttpSmsSender({ apiKey: API_KEY, baseUrl: "https://sms.example.test", timeoutMs })).toThrow(RangeError);
    }
  });
});
