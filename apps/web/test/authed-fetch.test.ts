import { describe, expect, it, vi } from "vitest";
import { createAuthedFetch, SessionEndedError } from "../src/api/authed-fetch.ts";
import type { AuthOutcomeView, TokensView } from "@gatehouse/contract";
import { createSessionStore, SESSION_STORAGE_KEY } from "../src/session.ts";
import type { Session } from "../src/session.ts";
import { memoryStorage } from "./memory-storage.ts";

const first: Session = { accessToken: "gh_at_1", refreshToken: "gh_rt_1", expiresAt: "2030-01-01T00:00:00.000Z", userId: "u1", orgId: "o1" };
const second: Session = { ...first, accessToken: "gh_at_2", refreshToken: "gh_rt_2" };
/** What Refresh answers with for `second`. */
const secondTokens: TokensView = { ...second, expiresAt: Date.parse(second.expiresAt) };

interface Call {
  readonly url: string;
  readonly authorization: string | undefined;
  readonly method: string | undefined;
  readonly body: unknown;
}

/** A fetch that answers 200 only for the listed valid access tokens, 401 otherwise. */
function fakeServer(validTokens: string[]) {
  const calls: Call[] = [];
  const fetch = vi.fn(async (url: string, init: RequestInit): Promise<Response> => {
    const headers = init.headers as Record<string, string>;
    const authorization = headers.authorization;
    calls.push({ url, authorization, method: init.method, body: init.body });
    const ok = validTokens.some((token) => authorization === `Bearer ${token}`);
    return ok ? Response.json({ ok: true }) : Response.json({ error: { code: "unauthenticated", message: "invalid session" } }, { status: 401 });
  });
  return { fetch, calls };
}

function setup(options: { valid: string[]; refresh?: (token: string) => Promise<AuthOutcomeView>; session?: Session | null }) {
  const storage = memoryStorage();
  const sessions = createSessionStore(storage);
  if (options.session !== null) sessions.set(options.session ?? first);
  const server = fakeServer(options.valid);
  const refresh = vi.fn(options.refresh ?? (async (): Promise<AuthOutcomeView> => ({ kind: "tokens", tokens: secondTokens })));
  const navigate = vi.fn<(path: string) => void>();
  const authedFetch = createAuthedFetch({ fetch: server.fetch, sessions, refresh, navigate });
  return { storage, sessions, server, refresh, navigate, authedFetch };
}

