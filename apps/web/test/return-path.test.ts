import { describe, expect, it } from "vitest";
import { loginPathReturningTo, safeReturnPath } from "../src/return-path.ts";

describe("safeReturnPath: only same-site relative paths (no open redirect)", () => {
  it.each([
    ["/browser", "/browser"],
    ["/browser?x=1#top", "/browser?x=1#top"],
    ["/register", "/register"],
    ["/a/../browser", "/browser"],
    [null, "/browser"],
    ["", "/browser"],
    ["browser", "/browser"],
    ["//evil.example/x", "/browser"],
    ["/\\evil.example", "/browser"],
    ["/\t/evil.example", "/browser"],
    ["https://evil.example/", "/browser"],
    ["javascript:alert(1)", "/browser"],
    ["/%2F%2Fevil.example", "/%2F%2Fevil.example"],
  ])("%j → %j", (next, expected) => {
    expect(safeReturnPath(next)).toBe(expected);
  });

  it("builds the sign-in link that returns to a page", () => {
    expect(loginPathReturningTo("/browser")).toBe("/login?next=%2Fbrowser");
  });
});
