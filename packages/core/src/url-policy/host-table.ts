/**
 * The compiled policy's one table of host keys (url-policy.md §5), built for a million entries; why, and
 * what it measured, is in docs/decisions/url-host-table.md.
 *
 * A `Map<string, number>` of a million keys misses cache several times per probe (bucket, chain entry,
 * key string). Here a probe first reads a byte array of tags, one byte per slot (small enough to stay in
 * cache), and only a slot whose tag matches is read: 32 bytes of a flat Int32Array holding
 * 32 bits of the key's hash, its bits and, for a key of at most 24 characters, the key itself. Open
 * addressing with linear probing in a power-of-two table at most half full, so an absent key usually costs
 * one cached byte and a present one one slot. A slot whose hash matches is then compared with the probed key
 * character by character, so a hash collision can cost time but can never allow or block the wrong host. A lookup reads the probed string once, in the pass that finds
 * its label boundaries and hashes every suffix, and copies its characters as bytes for those comparisons:
 * in V8 a `charCodeAt` costs several times a typed-array read.
 */

/** A 32-bit hash (an int32) of `text` from index `from` to its end. */
export type HostHash = (text: string, from: number) => number;

/** Read access to a host table: what `listingOf` probes and what a test or a log may list. */
export interface HostLookup extends Iterable<[string, number]> {
  /** The bits of the key `text.slice(from)` (0 when absent), without building that string. */
  get(text: string, from?: number): number;
  /**
   * The bits of each proper label suffix of `text` with `minLabels` to `maxLabels` labels (`a.b.c` with 1 to 2:
   * `c`, `b.c`), shortest first, into `bits[0]`, `bits[1]`…, then those of `text` itself; returns how many,
   * each as `get` would give it. `text` has at most MAX_KEY_LENGTH characters. See `HostTable#getSuffixes`.
   */
  getSuffixes(text: string, minLabels: number, maxLabels: number, bits: Int32Array): number;
  readonly size: number;
}

/**
 * FNV-1a over the characters from the last to `from`, then murmur3's finaliser so that the low bits, which
 * pick the slot, depend on every character. Walking backwards, the running state at a label boundary is that
 * suffix's state, so one pass over a host yields the hash of every `*.` base it could match (`getSuffixes`).
 * 32 bits are enough because a hash match is only a hint: the key is compared in full, in the same cache line for most keys.
 */
export const fnv1aMix: HostHash = (text, from) => {
  // `| 0` keeps the state an int32: the raw offset basis is above 2^31, and V8 would then carry a double through the loop.
  let state = FNV_OFFSET | 0;
  for (let i = text.length - 1; i >= from; i--) state = Math.imul(state ^ text.charCodeAt(i), FNV_PRIME);
  return finalise(state);
};

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

function finalise(state: number): number {
  let hash = state ^ (state >>> 16);
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  return hash ^ (hash >>> 16);
}

/**
 * A slot is 32 bytes, half a cache line: the hash's low 32 bits, `(key length << BITS_WIDTH) | bits`
 * (0 marks an empty slot: a key has at least one character and one bit), then the key's characters
 * inline when it has at most INLINE_CHARS of them (most host names), or else where they start in the
 * side store. So the probe that finds a short key reads one cache line, verification included.
 */
const SLOT_WORDS = 8;
const HASH_LOW = 0;
const KEY_META = 1;
const KEY_AT = 2;
const INLINE_CHARS = (SLOT_WORDS - KEY_AT) * 4;
const BITS_WIDTH = 4;
const BITS_MASK = (1 << BITS_WIDTH) - 1;
/** The longest key: host keys have at most 253 characters. Longer keys are refused, so a longer text is never one. */
export const MAX_KEY_LENGTH = 255;
/** A key of MAX_KEY_LENGTH characters has at most 127 dots, so at most 127 suffixes plus itself. */
export const MAX_KEYS_AT_ONCE = 128;
const DOT = 0x2e;
/** What a probed character above U+007F is copied as: no key byte, since keys are ASCII, so it never matches. */
const NOT_ASCII = 0xff;

/**
 * Scratch shared by every table (a lookup is synchronous, so no two use it at once): where each key that
 * `getSuffixes` probes starts in the text, its hash, and the probed characters as bytes, which `#find`
 * compares keys with.
 */
