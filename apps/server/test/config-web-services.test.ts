import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.ts";
import { configProblems } from "./support/config-problems.ts";

const BILLING = { name: "Billing", audience: "https://billing.example.com", method: "POST", url: "https://billing.example.com/payouts" };

describe("WEB_SERVICES configuration", () => {
  it("is empty by default", () => {
    expect(loadConfig({}, 8).webServices).toEqual([]);
  });

  it("takes a JSON list of services", () => {
    expect(loadConfig({ WEB_SERVICES: JSON.stringify([BILLING]) }, 8).webServices).toEqual([BILLING]);
  });

  it.each([
    ["not json", "WEB_SERVICES must be a JSON array"],
    [JSON.stringify(BILLING), "WEB_SERVICES must be a JSON array of at most 20 services"],
    [JSON.stringify(Array.from({ length: 21 }, () => BILLING)), "at most 20 services"],
    [JSON.stringify(["https://billing.example.com"]), "WEB_SERVICES[0]: must be an object"],
    [JSON.stringify([{ ...BILLING, name: "" }]), "WEB_SERVICES[0]: name must be 1 to 60 characters"],
    [JSON.stringify([{ ...BILLING, audience: "billing" }]), "WEB_SERVICES[0]: audience must be an absolute https, http or urn URI"],
    [JSON.stringify([BILLING, { ...BILLING, method: "DELETE" }]), "WEB_SERVICES[1]: method must be GET or POST"],
    [JSON.stringify([{ ...BILLING, url: "javascript:alert(1)" }]), "WEB_SERVICES[0]: url must be an absolute https or http URL"],
    [JSON.stringify([{ ...BILLING, url: "https://billing.example.com/#x" }]), "WEB_SERVICES[0]: url must be an absolute https or http URL"],
    [JSON.stringify([{ ...BILLING, secret: "x" }]), "WEB_SERVICES[0]: has unknown field secret"],
  ])("refuses %s", (value, problem) => {
    expect(configProblems({ WEB_SERVICES: value })).toContain(problem);
  });
});
