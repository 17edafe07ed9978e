import { Code, ConnectError, createClient, createRouterTransport, type HandlerContext } from "@connectrpc/connect";
import type { AuthOutcomeView, TokensView } from "@gatehouse/contract";
import { AuthService } from "@gatehouse/contract/gen/gatehouse/v1/auth_pb";
import { BrowserService } from "@gatehouse/contract/gen/gatehouse/v1/browser_pb";
import { describe, expect, it, vi } from "vitest";
import { createBrowserApi } from "../src/api/browser-api.ts";
import { isSessionEnded, sessionInterceptor } from "../src/api/session-interceptor.ts";
import { createSessionStore, SESSION_STORAGE_KEY } from "../src/session.ts";
import type { Session } from "../src/session.ts";
import { memoryStorage } from "./memory-storage.ts";

const first: Session = { accessToken: "gh_at_1", refreshToken: "gh_rt_1", expiresAt: "2030-01-01T00:00:00.000Z", userId: "u1", orgId: "o1" };
const second: Session = { ...first, accessToken: "gh_at_2", refreshToken: "gh_rt_2" };
/** What Refresh answers with for `second`. */
const secondTokens: TokensView = { ...second, expiresAt: Date.parse(second.expiresAt), amr: ["pwd", "sms"], aal: 2 };

/** The AuthService methods this fake answers without a token. */
const PUBLIC: ReadonlySet<string> = new Set(["Register", "VerifyEmail", "AcceptInvitation", "RequestPasswordReset", "ResetPassword"]);

interface Call {
  readonly method: string;
  readonly authorization: string | null;
  readonly body: unknown;
}

/**
 * BrowserService and AuthService.Register/Logout in memory, over connect's router transport with the
 * interceptor under test: the browser methods answer only the listed access tokens, Unauthenticated otherwise.
 */
function setup(options: { valid: string[]; refresh?: (token: string) => Promise<AuthOutcomeView>; session?: Session | null; onCall?: () => void }) {
  const storage = memoryStorage();
  const sessions = createSessionStore(storage);
  if (options.session !== null) sessions.set(options.session ?? first);
  const calls: Call[] = [];
  const record = (method: string, body: unknown, context: HandlerContext): void => {
    const authorization = context.requestHeader.get("authorization");
    calls.push({ method, authorization, body });
    options.onCall?.();
    if (PUBLIC.has(method)) return;
    if (!options.valid.some((token) => context.requestHeader.get("authorization") === `Bearer ${token}`)) {
      throw new ConnectError("invalid session", Code.Unauthenticated);
    }
  };
  const refresh = vi.fn(options.refresh ?? (async (): Promise<AuthOutcomeView> => ({ kind: "tokens", tokens: secondTokens })));
  const sessionEnded = vi.fn<() => void>();
  const transport = createRouterTransport(
    (router) => {
      router.service(BrowserService, {
        getBrowserPolicy: (request, context) => {
          record("GetBrowserPolicy", { orgId: request.orgId }, context);
          return { actionRestrictions: { allowedActions: ["navigate"], readOnlyMode: false } };
        },
        getOrg: (request, context) => {
          record("GetOrg", { orgId: request.orgId }, context);
          return { orgId: request.orgId, name: "Acme", slug: "acme" };
        },
        checkUrlAccess: (request, context) => {
          record("CheckUrlAccess", { orgId: request.orgId, url: request.url }, context);
          return { allowed: true, canonicalUrl: request.url };
        },
      });
      router.service(AuthService, {
        register: (request, context) => {
          record("Register", { email: request.email }, context);
          return { userId: "u2" };
        },
        verifyEmail: (request, context) => {
          record("VerifyEmail", { token: request.token }, context);
          return {};
        },
        acceptInvitation: (request, context) => {
          record("AcceptInvitation", { token: request.token }, context);
          return { orgId: "o1" };
        },
        requestPasswordReset: (request, context) => {
          record("RequestPasswordReset", { email: request.email }, context);
          return {};
        },
        resetPassword: (request, context) => {
          record("ResetPassword", { token: request.token }, context);
          return {};
        },
        logout: (_request, context) => {
          record("Logout", {}, context);
          return {};
        },
      });
    },
    { transport: { interceptors: [sessionInterceptor({ sessions, refresh, sessionEnded })] } },
  );
  return { storage, sessions, calls, refresh, sessionEnded, browser: createBrowserApi(transport), auth: createClient(AuthService, transport) };
}

