import { Code, ConnectError, createConnectRouter, type ConnectRouter, type ConnectRouterOptions, type ContextValues } from "@connectrpc/connect";
import { compressionBrotli, compressionGzip, universalRequestFromNodeRequest, universalResponseToNodeResponse } from "@connectrpc/connect-node";
import { decodeFailuresAsInvalidArgument } from "./decode-failures.ts";
import type { NodeRequest, NodeResponse } from "./http-routes.ts";
import type { MethodName } from "./interceptors.ts";

export interface RpcHandlerOptions extends ConnectRouterOptions {
  readonly routes: (router: ConnectRouter) => void;
  readonly contextValues: (req: NodeRequest) => ContextValues;
  /** Serves every path that is not an RPC. */
  readonly fallback: (req: NodeRequest, res: NodeResponse) => void;
  /** A failure the server did not expect: logged as an error. */
  readonly onUnexpected: (error: unknown, method: MethodName) => void;
  /** The client went away before its response was written: routine, worth a debug line at most. */
  readonly onClientGone: (method: MethodName) => void;
}

/**
 * connect-node's `connectNodeAdapter`, with what a public server needs on top: a request decode
 * failure is InvalidArgument (see decode-failures.ts), a request with no authority (HTTP/1.0 with
 * no Host) is a 400 where connect-node throws out of the request listener and ends the process,
 * and a client that hangs up is not reported as an error.
 */
export function createRpcHandler(options: RpcHandlerOptions): (req: NodeRequest, res: NodeResponse) => void {
  const router = createConnectRouter({ acceptCompression: [compressionGzip, compressionBrotli], ...options });
  options.routes(router);
  const handlers = new Map(router.handlers.map((handler) => [handler.requestPath, handler]));
  return (req, res) => {
    const handler = handlers.get((req.url ?? "").split("?", 2)[0]!);
    if (handler === undefined) {
      options.fallback(req, res);
      return;
    }
    const method = `${handler.service.typeName}/${handler.method.name}`;
    const authority = "authority" in req ? req.authority : req.headers.host;
    if (!authority) {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ code: "invalid_argument", message: "the request has no Host header" }));
      return;
    }
    const request = universalRequestFromNodeRequest(req as never, res as never, undefined, options.contextValues(req));
    handler(request)
      .then(decodeFailuresAsInvalidArgument)
      .then((response) => universalResponseToNodeResponse(response, res as never))
      .catch((reason: unknown) => {
        const code = ConnectError.from(reason).code;
        if (code === Code.Aborted || code === Code.Canceled || request.signal.aborted) options.onClientGone(method);
        else options.onUnexpected(reason, method);
      });
  };
}