const STARTS = new Int32Array(MAX_KEYS_AT_ONCE);
const HASHES = new Int32Array(MAX_KEYS_AT_ONCE);
const PROBED = new Uint8Array(MAX_KEY_LENGTH);

export class HostTable implements HostLookup {
  readonly #slots: Int32Array;
  /**
   * One byte per slot, 0 when it is empty, else the top byte of its key's hash (1 for 0). A probe walks these
   * first: they are a 32nd of the slots' size and stay in cache where the slots do not, so an absent
   * key (every suffix but one, for most hosts) is settled without reading its slot, and a present one reads
   * only its own.
   */
  readonly #tags: Uint8Array;
  /** The same memory as `#slots`, byte by byte: the inline key characters. */
  readonly #slotBytes: Uint8Array;
  readonly #mask: number;
  readonly #hash: HostHash;
  /** The characters of keys too long to sit in their slot, one byte each (host keys are ASCII), back to back. */
  #chars: Uint8Array;
  #charsUsed = 0;
  #size = 0;

  /** A table for up to `capacity` distinct keys, never resized: its slots are at most half used. */
  constructor(capacity: number, hash: HostHash = fnv1aMix) {
    let slots = 8;
    while (slots < capacity * 2) slots *= 2;
    this.#slots = new Int32Array(slots * SLOT_WORDS);
    this.#tags = new Uint8Array(slots);
    this.#slotBytes = new Uint8Array(this.#slots.buffer);
    this.#mask = slots - 1;
    this.#hash = hash;
    // Grown by doubling: most host names sit in their slot, so a policy may never need more.
    this.#chars = new Uint8Array(256);
  }

  get size(): number {
    return this.#size;
  }

