import { describe, expect, it } from "vitest";
import { bearerParams, createStepUpFetch, stepUpChallengeOf, type StepUpChallenge } from "../src/api/step-up-fetch.ts";

const CHALLENGE =
  'Bearer error="insufficient_user_authentication", error_description="a more recent authentication is required", acr_values="urn:gatehouse:aal2", max_age=300';

describe("the RFC 9470 challenge in WWW-Authenticate", () => {
  it("reads acr_values and max_age from @gatehouse/verify's challenge", () => {
    expect(stepUpChallengeOf(CHALLENGE)).toEqual({ acrValues: ["urn:gatehouse:aal2"], maxAgeSeconds: 300 });
  });

  it.each([
    ['Bearer error="insufficient_user_authentication"', { acrValues: [], maxAgeSeconds: null }],
    ['bearer error=insufficient_user_authentication, acr_values="a b"', { acrValues: ["a", "b"], maxAgeSeconds: null }],
    [`Basic realm="x", ${CHALLENGE}`, { acrValues: ["urn:gatehouse:aal2"], maxAgeSeconds: 300 }],
    ['Bearer error="insufficient_user_authentication", max_age="60", DPoP algs="ES256"', { acrValues: [], maxAgeSeconds: 60 }],
    ['Bearer error="insufficient_user_authentication", max_age=-5', { acrValues: [], maxAgeSeconds: null }],
  ])("%s", (header, expected) => {
    expect(stepUpChallengeOf(header)).toEqual(expected);
  });

  it.each([
    null,
    "",
    "Bearer",
    'Bearer error="invalid_token"',
    'Basic realm="insufficient_user_authentication"',
    'Bearer error="insufficient_user_authentication" junk',
  ])("is not a step-up challenge: %j", (header) => {
    expect(stepUpChallengeOf(header)).toBeNull();
  });

  it("unescapes quoted strings and keeps a parameter's first value", () => {
    expect(bearerParams('Bearer realm="a \\"b\\"", realm="c"')).toEqual(new Map([["realm", 'a "b"']]));
  });
});

describe("createStepUpFetch", () => {
  function fakes(answers: Response[]) {
    const calls: { url: string; authorization: string | null }[] = [];
    const stepUps: StepUpChallenge[] = [];
    let issued = 0;
    const call = createStepUpFetch({
      issueAccessJwt: async (audience) => `jwt-${audience}-${++issued}`,
      stepUp: async (challenge) => {
        stepUps.push(challenge);
      },
      fetch: async (input, init) => {
        calls.push({ url: String(input), authorization: new Headers(init?.headers).get("authorization") });
        return answers.shift()!;
      },
    });
    return { call, calls, stepUps };
  }
  const challenged = () => new Response("{}", { status: 401, headers: { "www-authenticate": CHALLENGE } });

  it("sends a fresh JWT for the audience, and answers what the service answered", async () => {
    const { call, calls, stepUps } = fakes([new Response("ok")]);
    expect(await (await call("https://api.example", "https://api.example/invoices")).text()).toBe("ok");
    expect(calls).toEqual([{ url: "https://api.example/invoices", authorization: "Bearer jwt-https://api.example-1" }]);
    expect(stepUps).toEqual([]);
  });

  it("steps up on the challenge, then sends once more with a JWT issued after it", async () => {
    const { call, calls, stepUps } = fakes([challenged(), new Response("paid")]);
    const response = await call("https://api.example", "https://api.example/payouts", { method: "POST", headers: { "x-request": "1" } });
    expect(await response.text()).toBe("paid");
    expect(stepUps).toEqual([{ acrValues: ["urn:gatehouse:aal2"], maxAgeSeconds: 300 }]);
    expect(calls.map((c) => c.authorization)).toEqual(["Bearer jwt-https://api.example-1", "Bearer jwt-https://api.example-2"]);
  });

  it("retries only once: a second challenge is the answer", async () => {
    const { call, calls, stepUps } = fakes([challenged(), challenged()]);
    expect((await call("https://api.example", "https://api.example/payouts")).status).toBe(401);
    expect([calls.length, stepUps.length]).toEqual([2, 1]);
  });

  it("does not step up for another 401, and does not send again when the user gives up", async () => {
    const { call, stepUps } = fakes([new Response("", { status: 401, headers: { "www-authenticate": 'Bearer error="invalid_token"' } })]);
    expect((await call("https://api.example", "https://api.example/")).status).toBe(401);
    expect(stepUps).toEqual([]);
    const refused = createStepUpFetch({
      issueAccessJwt: async () => "jwt",
      stepUp: async () => {
        throw new Error("cancelled");
      },
      fetch: async () => challenged(),
    });
    await expect(refused("https://api.example", "https://api.example/payouts")).rejects.toThrow("cancelled");
  });
});
