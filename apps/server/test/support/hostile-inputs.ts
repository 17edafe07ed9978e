/**
 * fast-check arbitraries for what an attacker sends: well-typed protobuf messages full of hostile
 * strings (built from the descriptors, so every field of every RPC is covered), the same as JSON
 * with fields of the wrong type, and garbage bytes.
 */
import { ScalarType, type DescField, type DescMessage } from "@bufbuild/protobuf";
import fc from "fast-check";

/** Strings that broke or could break something: NUL, control characters, lone surrogates, huge, injections. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ unit: fc.integer({ min: 0, max: 0x1f }).map((code) => String.fromCharCode(code)), maxLength: 20 }),
  fc.constantFrom(
    "",
    "\0",
    "ada@example.com\0",
    "\0@example.com",
    "a\u0000b",
    "\ud800",
    "\udfff@example.com",
    "\u202e\u200b",
    "💥",
    "+1555\u00001234567",
    "+15551234567",
    "ada@example.com",
    "gh_at_\0",
    "Bearer ",
    "../../etc/passwd",
    "' OR 1=1 --",
    "%00%ff",
    "javascript:alert(1)",
    "http://user:pass@[::1]:99999/\0",
    "https://xn--/",
  ),
  fc.integer({ min: 1_000, max: 300_000 }).map((length) => "\u00e9".repeat(length)),
);

/** A JSON value of any type: the wrong one for most fields. */
export const wrongType: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 1.5, 1e308, Number.MAX_SAFE_INTEGER, "NaN", [], {}, [null], { "": "" }),
  fc.array(hostileString, { maxLength: 3 }),
  fc.dictionary(hostileString, hostileString, { maxKeys: 3 }),
);

const MAX_DEPTH = 3;

/** A `create()` init for `desc`: every field either unset or a well-typed, hostile value. */
export function messageInit(desc: DescMessage, strings: fc.Arbitrary<string>, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const parts: Record<string, fc.Arbitrary<unknown>> = {};
  for (const field of desc.fields) {
    if (field.oneof !== undefined) continue;
    parts[field.localName] = fieldValue(field, strings, depth);
  }
  for (const oneof of desc.oneofs) {
    parts[oneof.localName] = fc.oneof(
      fc.constant(undefined),
      ...oneof.fields.map((field) => fieldValue(field, strings, depth).map((value) => ({ case: field.localName, value }))),
    );
  }
  return fc.record(parts, { requiredKeys: [] }).map((init) => Object.fromEntries(Object.entries(init).filter(([, value]) => value !== undefined)));
}

function fieldValue(field: DescField, strings: fc.Arbitrary<string>, depth: number): fc.Arbitrary<unknown> {
  switch (field.fieldKind) {
    case "scalar":
      return scalar(field.scalar, strings);
    case "enum":
      return fc.integer({ min: -3, max: 10 });
    case "message":
      return depth >= MAX_DEPTH ? fc.constant(undefined) : messageInit(field.message, strings, depth + 1);
    case "list":
      if (field.listKind === "message")
        return depth >= MAX_DEPTH ? fc.constant([]) : fc.array(messageInit(field.message, strings, depth + 1), { maxLength: 3 });
      if (field.listKind === "enum") return fc.array(fc.integer({ min: -3, max: 10 }), { maxLength: 5 });
      return fc.array(scalar(field.scalar, strings), { maxLength: 5 });
    case "map":
      return fc.constant(undefined);
  }
}

function scalar(type: ScalarType, strings: fc.Arbitrary<string>): fc.Arbitrary<unknown> {
  switch (type) {
    case ScalarType.STRING:
      return strings;
    case ScalarType.BOOL:
      return fc.boolean();
    case ScalarType.BYTES:
      return fc.uint8Array({ maxLength: 64 });
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return fc.double();
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return fc.integer({ min: 0, max: 2 ** 32 - 1 });
    default:
      return fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
  }
}

/** A JSON object for `desc`: its own field names (JSON and proto spellings) with values of any type, plus stray keys. */
export function hostileJsonObject(desc: DescMessage, strings: fc.Arbitrary<string>): fc.Arbitrary<Record<string, unknown>> {
  const names = desc.fields.flatMap((field) => [field.jsonName, field.name]);
  const key = names.length === 0 ? hostileString : fc.oneof(fc.constantFrom(...names), hostileString);
  return fc.dictionary(key, fc.oneof(strings, wrongType), { maxKeys: 6 });
}

export const garbageBytes: fc.Arbitrary<Uint8Array> = fc.oneof(
  fc.uint8Array({ maxLength: 64 }),
  fc.constantFrom(
    Uint8Array.of(0x0a, 0x05, 0x61),
    Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01),
    Uint8Array.of(0x0a, 0x02, 0xc3, 0x28),
  ),
);
