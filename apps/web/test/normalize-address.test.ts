import { describe, expect, it } from "vitest";
import { normalizeAddress } from "../src/normalize-address.ts";

describe("normalizeAddress: https:// only when the input has no scheme at all", () => {
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
    // No scheme at all: https:// is prepended. A colon followed by digits is a port, not a scheme.
    ["allowed.com:8080/path", "https://allowed.com:8080/path"],
    ["localhost:8080", "https://localhost:8080"],
    ["localhost:3000", "https://localhost:3000"],
    ["example.com:443/x", "https://example.com:443/x"],
    ["example.com:443?q=1", "https://example.com:443?q=1"],
    ["example.com:443#top", "https://example.com:443#top"],
    ["//evil.com", "https:////evil.com"],
    ["1http://x", "https://1http://x"],
    ["10.1.2.3", "https://10.1.2.3"],
    ["10.1.2.3:80", "https://10.1.2.3:80"],
    ["[::1]:8080", "https://[::1]:8080"],
    // A typed scheme is kept, so the server answers unsupported_scheme (never a made-up https URL).
    ["javascript:alert(1)", "javascript:alert(1)"],
    ["JavaScript:alert(1)", "JavaScript:alert(1)"],
    ["javascript://%0aalert(1)", "javascript://%0aalert(1)"],
    ["mailto:someone@example.com", "mailto:someone@example.com"],
    ["data:text/html,hi", "data:text/html,hi"],
    ["file:///etc/passwd", "file:///etc/passwd"],
    ["about:blank", "about:blank"],
    ["http:example.com", "http:example.com"],
    ["tel:+15551234567", "tel:+15551234567"],
    ["localhost:8080x", "localhost:8080x"],
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
