/**
 * The provider's events turned into audit records and metric counts per client (src/oidc/events.ts), on a stand-in
 * emitter: which events count, what each records, and that a failed audit write is reported, not thrown.
 */
import { EventEmitter } from "node:events";
import type { Gatehouse, OidcProviderEvent } from "@gatehouse/core";
import type Provider from "oidc-provider";
import { describe, expect, it } from "vitest";
import { observeProviderEvents, type OidcEventLabel } from "../src/oidc/events.ts";

function observed(recordFails = false) {
  const emitter = new EventEmitter();
  const recorded: OidcProviderEvent[] = [];
  const counted: [string, OidcEventLabel][] = [];
  const unexpected: string[] = [];
  const gatehouse = {
    oidc: {
      recordProviderEvent: async (event: OidcProviderEvent) => {
        if (recordFails) throw new Error("database gone");
        recorded.push(event);
      },
    },
  } as unknown as Gatehouse;
  observeProviderEvents(emitter as unknown as Provider, {
    gatehouse,
    onEvent: (clientId, event) => counted.push([clientId, event]),
    onUnexpected: (_error, where) => unexpected.push(where),
  });
  return { emitter, recorded, counted, unexpected };
}

const client = (clientId: string, firstParty: boolean) => ({ clientId, metadata: () => ({ first_party: firstParty }) });

describe("the provider's events per client", () => {
  it("records and counts authorizations, consents of third-party clients only, token issues and logouts", async () => {
    const { emitter, recorded, counted } = observed();
    const session = { accountId: "user-1" };
    emitter.emit("authorization.success", { oidc: { client: client("app", false), session, params: { scope: "openid email" } } });
    emitter.emit("interaction.ended", {
      oidc: { client: client("app", false), result: { consent: {}, login: { accountId: "user-1" } }, params: { scope: "openid" } },
    });
    emitter.emit("interaction.ended", { oidc: { client: client("own", true), result: { consent: {} }, params: { scope: "openid" } } });
    emitter.emit("interaction.ended", { oidc: { client: client("app", false), result: {}, params: {} } });
    emitter.emit("grant.success", { oidc: { client: client("app", false), account: { accountId: "user-1" }, params: { grant_type: "refresh_token" } } });
    emitter.emit("end_session.success", { oidc: { client: client("app", false), session } });
    emitter.emit("end_session.success", { oidc: { session } });
    emitter.emit("backchannel.success", {}, client("app", false), "user-1", "sid");
    await Promise.resolve();
    expect(recorded).toEqual([
      { kind: "authorized", clientId: "app", userId: "user-1", scopes: ["openid", "email"] },
      { kind: "consented", clientId: "app", userId: "user-1", scopes: ["openid"] },
      { kind: "token_issued", clientId: "app", userId: "user-1", grantType: "refresh_token" },
      { kind: "logged_out", clientId: "app", userId: "user-1", via: "rp_initiated" },
      { kind: "logged_out", clientId: "app", userId: "user-1", via: "back_channel" },
    ]);
    expect(counted).toEqual([
      ["app", "authorized"],
      ["app", "consented"],
      ["app", "token_issued"],
      ["app", "rp_logout"],
      ["app", "backchannel_logout"],
    ]);
  });

  it("a failed audit write is reported as unexpected and never thrown into the provider", async () => {
    const { emitter, counted, unexpected } = observed(true);
    expect(() => emitter.emit("grant.success", { oidc: { client: client("app", false), params: { grant_type: "authorization_code" } } })).not.toThrow();
    await new Promise(setImmediate);
    expect(counted).toEqual([["app", "token_issued"]]);
    expect(unexpected).toEqual(["oidc event token_issued"]);
  });
});
