import { Code, ConnectError, createConnectRouter, type ConnectRouter, type ConnectRouterOptions, type ContextValues } from "@connectrpc/connect";
import { compressionGzip, universalRequestFromNodeRequest, universalResponseToNodeResponse } from "@connectrpc/connect-node";
import type { Principal, RequestMeta } from "@gatehouse/core";
import { bearerToken } from "./bearer.ts";
import type { BodyBudget } from "./body-budget.ts";
import { bodyLimitOf, carriesLargeBody, MAX_BODY_BYTES } from "./body-limits.ts";
import { compressionBrotliBounded } from "./compression.ts";
import { decodeFailuresAsInvalidArgument } from "./decode-failures.ts";
import { API_HEADERS, writeJson, type NodeRequest, type NodeResponse } from "./http-routes.ts";
import { PUBLIC_METHODS, type MethodName } from "./interceptors.ts";
import { clientIpKey, edgeAuthKey, edgeRefusalKey, type EdgeAuth } from "./request-context.ts";
import { requestMeta } from "./request-meta.ts";

export interface RpcHandlerOptions extends ConnectRouterOptions {
  readonly routes: (router: ConnectRouter) => void;
  readonly contextValues: (req: NodeRequest) => ContextValues;
  /** Resolves the bearer token of a non-public method before its body is read; throws as `Gatehouse.authenticate` does. */
  readonly authenticate: (accessToken: string) => Promise<Principal>;
  /**
   * Throws the refusal of a caller of a large-body method (body-limits.ts) that its session alone decides,
   * before its body is read: reading and decoding megabytes only to refuse them is what costs the server.
   */
  readonly admitLargeBody: (principal: Principal, request: RequestMeta) => Promise<void>;
  /** Bytes of request bodies read at once, shared with the JSON routes. */
  readonly bodyBudget: BodyBudget;
  /** Serves every path that is not an RPC. */
  readonly fallback: (req: NodeRequest, res: NodeResponse) => void;
  /** A failure the server did not expect: logged as an error. */
  readonly onUnexpected: (error: unknown, method: MethodName) => void;
  /** The client went away before its response was written: routine, worth a debug line at most. */
  readonly onClientGone: (method: MethodName) => void;
}

/** The one empty message each protocol can carry, in place of a body that is not read. */
const EMPTY_ENVELOPE = new Uint8Array(5);
const EMPTY_JSON = new TextEncoder().encode("{}");

/**
 * connect-node's `connectNodeAdapter`, with what a public server needs on top. Before any byte of a body
 * is read: a body declared larger than its method's cap (body-limits.ts) is refused, the bearer token of a
 * method that needs one is resolved, the caller of a large-body method is admitted (`admitLargeBody`), and
 * the body reserves its bytes in the process's budget. A request
 * refused there reaches connect with an empty message in place of its body, which the interceptors refuse
 * before any handler runs (`edgeRefusalInterceptor`, `authInterceptor`): the refusal comes in each
 * protocol's own shape, and the attacker's bytes are never decoded. A body that declares no length is
 * counted as it is read and cut at its cap. Also: a request decode failure is InvalidArgument (see
 * decode-failures.ts), a request with no authority (HTTP/1.0 with no Host) is a 400 where connect-node
 * throws out of the request listener and ends the process, and a client that hangs up is not reported as an error.
 */
