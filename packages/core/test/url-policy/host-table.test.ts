import { describe, expect, it } from "vitest";
import { fnv1aMix, HostTable, MAX_KEY_LENGTH, MAX_KEYS_AT_ONCE } from "../../src/url-policy/host-table.ts";
import type { HostHash } from "../../src/url-policy/host-table.ts";

/** Hashes that collide on purpose: a hit can then only come from comparing the keys themselves. */
const WEAK_HASHES: readonly [string, HostHash][] = [
  ["every key hashes to 0", () => 0],
  ["keys of one length collide", (text, from) => text.length - from],
  ["keys differing past their first character collide", (text, from) => text.charCodeAt(from)],
  // The top byte is the tag: every key starts its probe at slot 0, and the walk must pass slots whose tag differs.
  ["keys share a first slot, their tags differ", (text, from) => text.charCodeAt(from) << 24],
];

function tableOf(entries: readonly [string, number][], hash?: HostHash): HostTable {
  const table = new HostTable(entries.length, hash);
  for (const [key, bits] of entries) expect(table.add(key, bits)).toBe(true);
  return table;
}

const ENTRIES: [string, number][] = [
  ["a.com", 1],
  ["b.com", 2],
  ["a.co", 4],
  ["aa.com", 8],
  ["evil.com", 1],
  ["live.com", 4],
  ["[::1]", 4],
  ["10.0.0.1", 1],
  // 24 characters sit in their slot, 25 and more in the side store
  ["inline-twenty-four.c.com", 2],
  ["side-store-twenty-five.cm", 8],
  ["a-much-longer-host-name.in-the-side-store.example", 4],
];
const ABSENT = [
  "c.com",
  "a.con",
  "a.comm",
  ".a.com",
  "com",
  "",
  "A.COM",
  "b.co",
  "vile.com",
  "10.0.0.2",
  "[::2]",
  "inline-twenty-four.c.coM",
  "side-store-twenty-five.cn",
  "b-much-longer-host-name.in-the-side-store.example",
];

