import { brotliCompressSync, brotliDecompressSync, constants } from "node:zlib";
import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { ANSWER_BROTLI_QUALITY, compressionBrotliBounded } from "../src/compression.ts";

const policyLike = new TextEncoder().encode(JSON.stringify(Array.from({ length: 20_000 }, (_, i) => `h${i.toString(36)}.example`)));

describe("the server's Brotli", () => {
  it("compresses an answer at ANSWER_BROTLI_QUALITY, not zlib's slowest default, and any Brotli reader reads it", async () => {
    expect(ANSWER_BROTLI_QUALITY).toBeLessThan(constants.BROTLI_DEFAULT_QUALITY);
    const compressed = await compressionBrotliBounded.compress(policyLike);
    expect(Buffer.from(compressed)).toEqual(brotliCompressSync(policyLike, { params: { [constants.BROTLI_PARAM_QUALITY]: ANSWER_BROTLI_QUALITY } }));
    expect(new Uint8Array(brotliDecompressSync(compressed))).toEqual(policyLike);
  });

  it("reads a Brotli request body up to readMaxBytes and refuses one that inflates past it", async () => {
    const compressed = brotliCompressSync(policyLike, { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } });
    expect(new Uint8Array(await compressionBrotliBounded.decompress(compressed, policyLike.length))).toEqual(policyLike);
    const refusal = await compressionBrotliBounded.decompress(compressed, policyLike.length - 1).catch((error: unknown) => ConnectError.from(error));
    expect(refusal).toMatchObject({ code: Code.ResourceExhausted });
  });
});