describe("createAuthedFetch", () => {
  it("sends the access token as a Bearer header and returns the response", async () => {
    const { authedFetch, server, refresh, navigate } = setup({ valid: ["gh_at_1"] });
    const response = await authedFetch("/api/browser/policy?org_id=o1");
    expect(response.status).toBe(200);
    expect(server.calls).toEqual([{ url: "/api/browser/policy?org_id=o1", authorization: "Bearer gh_at_1", method: "GET", body: undefined }]);
    expect(refresh).not.toHaveBeenCalled();
    expect(navigate).not.toHaveBeenCalled();
  });

  it.each([400, 403, 404, 429, 500])("returns a %i untouched (no refresh, no sign-out)", async (status) => {
    const { refresh, navigate, sessions } = setup({ valid: [] });
    const authedFetch = createAuthedFetch({ fetch: async () => new Response("{}", { status }), sessions, refresh, navigate });
    expect((await authedFetch("/x")).status).toBe(status);
    expect(refresh).not.toHaveBeenCalled();
    expect(navigate).not.toHaveBeenCalled();
    expect(sessions.get()).toEqual(first);
  });

  it("on 401 refreshes once, stores the new tokens and retries with them (same method and body)", async () => {
    const { authedFetch, server, refresh, navigate, sessions } = setup({ valid: ["gh_at_2"] });
    const body = JSON.stringify({ url: "https://example.com", org_id: "o1" });
    const response = await authedFetch("/api/browser/check-url", { method: "POST", headers: { "content-type": "application/json" }, body });
    expect(response.status).toBe(200);
    expect(refresh).toHaveBeenCalledExactlyOnceWith("gh_rt_1");
    expect(server.calls.map((c) => [c.authorization, c.method, c.body])).toEqual([
      ["Bearer gh_at_1", "POST", body],
      ["Bearer gh_at_2", "POST", body],
    ]);
    expect(sessions.get()).toEqual(second);
    expect(navigate).not.toHaveBeenCalled();
  });

  it("clears the session and goes to /login when the retry is 401 again", async () => {
    const { authedFetch, server, refresh, navigate, storage } = setup({ valid: [] });
    await expect(authedFetch("/api/browser/policy?org_id=o1")).rejects.toBeInstanceOf(SessionEndedError);
    expect(refresh).toHaveBeenCalledTimes(1);
    expect(server.calls).toHaveLength(2);
    expect(storage.items.has(SESSION_STORAGE_KEY)).toBe(false);
    expect(navigate).toHaveBeenCalledExactlyOnceWith("/login");
  });

  it("clears the session and goes to /login when Refresh throws, without retrying", async () => {
    const { authedFetch, server, navigate, sessions } = setup({
      valid: [],
      refresh: async () => {
        throw new Error("unauthenticated");
      },
    });
    await expect(authedFetch("/api/browser/policy?org_id=o1")).rejects.toBeInstanceOf(SessionEndedError);
    expect(server.calls).toHaveLength(1);
    expect(sessions.get()).toBeNull();
    expect(navigate).toHaveBeenCalledExactlyOnceWith("/login");
  });

  it.each<AuthOutcomeView>([
    { kind: "mfa_required", challenge: { challengeId: "c", phoneMask: "+*******4567", resendAfterSeconds: 30 } },
    { kind: "phone_required", intent: { intentId: "i" } },
  ])("treats a Refresh that answers $kind as the end of the session", async (outcome) => {
    const { authedFetch, server, navigate, sessions } = setup({ valid: ["gh_at_2"], refresh: async () => outcome });
    await expect(authedFetch("/api/browser/policy?org_id=o1")).rejects.toBeInstanceOf(SessionEndedError);
    expect(server.calls).toHaveLength(1);
    expect(sessions.get()).toBeNull();
    expect(navigate).toHaveBeenCalledExactlyOnceWith("/login");
  });

  it("goes to /login without any request when no session is stored", async () => {
    const { authedFetch, server, refresh, navigate } = setup({ valid: ["gh_at_1"], session: null });
    await expect(authedFetch("/api/browser/policy?org_id=o1")).rejects.toBeInstanceOf(SessionEndedError);
    expect(server.calls).toHaveLength(0);
    expect(refresh).not.toHaveBeenCalled();
    expect(navigate).toHaveBeenCalledExactlyOnceWith("/login");
  });

  it("shares one Refresh between requests that fail together (refresh tokens are single use)", async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { authedFetch, refresh, server, navigate } = setup({
      valid: ["gh_at_2"],
      refresh: async () => {
        await gate;
        return { kind: "tokens", tokens: secondTokens };
      },
    });
    const both = Promise.all([authedFetch("/api/browser/policy?org_id=o1"), authedFetch("/api/browser/policy?org_id=o1")]);
    await vi.waitFor(() => expect(refresh).toHaveBeenCalledTimes(1));
    release();
    const responses = await both;
    expect(responses.map((r) => r.status)).toEqual([200, 200]);
    expect(refresh).toHaveBeenCalledTimes(1);
    expect(server.calls.filter((c) => c.authorization === "Bearer gh_at_2")).toHaveLength(2);
    expect(navigate).not.toHaveBeenCalled();
  });

  it("retries with tokens another request already refreshed to, without a second Refresh", async () => {
    const { refresh, sessions } = setup({ valid: ["gh_at_2"] });
    const racing = createAuthedFetch({
      fetch: async (_url, init) => {
        // While this request was in flight, another request's refresh rotated the tokens.
        sessions.set(second);
        return new Response(null, { status: (init.headers as Record<string, string>).authorization === "Bearer gh_at_2" ? 200 : 401 });
      },
      sessions,
      refresh,
      navigate: () => undefined,
    });
    expect((await racing("/x")).status).toBe(200);
    expect(refresh).not.toHaveBeenCalled();
    expect(sessions.get()).toEqual(second);
  });

  it("passes the abort signal through", async () => {
    const { authedFetch, server } = setup({ valid: ["gh_at_1"] });
    const controller = new AbortController();
    await authedFetch("/x", { signal: controller.signal });
    expect(server.fetch.mock.calls[0]?.[1].signal).toBe(controller.signal);
  });
});
