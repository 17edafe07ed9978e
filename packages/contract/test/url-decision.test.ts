import { describe, expect, it } from "vitest";
import { CheckUrlAccessResponseSchema } from "../src/gen/gatehouse/v1/browser_pb.ts";
import {
  urlDecisionFromJson,
  urlDecisionFromWire,
  urlDecisionToJson,
  urlDecisionToWire,
  type UrlDecisionJson,
  type UrlDecisionView,
} from "../src/url-decision.ts";
import { overTheWire } from "./support/wire.ts";

/** Each decision the core makes, and its JSON form as api.md spells it. */
const DECISIONS: readonly [string, UrlDecisionView, UrlDecisionJson][] = [
  ["allowed", { allowed: true, canonicalUrl: "https://docs.example.com/a?b=1" }, { allowed: true, canonical_url: "https://docs.example.com/a?b=1" }],
  [
    "blocked",
    { allowed: false, reasonCode: "blocked", reason: "Your organization blocks evil.example.com.", canonicalUrl: "https://evil.example.com/x" },
    { allowed: false, reason: "Your organization blocks evil.example.com.", reason_code: "blocked", canonical_url: "https://evil.example.com/x" },
  ],
  [
    "unparsable: no canonical URL",
    { allowed: false, reasonCode: "invalid_url", reason: "This isn't a valid web address." },
    { allowed: false, reason: "This isn't a valid web address.", reason_code: "invalid_url" },
  ],
  [
    "not allowed",
    { allowed: false, reasonCode: "not_allowed", reason: "Your organization only allows listed sites.", canonicalUrl: "http://10.0.0.1/" },
    { allowed: false, reason: "Your organization only allows listed sites.", reason_code: "not_allowed", canonical_url: "http://10.0.0.1/" },
  ],
];

describe("URL decision", () => {
  it.each(DECISIONS)("%s: domain → wire → view is the same decision", (_, decision) => {
    expect(urlDecisionFromWire(overTheWire(CheckUrlAccessResponseSchema, urlDecisionToWire(decision)))).toStrictEqual(decision);
  });

  it.each(DECISIONS)("%s: the JSON form leaves unset fields out and reads back as the same decision", (_, decision, json) => {
    expect(urlDecisionToJson(decision)).toStrictEqual(json);
    expect(urlDecisionFromJson(JSON.parse(JSON.stringify(json)))).toStrictEqual(decision);
  });

  it("names its JSON keys as the proto names its fields", () => {
    const fields = CheckUrlAccessResponseSchema.fields.map((field) => field.name);
    for (const [, decision] of DECISIONS) expect(fields).toEqual(expect.arrayContaining(Object.keys(urlDecisionToJson(decision))));
  });

  it.each<[string, unknown, UrlDecisionView]>([
    ["only a literal true allows", { allowed: "true", canonical_url: "https://a.test/" }, { allowed: false, canonicalUrl: "https://a.test/" }],
    ["null", null, { allowed: false }],
    ["wrong-typed fields read as unset", { allowed: false, reason: 3, reason_code: ["blocked"], canonical_url: {} }, { allowed: false }],
    [
      "a reason code this client does not know is unset; the reason stays",
      { allowed: false, reason: "No.", reason_code: "too_late" },
      { allowed: false, reason: "No." },
    ],
  ])("reads JSON leniently: %s", (_, json, decision) => {
    expect(urlDecisionFromJson(json)).toStrictEqual(decision);
  });
});
