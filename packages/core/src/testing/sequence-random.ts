import type { RandomSource } from "../ports.ts";

/**
 * Serves queued byte sequences first (to force a specific OTP or a rejection-sampling retry),
 * then falls back to a deterministic counter so ids stay unique and runs reproducible.
 */
export class SequenceRandom implements RandomSource {
  readonly #queue: Uint8Array[] = [];
  #counter = 0;

  /** Queues exact bytes for upcoming `bytes(n)` calls, consumed in order. */
  push(...chunks: Uint8Array[]): void {
    this.#queue.push(...chunks);
  }

  /** Queues the 4 bytes that make `generateOtp` draw this 32-bit value. */
  pushUint32(value: number): void {
    const chunk = new Uint8Array(4);
    new DataView(chunk.buffer).setUint32(0, value >>> 0);
    this.#queue.push(chunk);
  }

  bytes(length: number): Uint8Array {
    const queued = this.#queue[0];
    if (queued !== undefined && queued.length === length) {
      this.#queue.shift();
      return queued;
    }
    const out = new Uint8Array(length);
    this.#counter++;
    for (let i = 0; i < length; i++) out[i] = (this.#counter * 31 + i * 7) & 0xff;
    if (length >= 4) new DataView(out.buffer).setUint32(0, this.#counter);
    return out;
  }
}
