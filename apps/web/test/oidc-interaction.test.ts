import { describe, expect, it } from "vitest";
import { createOidcInteractionClient } from "../src/api/oidc-interaction.ts";

const ORIGIN = "https://id.acme.example";

function clientAnswering(status: number, body: unknown) {
  const calls: { url: string; init: RequestInit }[] = [];
  const client = createOidcInteractionClient(async (url, init) => {
    calls.push({ url, init });
    return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
  }, ORIGIN);
  return { client, calls };
}

describe("the OpenID Provider's interaction, from the web client", () => {
  it("reads the app, its org and the scopes; anything else is an expired interaction", async () => {
    const view = { client_name: "Wiki", first_party: false, scopes: ["openid"], org: { id: "org-1", name: "Acme", slug: "acme" } };
    expect(await clientAnswering(200, view).client.details("uid_1")).toEqual({
      clientName: "Wiki",
      firstParty: false,
      scopes: ["openid"],
      org: { id: "org-1", name: "Acme", slug: "acme" },
    });
    expect(await clientAnswering(400, { error: "invalid_request" }).client.details("uid_1")).toBeNull();
    expect(await clientAnswering(200, { ...view, scopes: "openid" }).client.details("uid_1")).toBeNull();
    const { client, calls } = clientAnswering(200, view);
    expect(await client.details("../admin")).toBeNull();
    expect(calls).toEqual([]);
  });

  it("posts the session as a bearer token and follows only a redirect on its own origin", async () => {
    const { client, calls } = clientAnswering(200, { redirect_to: `${ORIGIN}/oidc/auth/uid_1` });
    expect(await client.finish("uid_1", "gh_at_x", { consent: true })).toEqual({ kind: "redirect", to: `${ORIGIN}/oidc/auth/uid_1` });
    expect(calls[0]).toMatchObject({ url: "/oidc/interaction/uid_1", init: { method: "POST", body: '{"consent":true}' } });
    expect(new Headers(calls[0]!.init.headers).get("authorization")).toBe("Bearer gh_at_x");
    expect(await clientAnswering(200, { redirect_to: "https://evil.example/x" }).client.finish("uid_1", "t", {})).toMatchObject({ kind: "failed" });
  });

  it("names what the member must do next", async () => {
    expect(await clientAnswering(409, { error: "consent_required", scopes: ["openid", "email"] }).client.finish("u", "t", {})).toEqual({
      kind: "consent_required",
      scopes: ["openid", "email"],
    });
    for (const error of ["step_up_required", "passkey_required", "login_required"] as const) {
      expect(await clientAnswering(401, { error }).client.finish("u", "t", {})).toEqual({ kind: error });
    }
    expect(await clientAnswering(400, { error: "invalid_request", error_description: "too big" }).client.finish("u", "t", {})).toEqual({
      kind: "failed",
      message: "too big",
    });
  });
});
