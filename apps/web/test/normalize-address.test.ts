import { describe, expect, it } from "vitest";
import { normalizeAddress } from "../src/normalize-address.ts";

describe("normalizeAddress (url-policy.md §1 client normalisation)", () => {
  it.each([
    // [typed, sent to check-url]
    ["example.com", "https://example.com"],
    ["  example.com/path?q=1  ", "https://example.com/path?q=1"],
    ["\texample.com\n", "https://example.com"],
    ["Example.COM", "https://Example.COM"],
    ["https://example.com", "https://example.com"],
    ["http://example.com", "http://example.com"],
    ["HTTPS://EXAMPLE.COM", "HTTPS://EXAMPLE.COM"],
    ["ftp://files.example.com", "ftp://files.example.com"],
    ["git+ssh://host/repo", "git+ssh://host/repo"],
    ["a.b-c+d://x", "a.b-c+d://x"],
    // No `scheme://`: host:port and scheme-like prefixes get https:// (then the server decides).
    ["allowed.com:8080/path", "https://allowed.com:8080/path"],
    ["localhost:3000", "https://localhost:3000"],
    ["javascript:alert(1)", "https://javascript:alert(1)"],
    ["mailto:someone@example.com", "https://mailto:someone@example.com"],
    ["data:text/html,hi", "https://data:text/html,hi"],
    ["//evil.com", "https:////evil.com"],
    ["1http://x", "https://1http://x"],
    ["10.1.2.3", "https://10.1.2.3"],
    ["[::1]:8080", "https://[::1]:8080"],
  ])("%j → %j", (typed, expected) => {
    expect(normalizeAddress(typed)).toBe(expected);
  });

  it("returns an empty string for blank input so the page can ask for an address", () => {
    expect(normalizeAddress("")).toBe("");
    expect(normalizeAddress("   \n")).toBe("");
  });

  it("trims with String.prototype.trim, which also removes NBSP and ideographic spaces", () => {
    expect(normalizeAddress("\u00a0example.com\u3000")).toBe("https://example.com");
  });

  it("keeps inner spaces for the server to reject", () => {
    expect(normalizeAddress("exa mple.com")).toBe("https://exa mple.com");
  });
});
