import { describe, expect, it } from "vitest";
import { refusedScheme } from "../src/schemes.ts";

describe("the schemes the worker sends to the check page", () => {
  it("refuses what check-url refuses and the network rules cannot see", () => {
    for (const url of [
      "data:text/html,<h1>x</h1>",
      "file:///etc/passwd",
      "blob:https://allowed.com/1b2c",
      "filesystem:https://a.com/temporary/x",
      "view-source:https://evil.com/",
      "ftp://evil.com/",
      "javascript:alert(1)",
      "mailto:a@b.c",
      "not a url",
    ]) {
      expect(refusedScheme(url), url).toBe(true);
    }
  });

  it("leaves http(s) to the network rules and the browser's own pages alone", () => {
    for (const url of [
      "https://allowed.com/",
      "http://127.0.0.1:8080/",
      "about:blank",
      "chrome://newtab/",
      "chrome-extension://abc/check.html",
      "devtools://devtools/x",
    ]) {
      expect(refusedScheme(url), url).toBe(false);
    }
  });
});
