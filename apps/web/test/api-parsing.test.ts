import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import { AuthResponseSchema, LoginResponseSchema, RefreshResponseSchema } from "@gatehouse/transport-connect/gen/gatehouse/v1/auth_pb";
import { apiErrorFrom } from "../src/api/api-error.ts";
import { signInOutcome } from "../src/api/auth-client.ts";
import { parseBrowserPolicy, parseOrgInfo, parseUrlDecision, safeLinkHref } from "../src/api/browser-api.ts";

describe("parseBrowserPolicy", () => {
  it("maps the snake_case route body", () => {
    const policy = parseBrowserPolicy({
      access_control: { allowed_domains: ["example.com"], blocked_domains: ["evil.com"], default_action: "deny", wildcard_supported: true },
      action_restrictions: { allowed_actions: ["navigate", "download", "teleport"], read_only_mode: true },
    });
    expect(policy).toEqual({
      accessControl: { allowedDomains: ["example.com"], blockedDomains: ["evil.com"], defaultAction: "deny", wildcardSupported: true },
      actionRestrictions: { allowedActions: ["navigate", "download"], readOnlyMode: true },
    });
  });

  it("keeps missing sections as null (every action then stays disabled)", () => {
    expect(parseBrowserPolicy({})).toEqual({ accessControl: null, actionRestrictions: null });
    expect(parseBrowserPolicy(null)).toEqual({ accessControl: null, actionRestrictions: null });
  });
});

describe("parseUrlDecision and safeLinkHref", () => {
  it("only a literal true is allowed", () => {
    expect(parseUrlDecision({ allowed: "true", canonical_url: "https://a.com/" }).allowed).toBe(false);
    expect(parseUrlDecision({ allowed: true, canonical_url: "https://a.com/" })).toEqual({
      allowed: true,
      reason: null,
      reasonCode: null,
      canonicalUrl: "https://a.com/",
    });
    expect(parseUrlDecision({ allowed: false, reason: "Your organization blocks evil.com.", reason_code: "blocked" })).toMatchObject({
      reason: "Your organization blocks evil.com.",
      reasonCode: "blocked",
    });
  });

  it("links only http(s) URLs", () => {
    expect(safeLinkHref("https://example.com/a")).toBe("https://example.com/a");
    expect(safeLinkHref("http://10.0.0.1/")).toBe("http://10.0.0.1/");
    expect(safeLinkHref("javascript:alert(1)")).toBeNull();
    expect(safeLinkHref("data:text/html,x")).toBeNull();
    expect(safeLinkHref("not a url")).toBeNull();
    expect(safeLinkHref(null)).toBeNull();
  });
});

describe("apiErrorFrom", () => {
  it("reads the documented error body", async () => {
    const error = await apiErrorFrom(Response.json({ error: { code: "permission_denied", message: "not a member" } }, { status: 403 }));
    expect([error.status, error.code, error.message]).toEqual([403, "permission_denied", "not a member"]);
  });

  it("tolerates other bodies", async () => {
    const error = await apiErrorFrom(new Response("<html>", { status: 502 }));
    expect([error.status, error.code]).toEqual([502, "unknown"]);
  });
});

describe("signInOutcome", () => {
  it("maps tokens to the stored session shape", () => {
    const tokens = create(AuthResponseSchema, {
      accessToken: "gh_at_x",
      refreshToken: "gh_rt_x",
      userId: "u",
      orgId: "o",
      expiresAt: timestampFromDate(new Date("2030-01-02T03:04:05.000Z")),
    });
    expect(signInOutcome(create(LoginResponseSchema, { result: { case: "tokens", value: tokens } }))).toEqual({
      kind: "tokens",
      session: { accessToken: "gh_at_x", refreshToken: "gh_rt_x", expiresAt: "2030-01-02T03:04:05.000Z", userId: "u", orgId: "o" },
    });
  });

  it("maps the MFA steps", () => {
    expect(
      signInOutcome(
        create(RefreshResponseSchema, { result: { case: "mfaRequired", value: { challengeId: "c", phoneMask: "+*******4567", resendAfterSeconds: 30 } } }),
      ),
    ).toEqual({ kind: "mfa-required", challengeId: "c", phoneMask: "+*******4567", resendAfterSeconds: 30 });
    expect(signInOutcome(create(LoginResponseSchema, { result: { case: "phoneRequired", value: { intentId: "i" } } }))).toEqual({
      kind: "phone-required",
      intentId: "i",
    });
  });

  it("throws on an empty oneof", () => {
    expect(() => signInOutcome(create(LoginResponseSchema))).toThrow();
  });
});

describe("parseOrgInfo", () => {
  it("reads the org route's name and slug; anything else becomes empty", () => {
    expect(parseOrgInfo({ org_id: "o", name: "Acme", slug: "acme" })).toEqual({ name: "Acme", slug: "acme" });
    expect(parseOrgInfo({ name: 42 })).toEqual({ name: "", slug: "" });
    expect(parseOrgInfo(null)).toEqual({ name: "", slug: "" });
  });
});
