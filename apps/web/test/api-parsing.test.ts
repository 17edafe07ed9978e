import { describe, expect, it } from "vitest";
import { apiErrorFrom } from "../src/api/api-error.ts";
import { safeLinkHref } from "../src/api/browser-api.ts";

describe("safeLinkHref", () => {
  it("links only http(s) URLs", () => {
    expect(safeLinkHref("https://example.com/a")).toBe("https://example.com/a");
    expect(safeLinkHref("http://10.0.0.1/")).toBe("http://10.0.0.1/");
    expect(safeLinkHref("javascript:alert(1)")).toBeNull();
    expect(safeLinkHref("data:text/html,x")).toBeNull();
    expect(safeLinkHref("not a url")).toBeNull();
    expect(safeLinkHref(undefined)).toBeNull();
  });
});

describe("apiErrorFrom", () => {
  it("reads the documented error body, its domain kind included", async () => {
    const body = { error: { code: "permission_denied", message: "not a member", kind: "not_org_member" } };
    const error = await apiErrorFrom(Response.json(body, { status: 403 }));
    expect([error.status, error.code, error.kind, error.message]).toEqual([403, "permission_denied", "not_org_member", "not a member"]);
  });

  it.each([
    ["not JSON", new Response("<html>", { status: 502 })],
    ["no kind: not a domain error", Response.json({ error: { code: "invalid_argument", message: "body is not valid JSON" } }, { status: 400 })],
  ])("tolerates other bodies: %s", async (_, response) => {
    const error = await apiErrorFrom(response);
    expect([error.status, error.kind]).toEqual([response.status, "unknown"]);
  });
});
