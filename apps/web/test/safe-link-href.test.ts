import { describe, expect, it } from "vitest";
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