export function createRpcHandler(options: RpcHandlerOptions): (req: NodeRequest, res: NodeResponse) => void {
  const router = createConnectRouter({ acceptCompression: [compressionGzip, compressionBrotliBounded], readMaxBytes: MAX_BODY_BYTES, ...options });
  options.routes(router);
  const handlers = new Map(router.handlers.map((handler) => [handler.requestPath, handler]));
  return (req, res) => {
    const handler = handlers.get((req.url ?? "").split("?", 2)[0]!);
    if (handler === undefined) {
      options.fallback(req, res);
      return;
    }
    const method = `${handler.service.typeName}/${handler.method.name}`;
    // Every API answer, errors included: never sniffed into something a browser renders, never kept by a cache.
    for (const [name, value] of Object.entries(API_HEADERS)) (res as unknown as { setHeader(name: string, value: string): void }).setHeader(name, value);
    const authority = "authority" in req ? req.authority : req.headers.host;
    if (!authority) {
      writeJson(res, 400, { code: "invalid_argument", message: "the request has no Host header" }, { "content-type": "application/json" });
      return;
    }
    const contextValues = options.contextValues(req);
    admit(req, method, contextValues).then(
      (release) => {
        // The client left while its token was being resolved: nobody is left to answer.
        if ("stream" in req ? req.stream.destroyed : req.socket.destroyed) {
          release?.();
          options.onClientGone(method);
          return;
        }
        const request = universalRequestFromNodeRequest(req as never, res as never, undefined, contextValues);
        if (release === null) {
          replaceWithEmptyMessage(request);
        } else {
          (res as unknown as { once(event: "close", listener: () => void): void }).once("close", release);
          request.body = limited(request.body as AsyncIterable<Uint8Array>, bodyLimitOf(method));
        }
        handler(request)
          .then(decodeFailuresAsInvalidArgument)
          .then((response) => universalResponseToNodeResponse(response, res as never))
          .catch((reason: unknown) => {
            const code = ConnectError.from(reason).code;
            if (code === Code.Aborted || code === Code.Canceled || request.signal.aborted) options.onClientGone(method);
            else options.onUnexpected(reason, method);
          });
      },
      (error: unknown) => {
        options.onUnexpected(error, method);
        if (res.headersSent) res.end("");
        else writeJson(res, 500, { code: "internal", message: "internal error" }, { "content-type": "application/json" });
      },
    );
  };

  /** The release of the body's reservation when it may be read; null when it is refused (the reason is in `contextValues`). */
  async function admit(req: NodeRequest, method: MethodName, contextValues: ContextValues): Promise<(() => void) | null> {
    const limit = bodyLimitOf(method);
    const declared = declaredLength(req);
    if (declared !== undefined && declared > limit) {
      contextValues.set(edgeRefusalKey, new ConnectError(`the request body must be at most ${limit} bytes`, Code.ResourceExhausted));
      return null;
    }
    if (!PUBLIC_METHODS.has(method)) {
      const auth: EdgeAuth = await options.authenticate(bearerToken(req.headers.authorization)).then(
        (principal) => ({ ok: true, principal }),
        (error: unknown) => ({ ok: false, error }),
      );
      contextValues.set(edgeAuthKey, auth);
      if (!auth.ok) return null;
      if (carriesLargeBody(method)) {
        const refusal = await options.admitLargeBody(auth.principal, requestMeta(contextValues.get(clientIpKey), req.headers["user-agent"])).then(
          () => null,
          (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
        );
        if (refusal !== null) {
          contextValues.set(edgeRefusalKey, refusal);
          return null;
        }
      }
    }
    const release = options.bodyBudget.reserve(declared ?? limit);
    if (release === null) contextValues.set(edgeRefusalKey, new ConnectError("the server is reading too many requests; retry shortly", Code.ResourceExhausted));
    return release;
  }
}

function declaredLength(req: NodeRequest): number | undefined {
  const header = req.headers["content-length"];
  if (header === undefined) return undefined;
  const length = Number(header);
  return Number.isSafeInteger(length) && length >= 0 ? length : undefined;
}

/** The body, cut with ResourceExhausted once it passes `limit` bytes (a body that declared no length). */
async function* limited(body: AsyncIterable<Uint8Array>, limit: number): AsyncIterable<Uint8Array> {
  let read = 0;
  for await (const chunk of body) {
    read += chunk.byteLength;
    if (read > limit) throw new ConnectError(`the request body must be at most ${limit} bytes`, Code.ResourceExhausted);
    yield chunk;
  }
}

/** Puts an empty message, framed as the request's protocol frames one, where its unread body was. */
function replaceWithEmptyMessage(request: { header: Headers; body: unknown }): void {
  const contentType = request.header.get("content-type") ?? "";
  const bytes = /^application\/(grpc|connect\+)/.test(contentType)
    ? EMPTY_ENVELOPE
    : contentType.startsWith("application/json")
      ? EMPTY_JSON
      : new Uint8Array(0);
  request.header.delete("content-encoding");
  request.header.set("content-length", String(bytes.byteLength));
  request.body = (async function* () {
    yield bytes;
  })();
}
