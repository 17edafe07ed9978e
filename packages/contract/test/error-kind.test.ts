import { create, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { errorDetailFor, errorDetailToJson, errorFactsFromJson, errorFactsOf, ERROR_KINDS, type DomainError, type ErrorFacts } from "../src/error-kind.ts";
import { ErrorDetailSchema } from "../src/gen/gatehouse/v1/errors_pb.ts";

/** A server error as the client receives it: the detail as bytes, as the wire carries it. */
function received(error: DomainError, code = Code.InvalidArgument): ConnectError {
  const wire = new ConnectError("developer text", code);
  wire.details.push({ type: ErrorDetailSchema.typeName, value: toBinary(ErrorDetailSchema, errorDetailFor(error)) });
  return wire;
}

const asJsonBody = (error: DomainError): unknown =>
  JSON.parse(JSON.stringify({ error: { code: "x", message: "developer text", ...errorDetailToJson(errorDetailFor(error)) } }));

const CASES: readonly [string, DomainError, ErrorFacts][] = [
  ["a field at fault", { kind: "invalid_argument", details: { field: "email" } }, { kind: "invalid_argument", field: "email", retryAfterSeconds: null }],
  ["a rate limit", { kind: "rate_limited", details: { retryAfterSeconds: 42 } }, { kind: "rate_limited", field: null, retryAfterSeconds: 42 }],
  ["a kind alone", { kind: "not_org_member", details: {} }, { kind: "not_org_member", field: null, retryAfterSeconds: null }],
  ["a wrong code reads as an unknown challenge", { kind: "invalid_otp", details: {} }, { kind: "invalid_mfa_challenge", field: null, retryAfterSeconds: null }],
];

describe("error kind", () => {
  it.each(CASES)("%s: domain → ErrorDetail → facts, over Connect and as JSON", (_, error, facts) => {
    expect(errorFactsOf(received(error))).toEqual(facts);
    expect(errorFactsFromJson(asJsonBody(error))).toEqual(facts);
  });

  it.each(ERROR_KINDS.filter((kind) => kind !== "invalid_otp"))("%s travels as itself", (kind) => {
    expect(errorFactsOf(received({ kind, details: {} })).kind).toBe(kind);
  });

  it("leaves unset detail fields out of the JSON form", () => {
    expect(errorDetailToJson(errorDetailFor({ kind: "not_found", details: {} }))).toStrictEqual({ kind: "not_found" });
    expect(errorDetailToJson(errorDetailFor({ kind: "rate_limited", details: { retryAfterSeconds: 3 } }))).toStrictEqual({
      kind: "rate_limited",
      retry_after_seconds: 3,
    });
  });

  it.each<[string, unknown]>([
    ["no detail", new ConnectError("fetch failed", Code.Unavailable)],
    ["not a ConnectError at all", new TypeError("Failed to fetch")],
    [
      "a kind this client does not know",
      new ConnectError("x", Code.Internal, undefined, [{ desc: ErrorDetailSchema, value: create(ErrorDetailSchema, { kind: "moon_phase" }) }]),
    ],
  ])("reads as unknown: %s", (_, error) => {
    expect(errorFactsOf(error)).toEqual({ kind: "unknown", field: null, retryAfterSeconds: null });
  });

  it.each<[string, unknown]>([
    ["not JSON-shaped", "<html>"],
    ["no detail", { error: { code: "invalid_argument", message: "body is not valid JSON" } }],
    ["wrong types", { error: { kind: 7, field: false, retry_after_seconds: "9" } }],
  ])("reads a JSON error body leniently: %s", (_, body) => {
    expect(errorFactsFromJson(body)).toEqual({ kind: "unknown", field: null, retryAfterSeconds: null });
  });
});
