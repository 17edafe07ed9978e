import { Code } from "@connectrpc/connect";
import type { UniversalServerResponse } from "@connectrpc/connect/protocol";

export const DECODE_FAILURE_MESSAGE = "the request message could not be decoded";

/**
 * connect-node decodes a request before any interceptor runs and calls what it cannot decode
 * Internal, with the parser's text: a protobuf message that does not parse ("parse binary: …") and
 * a compressed envelope with no `grpc-encoding`. The client sent those bytes, so they are
 * InvalidArgument with a fixed message. Matched on connect-node's own text (pinned version; a test
 * per case fails should an upgrade change it), so every other Internal, a server bug included,
 * stays Internal.
 */
export function isRequestDecodeFailure(code: number, message: string): boolean {
  return code === Code.Internal && (message.startsWith("parse binary: ") || message === "received compressed envelope, but do not know how to decompress");
}

const GRPC_WEB_TRAILER_FLAG = 0x80;
const textEncoder = new TextEncoder();
const textDecoder = new TextDecoder();

/** Rewrites a request decode failure in a response, in whichever of the three protocols' shapes it has. */
export async function decodeFailuresAsInvalidArgument(response: UniversalServerResponse): Promise<UniversalServerResponse> {
  const { header, body } = response;
  if (header === undefined || body === undefined || !(Symbol.asyncIterator in body)) return response;
  const contentType = header.get("content-type") ?? "";
  if (contentType.startsWith("application/grpc-web")) return { ...response, body: rewriteGrpcWebTrailer(body) };
  if (contentType.startsWith("application/grpc")) return { ...response, body: rewriteGrpcTrailerAfter(body, header, response.trailer) };
  if (response.status === 500 && contentType.startsWith("application/json") && !header.has("content-encoding"))
    return connectUnaryRewritten(response, header, body);
  return response;
}

async function* rewriteGrpcTrailerAfter(body: AsyncIterable<Uint8Array>, header: Headers, trailer: Headers | undefined): AsyncIterable<Uint8Array> {
  yield* body;
  // A trailers-only response carries its status in the headers.
  for (const fields of [trailer, header]) if (fields !== undefined) rewriteGrpcStatus(fields);
}

async function* rewriteGrpcWebTrailer(body: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  for await (const chunk of body) {
    // connect-node yields each envelope as one chunk; its trailer envelope is never compressed at this size.
    if (chunk[0] !== GRPC_WEB_TRAILER_FLAG) {
      yield chunk;
      continue;
    }
    const fields = new Headers();
    for (const line of textDecoder.decode(chunk.subarray(5)).split("\r\n")) {
      const colon = line.indexOf(":");
      if (colon > 0) fields.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
    }
    if (!rewriteGrpcStatus(fields)) {
      yield chunk;
      continue;
    }
    const lines: string[] = [];
    fields.forEach((value, name) => lines.push(`${name}: ${value}\r\n`));
    const data = textEncoder.encode(lines.join(""));
    const envelope = new Uint8Array(5 + data.length);
    envelope[0] = GRPC_WEB_TRAILER_FLAG;
    new DataView(envelope.buffer).setUint32(1, data.length);
    envelope.set(data, 5);
    yield envelope;
  }
}

function rewriteGrpcStatus(fields: Headers): boolean {
  const message = decodeURIComponentSafely(fields.get("grpc-message") ?? "");
  if (!isRequestDecodeFailure(Number(fields.get("grpc-status")), message)) return false;
  fields.set("grpc-status", String(Code.InvalidArgument));
  fields.set("grpc-message", encodeURIComponent(DECODE_FAILURE_MESSAGE));
  return true;
}

async function connectUnaryRewritten(
  response: UniversalServerResponse,
  responseHeader: Headers,
  body: AsyncIterable<Uint8Array>,
): Promise<UniversalServerResponse> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
  const bytes = Buffer.concat(chunks);
  let error: { code?: unknown; message?: unknown } = {};
  try {
    error = JSON.parse(bytes.toString("utf8")) as typeof error;
  } catch {
    // not an error body: passed on unchanged below
  }
  if (error.code !== "internal" || typeof error.message !== "string" || !isRequestDecodeFailure(Code.Internal, error.message)) {
    return { ...response, body: single(bytes) };
  }
  const rewritten = textEncoder.encode(JSON.stringify({ code: "invalid_argument", message: DECODE_FAILURE_MESSAGE }));
  const header = new Headers(responseHeader);
  header.set("content-length", String(rewritten.length));
  return { ...response, status: 400, header, body: single(rewritten) };
}

async function* single(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}

function decodeURIComponentSafely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
