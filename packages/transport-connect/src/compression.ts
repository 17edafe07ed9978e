import { promisify } from "node:util";
import { brotliCompress, constants } from "node:zlib";
import { compressionBrotli } from "@connectrpc/connect-node";
import type { Compression } from "@connectrpc/connect/protocol";

/**
 * The Brotli quality of the server's answers. connect-node's `compressionBrotli` compresses at zlib's default,
 * the slowest quality (11): a caller who asks `Accept-Encoding: br` for a large answer (a policy save's, or
 * GetOrgBrowserPolicy's) would cost the server's thread pool many times what gzip costs, on the cores every
 * other request shares. At this quality Brotli costs no more than gzip and sends less
 * (docs/decisions/policy-save-admission.md, "Answer compression").
 */
export const ANSWER_BROTLI_QUALITY = 3;

const compress = promisify(brotliCompress);

/** connect-node's Brotli with its decompression (bounded by `readMaxBytes`), compressing at `ANSWER_BROTLI_QUALITY`. */
export const compressionBrotliBounded: Compression = {
  name: compressionBrotli.name,
  compress: async (bytes) => new Uint8Array(await compress(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: ANSWER_BROTLI_QUALITY } })),
  decompress: compressionBrotli.decompress,
};