describe("HostTable", () => {
  it.each([["fnv1aMix", fnv1aMix] as const, ...WEAK_HASHES])("answers exactly, hits and misses, when %s", (_name, hash) => {
    const table = tableOf(ENTRIES, hash);
    expect(table.size).toBe(ENTRIES.length);
    for (const [key, bits] of ENTRIES) expect(table.get(key)).toBe(bits);
    for (const key of ABSENT) expect(table.get(key)).toBe(0);
    expect(new Map(table)).toEqual(new Map(ENTRIES));
  });

  it.each(WEAK_HASHES)("probes a suffix in place, exactly, when %s", (_name, hash) => {
    const table = tableOf(ENTRIES, hash);
    expect(table.get("www.a.com", 4)).toBe(1);
    expect(table.get("www.a.com", 3)).toBe(0);
    expect(table.get("x.live.com", 2)).toBe(4);
    expect(table.get("x.evil.com", 2)).toBe(1);
    expect(table.get("xa.com", 1)).toBe(1);
    expect(table.get("xa.com", 0)).toBe(0);
    expect(table.get("xaa.com", 1)).toBe(8);
    expect(table.get("a.com", 5)).toBe(0);
    expect(table.get("www.side-store-twenty-five.cm", 4)).toBe(8);
    expect(table.get("www.side-store-twenty-five.cm", 3)).toBe(0);
  });

  it.each([["fnv1aMix", fnv1aMix] as const, ...WEAK_HASHES])("looks the label suffixes up at once as get would, when %s", (_name, hash) => {
    const table = tableOf(ENTRIES, hash);
    const cases: [string, number, number, number[]][] = [
      ["www.a.com", 1, 2, [6, 4, 0]],
      ["www.a.com", 2, 2, [4, 0]],
      ["x.live.com", 1, 3, [7, 2, 0]],
      ["xaa.com", 1, 1, [4, 0]],
      ["nowhere.example", 1, 1, [8, 0]],
      ["www.side-store-twenty-five.cm", 2, 2, [4, 0]],
      ["a.b.inline-twenty-four.c.com", 1, 5, [25, 23, 4, 2, 0]],
      ["10.0.0.1", 0, 0, [0]],
      ["a.com", 0, 0, [0]],
      ["", 1, 3, [0]],
    ];
    for (const [text, minLabels, maxLabels, starts] of cases) {
      const bits = new Int32Array(MAX_KEYS_AT_ONCE).fill(-1);
      expect(table.getSuffixes(text, minLabels, maxLabels, bits)).toBe(starts.length);
      expect([...bits.subarray(0, starts.length)]).toEqual(starts.map((start) => table.get(text, start)));
    }
  });

  it("probes exactly the suffixes with minLabels to maxLabels labels, shortest first, then the text itself", () => {
    const suffixes = ["v", "u.v", "t.u.v", "s.t.u.v", "r.s.t.u.v", "q.r.s.t.u.v"];
    // Each suffix's own bit (cycling through 1, 2, 4, 8), so the bits show which suffixes were looked up.
    const table = tableOf(suffixes.map((key, i) => [key, 1 << (i % 4)]));
    const bits = new Int32Array(MAX_KEYS_AT_ONCE);
    expect(table.getSuffixes("q.r.s.t.u.v", 2, 4, bits)).toBe(4);
    expect([...bits.subarray(0, 4)]).toEqual([2, 4, 8, 2]);
    expect(table.getSuffixes("q.r.s.t.u.v", 1, 127, bits)).toBe(6);
    expect([...bits.subarray(0, 6)]).toEqual([1, 2, 4, 8, 1, 2]);
  });

  it("hashes every suffix in its one backward pass exactly as it hashes each alone", () => {
    const table = tableOf(ENTRIES);
    const text = "a.b.inline-twenty-four.c.com";
    const bits = new Int32Array(MAX_KEYS_AT_ONCE);
    expect(table.getSuffixes(text, 1, 5, bits)).toBe(5);
    expect([...bits.subarray(0, 5)]).toEqual([0, 0, 2, 0, 0]);
    const starts = [25, 23, 4, 2, 0];
    expect(starts.map((start) => fnv1aMix(text, start))).toEqual(starts.map((start) => fnv1aMix(text.slice(start), 0)));
  });

  it.each([["fnv1aMix", fnv1aMix] as const, ...WEAK_HASHES])("never matches a key through the low byte of a non-ASCII character, when %s", (_name, hash) => {
    const table = tableOf(ENTRIES, hash);
    const bits = new Int32Array(MAX_KEYS_AT_ONCE);
    // U+0161 and U+0261 end in the byte of "a"; the ASCII suffix after the dot still matches.
    expect(table.getSuffixes("\u0161.com", 1, 1, bits)).toBe(2);
    expect([...bits.subarray(0, 2)]).toEqual([0, 0]);
    expect(table.getSuffixes("x.\u0261.com", 1, 2, bits)).toBe(3);
    expect([...bits.subarray(0, 3)]).toEqual([0, 0, 0]);
    expect(table.getSuffixes("\u0161\u0161.a.com", 2, 2, bits)).toBe(2);
    expect([...bits.subarray(0, 2)]).toEqual([1, 0]);
    expect(table.get("\u0161.com")).toBe(0);
  });

  it("refuses a text longer than any key it can hold", () => {
    const table = tableOf(ENTRIES);
    const long = `${"a".repeat(MAX_KEY_LENGTH - 5)}a.com`;
    expect(long.length).toBe(MAX_KEY_LENGTH);
    expect(table.getSuffixes(long, 1, 1, new Int32Array(MAX_KEYS_AT_ONCE))).toBe(2);
    expect(() => table.getSuffixes(`x${long}`, 2, 2, new Int32Array(MAX_KEYS_AT_ONCE))).toThrow(RangeError);
    expect(table.get(`x${long}`)).toBe(0);
    expect(table.get(`x${long}`, MAX_KEY_LENGTH - 4)).toBe(1);
  });

  it("merges the bits of a key added twice into one slot", () => {
    const table = tableOf([
      ["a.com", 1],
      ["a.com", 8],
    ]);
    expect([table.size, table.get("a.com")]).toEqual([1, 9]);
  });

  it("refuses what it cannot store exactly: a non-ASCII key, an empty key, an overlong key, a key past half its slots", () => {
    // 4 keys: 8 slots, the smallest table, of which at most half are used
    const table = new HostTable(4);
    expect(table.add("bücher.de", 1)).toBe(false);
    expect(table.add("", 1)).toBe(false);
    expect(table.add("a".repeat(MAX_KEY_LENGTH + 1), 1)).toBe(false);
    expect(table.get("bücher.de")).toBe(0);
    // "b\u00FCcher.de" must not be found through the low byte of ü either
    expect(table.get("b\u01FCcher.de")).toBe(0);
    for (let i = 0; i < 4; i++) expect(table.add(`k${i}`, 1)).toBe(true);
    expect(table.add("k4", 1)).toBe(false);
    expect([table.size, table.get("k4"), table.get("k3")]).toEqual([4, 0, 1]);
  });
});