  /**
   * Adds `bits` (1..15) to `key`'s. False, and nothing stored, when the key is empty, not ASCII, longer than
   * MAX_KEY_LENGTH, or past the capacity; compile only passes host keys, which are none of the first three.
   */
  add(key: string, bits: number): boolean {
    if (key.length > MAX_KEY_LENGTH) return false;
    copyProbed(key, 0);
    const hash = this.#hash(key, 0) | 0;
    const found = this.#find(0, key.length, hash);
    if (found >= 0) {
      this.#slots[found * SLOT_WORDS + KEY_META] = this.#slots[found * SLOT_WORDS + KEY_META]! | (bits & BITS_MASK);
      return true;
    }
    if (key.length === 0 || this.#size * 2 >= this.#tags.length || !storeable(key)) return false;
    const slot = ~found;
    const at = slot * SLOT_WORDS;
    let target = this.#slotBytes;
    let offset = (at + KEY_AT) * 4;
    if (key.length > INLINE_CHARS) {
      if (this.#charsUsed + key.length > this.#chars.length) {
        const grown = new Uint8Array(Math.max(this.#chars.length * 2, this.#charsUsed + key.length));
        grown.set(this.#chars);
        this.#chars = grown;
      }
      this.#slots[at + KEY_AT] = this.#charsUsed;
      target = this.#chars;
      offset = this.#charsUsed;
      this.#charsUsed += key.length;
    }
    for (let i = 0; i < key.length; i++) target[offset + i] = key.charCodeAt(i);
    this.#slots[at + HASH_LOW] = hash;
    this.#slots[at + KEY_META] = (key.length << BITS_WIDTH) | (bits & BITS_MASK);
    this.#tags[slot] = tagOf(hash);
    this.#size++;
    return true;
  }

  get(text: string, from = 0): number {
    const length = text.length - from;
    if (length > MAX_KEY_LENGTH) return 0;
    copyProbed(text, from);
    return this.#bitsAt(this.#find(0, length, this.#hash(text, from) | 0));
  }

  /**
   * One backward pass over `text` finds the label boundaries, hashes every suffix (see `fnv1aMix`) and copies
   * the characters for `#find`. Then every first tag is read before any slot: the reads do not depend on each
   * other, so the CPU overlaps them instead of queueing them, and when all are empty no slot is read at all.
   */
  getSuffixes(text: string, minLabels: number, maxLabels: number, bits: Int32Array): number {
    const length = text.length;
    if (length > MAX_KEY_LENGTH) throw new RangeError(`a host key has at most ${MAX_KEY_LENGTH} characters`);
    const starts = STARTS;
    const hashes = HASHES;
    const probed = PROBED;
    let state = FNV_OFFSET | 0;
    let labels = 0;
    let count = 0;
    for (let i = length - 1; i >= 0; i--) {
      const c = text.charCodeAt(i);
      // The state so far is that of the suffix after this dot, which has `labels` labels.
      if (c === DOT && ++labels >= minLabels && labels <= maxLabels) {
        starts[count] = i + 1;
        hashes[count++] = finalise(state);
      }
      probed[i] = c > 0x7f ? NOT_ASCII : c;
      state = Math.imul(state ^ c, FNV_PRIME);
    }
    starts[count] = 0;
    hashes[count++] = finalise(state);
    // A test's own hash, so that colliding hashes can be tried: the pass above still found the suffixes.
    if (this.#hash !== fnv1aMix) for (let k = 0; k < count; k++) hashes[k] = this.#hash(text, starts[k]!) | 0;
    const tags = this.#tags;
    let anyUsed = 0;
    for (let k = 0; k < count; k++) anyUsed |= tags[hashes[k]! & this.#mask]!;
    // All first tags empty (each is, half the time or more, in a table at most half full): every key is absent, nothing to compare.
    if (anyUsed === 0) {
      bits.fill(0, 0, count);
      return count;
    }
    for (let k = 0; k < count; k++) bits[k] = this.#bitsAt(this.#find(starts[k]!, length - starts[k]!, hashes[k]!));
    return count;
  }

  *[Symbol.iterator](): Iterator<[string, number]> {
    const slots = this.#slots;
    for (let at = 0; at < slots.length; at += SLOT_WORDS) {
      const meta = slots[at + KEY_META]!;
      if (meta === 0) continue;
      const length = meta >>> BITS_WIDTH;
      const offset = length > INLINE_CHARS ? slots[at + KEY_AT]! : (at + KEY_AT) * 4;
      const store = length > INLINE_CHARS ? this.#chars : this.#slotBytes;
      yield [String.fromCharCode(...store.subarray(offset, offset + length)), meta & BITS_MASK];
    }
  }

  /**
   * The slot holding the `length` bytes of PROBED from `from`, whose hash is `low`, or, when they are absent,
   * `~slot` of the empty slot where they would go. Only a slot whose tag matches is read.
   */
  #find(from: number, length: number, low: number): number {
    const slots = this.#slots;
    const tags = this.#tags;
    const tag = tagOf(low);
    for (let slot = low & this.#mask; ; slot = (slot + 1) & this.#mask) {
      const slotTag = tags[slot]!;
      if (slotTag === 0) return ~slot;
      if (slotTag !== tag) continue;
      const at = slot * SLOT_WORDS;
      if (slots[at + HASH_LOW] === low && slots[at + KEY_META]! >>> BITS_WIDTH === length && this.#sameKey(from, at, length)) return slot;
    }
  }

  /** The bits of what `#find` found: 0 when it found an empty slot. */
  #bitsAt(found: number): number {
    return found < 0 ? 0 : this.#slots[found * SLOT_WORDS + KEY_META]! & BITS_MASK;
  }

  #sameKey(from: number, at: number, length: number): boolean {
    if (length > INLINE_CHARS) return sameBytes(from, this.#chars, this.#slots[at + KEY_AT]!, length);
    return sameBytes(from, this.#slotBytes, (at + KEY_AT) * 4, length);
  }
}

/** A slot's tag: the hash's top byte, whose bits are not those that pick the slot in a table below 2^24 slots, and never 0. */
function tagOf(hash: number): number {
  return hash >>> 24 || 1;
}

/** PROBED is `text.slice(from)`, as bytes (its length is at most MAX_KEY_LENGTH). */
function copyProbed(text: string, from: number): void {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    PROBED[i - from] = c > 0x7f ? NOT_ASCII : c;
  }
}

/** Whether the `length` bytes of PROBED from `from` are those of `chars` from `offset`. */
function sameBytes(from: number, chars: Uint8Array, offset: number, length: number): boolean {
  for (let i = 0; i < length; i++) if (chars[offset + i] !== PROBED[from + i]) return false;
  return true;
}

function storeable(key: string): boolean {
  for (let i = 0; i < key.length; i++) if (key.charCodeAt(i) > 0x7f) return false;
  return true;
}
