import { describe, expect, it } from "vitest";
import { checkList, entriesDeciding, entryProblem } from "../src/pages/admin/policy-entries.ts";

describe("the browser policy's entry rules, as the console checks them while the admin types", () => {
  it.each<[string, boolean, string | null]>([
    ["example.com", false, null],
    ["a.b.example.com", false, null],
    ["*.example.com", true, null],
    ["*.example.com", false, 'wildcards are off; use "example.com" or turn wildcards on'],
    ["Example.COM", false, null],
    ["bücher.example", false, null],
    ["192.0.2.1", false, null],
    ["[2001:db8::1]", false, null],
    ["2001:db8::1", false, null],
    ["*", true, `"*" alone is not an entry; the default action decides for every unlisted site`],
    [".example.com", true, 'use "example.com" (exact) or "*.example.com" (domain and subdomains)'],
    ["https://example.com/", true, "enter a host name, not a URL (no scheme, path or port)"],
    ["example.com/path", true, 'enter only the host name, without "/", "\\", "?" or "#"'],
    ["user@example.com", true, '"@" is not allowed: a user name is not part of a host'],
    ["exa mple.com", true, "a host name cannot contain whitespace"],
    ["foo.*.example.com", true, '"*" is only allowed as a whole leading label, as in "*.example.com"'],
    ["example.com:8080", true, "remove the port: entries match every port"],
    ["*.192.0.2.1", true, "a wildcard cannot apply to an IP address"],
    ["010.0.0.1", true, "write an IPv4 address as four decimal numbers; this one means 8.0.0.1"],
    ["1.2.3", true, "write an IPv4 address as four decimal numbers; this one means 1.2.0.3"],
    ["exa<mple.com", true, "not a valid host name or IP address"],
    [`${"a.".repeat(130)}com`, true, "an entry has at most 255 characters"],
  ])("%s (wildcards %s): %s", (entry, wildcards, expected) => {
    expect(entryProblem(entry, wildcards)).toBe(expected);
  });

  it("checks a list in slices, counting entries and listing the first problems with their lines; blank lines are ignored", async () => {
    const text = ["example.com", "", "  https://bad.example/ ", ...Array.from({ length: 12_000 }, (_, index) => `site-${index}.example`)].join("\n");
    let pauses = 0;
    const result = await checkList(
      text,
      true,
      async () => void pauses++,
      () => false,
    );
    expect(result).toEqual({
      entries: 12_002,
      invalid: 1,
      problems: [{ line: 3, entry: "https://bad.example/", rule: "enter a host name, not a URL (no scheme, path or port)" }],
    });
    expect(pauses).toBe(2);
  });

  it("stops a check a newer edit replaced", async () => {
    const text = Array.from({ length: 12_000 }, (_, index) => `site-${index}.example`).join("\n");
    expect(
      await checkList(
        text,
        true,
        async () => undefined,
        () => true,
      ),
    ).toBeNull();
  });

  it("sends a test only the entries that can decide the host: its own, its parents' wildcards, and every entry not in stored form", () => {
    const entries = ["a.example.com", "*.example.com", "*.com", "b.example.com", "other.org", "Example.COM", "192.0.2.1", "*.a.example.com"];
    expect(entriesDeciding(entries, "https://a.example.com/x")).toEqual([
      "a.example.com",
      "*.example.com",
      "*.com",
      "Example.COM",
      "192.0.2.1",
      "*.a.example.com",
    ]);
    expect(entriesDeciding(entries, "not a url")).toEqual([]);
  });
});