describe("sessionInterceptor", () => {
  it("sends the access token as a Bearer header on BrowserService and Logout", async () => {
    const { browser, auth, calls, refresh, sessionEnded } = setup({ valid: ["gh_at_1"] });
    await expect(browser.getOrg("o1")).resolves.toEqual({ orgId: "o1", name: "Acme", slug: "acme", requireBrowserExtension: false });
    await auth.logout({});
    expect(calls).toEqual([
      { method: "GetOrg", authorization: "Bearer gh_at_1", body: { orgId: "o1" } },
      { method: "Logout", authorization: "Bearer gh_at_1", body: {} },
    ]);
    expect(refresh).not.toHaveBeenCalled();
    expect(sessionEnded).not.toHaveBeenCalled();
  });

  it("sends no token on the public AuthService methods, signed in or not", async () => {
    const { auth, calls } = setup({ valid: ["gh_at_1"] });
    await auth.register({ email: "a@example.com", password: "correct horse battery" });
    expect(calls).toEqual([{ method: "Register", authorization: null, body: { email: "a@example.com" } }]);
  });

  it("sends no token on the emailed links' methods, and signed out they end no session", async () => {
    const { auth, calls, refresh, sessionEnded } = setup({ valid: ["gh_at_1"], session: null });
    await auth.verifyEmail({ token: "t1", newPassword: "correct horse battery" });
    await auth.acceptInvitation({ token: "t2", password: "" });
    await auth.requestPasswordReset({ email: "a@example.com" });
    await auth.resetPassword({ token: "t3", newPassword: "correct horse battery" });
    expect(calls).toEqual([
      { method: "VerifyEmail", authorization: null, body: { token: "t1" } },
      { method: "AcceptInvitation", authorization: null, body: { token: "t2" } },
      { method: "RequestPasswordReset", authorization: null, body: { email: "a@example.com" } },
      { method: "ResetPassword", authorization: null, body: { token: "t3" } },
    ]);
    expect(refresh).not.toHaveBeenCalled();
    expect(sessionEnded).not.toHaveBeenCalled();
  });

  it.each([Code.PermissionDenied, Code.InvalidArgument, Code.NotFound, Code.ResourceExhausted, Code.Internal])(
    "passes code %i through untouched (no refresh, no sign-out)",
    async (code) => {
      const { browser, refresh, sessionEnded, sessions } = setup({
        valid: ["gh_at_1"],
        onCall: () => {
          throw new ConnectError("refused", code);
        },
      });
      const error = await browser.getPolicy("o1").catch((e: unknown) => e);
      expect(ConnectError.from(error).code).toBe(code);
      expect(isSessionEnded(error)).toBe(false);
      expect(refresh).not.toHaveBeenCalled();
      expect(sessionEnded).not.toHaveBeenCalled();
      expect(sessions.get()).toEqual(first);
    },
  );

  it("on Unauthenticated refreshes once, stores the new tokens and retries the same request with them", async () => {
    const { browser, calls, refresh, sessionEnded, sessions } = setup({ valid: ["gh_at_2"] });
    await expect(browser.checkUrl("o1", "https://example.com/")).resolves.toEqual({ allowed: true, canonicalUrl: "https://example.com/" });
    expect(refresh).toHaveBeenCalledExactlyOnceWith("gh_rt_1");
    const body = { orgId: "o1", url: "https://example.com/" };
    expect(calls).toEqual([
      { method: "CheckUrlAccess", authorization: "Bearer gh_at_1", body },
      { method: "CheckUrlAccess", authorization: "Bearer gh_at_2", body },
    ]);
    expect(sessions.get()).toEqual(second);
    expect(sessionEnded).not.toHaveBeenCalled();
  });

  it("clears the session and ends it when the retry is Unauthenticated again", async () => {
    const { browser, calls, refresh, sessionEnded, storage } = setup({ valid: [] });
    expect(isSessionEnded(await browser.getPolicy("o1").catch((e: unknown) => e))).toBe(true);
    expect(refresh).toHaveBeenCalledTimes(1);
    expect(calls).toHaveLength(2);
    expect(storage.items.has(SESSION_STORAGE_KEY)).toBe(false);
    expect(sessionEnded).toHaveBeenCalledOnce();
  });

  it("ends the session when Refresh throws, without retrying", async () => {
    const { browser, calls, sessionEnded, sessions } = setup({
      valid: [],
      refresh: async () => {
        throw new ConnectError("invalid refresh token", Code.Unauthenticated);
      },
    });
    expect(isSessionEnded(await browser.getPolicy("o1").catch((e: unknown) => e))).toBe(true);
    expect(calls).toHaveLength(1);
    expect(sessions.get()).toBeNull();
    expect(sessionEnded).toHaveBeenCalledOnce();
  });

  it.each<AuthOutcomeView>([
    {
      kind: "mfa_required",
      challenge: { challengeId: "c", phoneMask: "+*******4567", resendAfterSeconds: 30, factors: [{ kind: "sms", label: "+*******4567" }] },
    },
    { kind: "phone_required", intent: { intentId: "i" } },
  ])("treats a Refresh that answers $kind as the end of the session", async (outcome) => {
    const { browser, calls, sessionEnded, sessions } = setup({ valid: ["gh_at_2"], refresh: async () => outcome });
    expect(isSessionEnded(await browser.getPolicy("o1").catch((e: unknown) => e))).toBe(true);
    expect(calls).toHaveLength(1);
    expect(sessions.get()).toBeNull();
    expect(sessionEnded).toHaveBeenCalledOnce();
  });

  it("ends the session without any request when none is stored", async () => {
    const { browser, calls, refresh, sessionEnded } = setup({ valid: ["gh_at_1"], session: null });
    expect(isSessionEnded(await browser.getPolicy("o1").catch((e: unknown) => e))).toBe(true);
    expect(calls).toHaveLength(0);
    expect(refresh).not.toHaveBeenCalled();
    expect(sessionEnded).toHaveBeenCalledOnce();
  });

  it("shares one Refresh between calls that fail together (refresh tokens are single use)", async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { browser, refresh, calls, sessionEnded } = setup({
      valid: ["gh_at_2"],
      refresh: async () => {
        await gate;
        return { kind: "tokens", tokens: secondTokens };
      },
    });
    const both = Promise.all([browser.getPolicy("o1"), browser.getOrg("o1")]);
    await vi.waitFor(() => expect(refresh).toHaveBeenCalledTimes(1));
    release();
    await both;
    expect(refresh).toHaveBeenCalledTimes(1);
    expect(calls.filter((c) => c.authorization === "Bearer gh_at_2")).toHaveLength(2);
    expect(sessionEnded).not.toHaveBeenCalled();
  });

  it("retries with tokens another call already refreshed to, without a second Refresh", async () => {
    let sessionsRef: ReturnType<typeof createSessionStore> | null = null;
    const { browser, refresh, sessions } = setup({
      valid: ["gh_at_2"],
      // While this call was in flight, another call's refresh rotated the tokens.
      onCall: () => sessionsRef?.set(second),
    });
    sessionsRef = sessions;
    await browser.getOrg("o1");
    expect(refresh).not.toHaveBeenCalled();
    expect(sessions.get()).toEqual(second);
  });

  it("passes the abort signal through: an aborted call is Canceled and ends nothing", async () => {
    const { browser, sessionEnded, sessions } = setup({ valid: ["gh_at_1"] });
    const controller = new AbortController();
    controller.abort();
    const error = await browser.getOrg("o1", controller.signal).catch((e: unknown) => e);
    expect(ConnectError.from(error).code).toBe(Code.Canceled);
    expect(sessionEnded).not.toHaveBeenCalled();
    expect(sessions.get()).toEqual(first);
  });
});
