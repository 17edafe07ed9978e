import { describe, expect, it } from "vitest";
import { readConnectedServices } from "../src/api/connected-services.ts";

const BILLING = { name: "Billing", audience: "https://billing.example.com", method: "POST", url: "https://billing.example.com/payouts" };

/** A document holding the server's meta tag with `content` (null: no tag). */
function page(content: string | null): Pick<Document, "querySelector"> {
  return {
    querySelector: ((selector: string) =>
      selector === 'meta[name="gatehouse-services"]' && content !== null
        ? { getAttribute: (name: string) => (name === "content" ? content : null) }
        : null) as Document["querySelector"],
  };
}

describe("the connected services the server lists in index.html", () => {
  it("reads them", () => {
    expect(readConnectedServices(page(JSON.stringify([BILLING])))).toEqual([BILLING]);
  });

  it("reads none without the tag or from a malformed one", () => {
    expect(readConnectedServices(page(null))).toEqual([]);
    expect(readConnectedServices(page("[{"))).toEqual([]);
    expect(readConnectedServices(page(JSON.stringify(BILLING)))).toEqual([]);
  });

  it("leaves out a malformed entry and keeps the others", () => {
    const entries = [BILLING, { ...BILLING, method: "DELETE" }, { ...BILLING, url: "not a url" }, { ...BILLING, name: "" }, null];
    expect(readConnectedServices(page(JSON.stringify(entries)))).toEqual([BILLING]);
  });
});
