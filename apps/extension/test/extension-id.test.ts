import { describe, expect, it } from "vitest";
import { GATEHOUSE_EXTENSION_ID } from "@gatehouse/core";
import { EXTENSION_ID } from "../extension-id.ts";

describe("the extension's id", () => {
  // The Chromium test checks EXTENSION_ID against the id Chrome gives the loaded extension.
  it("derived from the manifest's pinned key, is the one the server's Chrome policy names", () => {
    expect(EXTENSION_ID).toBe(GATEHOUSE_EXTENSION_ID);
  });
});
