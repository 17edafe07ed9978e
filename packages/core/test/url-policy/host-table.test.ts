import { describe, expect, it } from "vitest";
import { fnv1aMix, HostTable, MAX_KEYS_AT_ONCE } from "../../src/url-policy/host-table.ts";
import type { HostHash } from "../../src/url-policy/host-table.ts";

/** Hashes that collide on purpose: a hit can then only come from comparing the keys themselves. */
const WEAK_HASHES: readonly [string, HostHash][] = [
  ["every key hashes to 0", () => 0],
  ["keys of one length collide", (text, from) => text.length - from],
  ["keys differing past their first character collide", (text, from) => text.charCodeAt(from)],
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

  it.each([["fnv1aMix", fnv1aMix] as const, ...WEAK_HASHES])("looks several suffixes up at once as get would, when %s", (_name, hash) => {
    const table = tableOf(ENTRIES, hash);
    const cases: [string, number[]][] = [
      ["www.a.com", [6, 4, 0]],
      ["x.live.com", [7, 2, 0]],
      ["xaa.com", [4, 1]],
      ["nowhere.example", [8, 0]],
      ["www.side-store-twenty-five.cm", [4, 0]],
      ["10.0.0.1", [0]],
      ["", [0]],
    ];
    for (const [text, starts] of cases) {
      const bits = new Int32Array(MAX_KEYS_AT_ONCE).fill(-1);
      table.getEach(text, Int32Array.from(starts), starts.length, bits);
      expect([...bits.subarray(0, starts.length)]).toEqual(starts.map((start) => table.get(text, start)));
    }
    expect(() => table.getEach("a", new Int32Array(MAX_KEYS_AT_ONCE + 1), MAX_KEYS_AT_ONCE + 1, new Int32Array(MAX_KEYS_AT_ONCE + 1))).toThrow(RangeError);
  });

  it("hashes every suffix in one backward pass exactly as it hashes each alone", () => {
    const table = tableOf(ENTRIES);
    const text = "a.b.inline-twenty-four.c.com";
    const starts = [25, 23, 4, 2, 0];
    const bits = new Int32Array(starts.length);
    table.getEach(text, Int32Array.from(starts), starts.length, bits);
    expect([...bits]).toEqual([0, 0, 2, 0, 0]);
    expect(starts.map((start) => fnv1aMix(text, start))).toEqual(starts.map((start) => fnv1aMix(text.slice(start), 0)));
  });

  it("merges the bits of a key added twice into one slot", () => {
    const table = tableOf([
      ["a.com", 1],
      ["a.com", 8],
    ]);
    expect([table.size, table.get("a.com")]).toEqual([1, 9]);
  });

  it("keeps a million keys with at most half the slots in use, a few dozen bytes each", () => {
    const table = new HostTable(1_000_000);
    for (let i = 0; i < 1_000_000; i++) table.add(`h${i}.example`, 1 + (i % 15));
    expect(table.size).toBe(1_000_000);
    expect(table.get("h999999.example")).toBe(1 + (999_999 % 15));
    expect(table.get("h1000000.example")).toBe(0);
  });

  it("refuses what it cannot store exactly: a non-ASCII key, an empty key, a key past half its slots", () => {
    // 4 keys: 8 slots, the smallest table, of which at most half are used
    const table = new HostTable(4);
    expect(table.add("bücher.de", 1)).toBe(false);
    expect(table.add("", 1)).toBe(false);
    expect(table.get("bücher.de")).toBe(0);
    // "b\u00FCcher.de" must not be found through the low byte of ü either
    expect(table.get("b\u01FCcher.de")).toBe(0);
    for (let i = 0; i < 4; i++) expect(table.add(`k${i}`, 1)).toBe(true);
    expect(table.add("k4", 1)).toBe(false);
    expect([table.size, table.get("k4"), table.get("k3")]).toEqual([4, 0, 1]);
  });
});
