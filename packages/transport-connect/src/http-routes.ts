/**
 * The browser-facing JSON routes of api.md, served beside Connect on the same port. They call
 * the same core as BrowserService and map errors through the same code table.
 */
import type { IncomingMessage } from "node:http";
import type { Http2ServerRequest } from "node:http2";
import { browserPolicyToJson, errorDetailFor, errorDetailToJson, orgInfoToJson, urlDecisionToJson } from "@gatehouse/contract";
import { GatehouseError, invalidArgument, type Gatehouse } from "@gatehouse/core";
import { bearerToken } from "./bearer.ts";
import { writeAtEndOfTurn } from "./end-of-turn-writes.ts";
import { isUnexpected, toConnectError } from "./error-codes.ts";
import { HTTP_ERRORS } from "./http-errors.ts";
import type { DevOtpLookup } from "./services/dev-service.ts";
import { devMailToJson, type DevMailLookup } from "./dev-mail.ts";

export type NodeRequest = IncomingMessage | Http2ServerRequest;

/** The part of http/http2 responses the routes use. */
export interface NodeResponse {
  readonly headersSent: boolean;
  writeHead(status: number, headers: Record<string, string>): unknown;
  end(body: string | Uint8Array): unknown;
}

/** A check-url body is a URL (≤ 8 KiB) and an org id; anything far larger is refused unread. */
export const MAX_JSON_BODY_BYTES = 16 * 1024;

export interface HttpRoutesOptions {
  readonly gatehouse: Gatehouse;
  /** Present only in dev OTP mode with NEXT_PUBLIC_DEV_OTP_ENABLED; otherwise the dev route is 404. */
  readonly devOtps: DevOtpLookup | null;
  /** Present only with `devOtps` (the same switch); otherwise the dev mail route is 404. */
  readonly devMail?: DevMailLookup | null;
  readonly onUnexpected: (error: unknown, route: string) => void;
  /** The client hung up while its body was being read: routine, worth a debug line at most. */
  readonly onClientGone: (route: string) => void;
}

/**
 * Handles the request and returns true when the path is one of ours; false lets the caller serve it. `url` is
 * the request's URL when the caller has parsed it already (against any base: only its path and query are read).
 */
export type HttpRoutes = (req: NodeRequest, res: NodeResponse, url?: URL) => Promise<boolean>;

class HttpStatusError extends Error {
  readonly status: number;
  readonly code: string;
  readonly headers: Record<string, string>;
  constructor(status: number, code: string, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

/** Reading the body failed because the client's stream did: nobody is left to answer. */
class ClientGone extends Error {}

function send(res: NodeResponse, route: string, options: HttpRoutesOptions, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const allHeaders = { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers };
  writeAtEndOfTurn(res, status, allHeaders, JSON.stringify(body), (error) => options.onUnexpected(error, route));
}

function sendError(res: NodeResponse, error: unknown, route: string, options: HttpRoutesOptions): void {
  if (error instanceof ClientGone) {
    options.onClientGone(route);
    return;
  }
  if (error instanceof HttpStatusError) {
    send(res, route, options, error.status, { error: { code: error.code, message: error.message } }, error.headers);
    return;
  }
  if (isUnexpected(error)) options.onUnexpected(error, route);
  const connectError = toConnectError(error);
  const { status, name } = HTTP_ERRORS[connectError.code];
  if (!(error instanceof GatehouseError)) {
    send(res, route, options, status, { error: { code: name, message: connectError.rawMessage } });
    return;
  }
  const detail = errorDetailFor(error);
  const retryAfter: Record<string, string> = detail.retryAfterSeconds === 0 ? {} : { "retry-after": String(detail.retryAfterSeconds) };
  send(res, route, options, status, { error: { code: name, message: connectError.rawMessage, ...errorDetailToJson(detail) } }, retryAfter);
}

async function readJsonBody(req: NodeRequest): Promise<unknown> {
  const contentType = String(req.headers["content-type"] ?? "")
    .split(";")[0]!
    .trim()
    .toLowerCase();
  if (contentType !== "application/json") throw new HttpStatusError(400, "invalid_argument", "content-type must be application/json");
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > MAX_JSON_BODY_BYTES) throw new HttpStatusError(413, "resource_exhausted", `body must be at most ${MAX_JSON_BODY_BYTES} bytes`);
  const body = await readBody(req, MAX_JSON_BODY_BYTES);
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    throw new HttpStatusError(400, "invalid_argument", "body is not valid JSON");
  }
}

/**
 * The request's body, read with plain stream events: a for-await loop builds an async iterator, its promises
 * and end-of-stream listeners for a body that is one chunk. Past `limit` it stops reading and leaves the rest
 * paused, so the 413 can still be written (the server drains or cuts what follows, see dual-protocol-server.ts).
 */
function readBody(req: NodeRequest, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onGone);
      req.off("close", onGone);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      stop();
      req.pause();
      reject(new HttpStatusError(413, "resource_exhausted", `body must be at most ${limit} bytes`));
    };
    const onEnd = () => {
      stop();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    // An error, or a close before the end: the client's stream failed, and nobody is left to answer.
    const onGone = (error?: unknown) => {
      stop();
      reject(new ClientGone("the client closed the request", { cause: error }));
    };
    // Only a caller that read or dropped the body before the route ran gets here without its events to come.
    if (req.destroyed) return onGone();
    if (req.readableEnded) return onEnd();
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onGone);
    req.on("close", onGone);
  });
}

function stringField(body: unknown, key: string): string {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw invalidArgument("body", "must be a JSON object");
  const value = (body as Record<string, unknown>)[key];
  if (typeof value !== "string") throw invalidArgument(key, value === undefined ? "is required" : "must be a string");
  return value;
}

function requireMethod(req: NodeRequest, method: "GET" | "POST"): void {
  if (req.method !== method) throw new HttpStatusError(405, "unimplemented", `use ${method}`, { allow: method });
}

export function createHttpRoutes(options: HttpRoutesOptions): HttpRoutes {
  const { gatehouse, devOtps } = options;
  const devMail = options.devMail ?? null;
  const tokenOf = (req: NodeRequest) => bearerToken(req.headers.authorization);

  const routes: Record<string, (req: NodeRequest, url: URL) => Promise<unknown>> = {
    "/api/browser/policy": async (req, url) => {
      requireMethod(req, "GET");
      return browserPolicyToJson(await gatehouse.browser.getBrowserPolicy(tokenOf(req), url.searchParams.get("org_id") ?? ""));
    },
    "/api/browser/check-url": async (req) => {
      requireMethod(req, "POST");
      const token = tokenOf(req);
      let input: { orgId: string; url: string };
      try {
        const body = await readJsonBody(req);
        input = { orgId: stringField(body, "org_id"), url: stringField(body, "url") };
      } catch (error) {
        // A bad token outranks a bad body, as when the token was resolved before the body was read.
        if (!(error instanceof ClientGone)) await gatehouse.authenticate(token);
        throw error;
      }
      return urlDecisionToJson(await gatehouse.browser.checkUrlAccess(token, input.orgId, input.url));
    },
    "/api/browser/org": async (req, url) => {
      requireMethod(req, "GET");
      return orgInfoToJson(await gatehouse.browser.getOrgInfo(tokenOf(req), url.searchParams.get("org_id") ?? ""));
    },
    "/api/dev/mfa/otp": async (req, url) => {
      if (devOtps === null) throw new HttpStatusError(404, "not_found", "not found");
      requireMethod(req, "GET");
      const otp = devOtps.get(url.searchParams.get("challenge_id") ?? "");
      if (otp === null) throw new HttpStatusError(404, "not_found", "no OTP for this challenge");
      return { otp, note: "dev OTP mode: this route does not exist in production" };
    },
    "/api/dev/mail": async (req, url) => {
      if (devMail === null) throw new HttpStatusError(404, "not_found", "not found");
      requireMethod(req, "GET");
      return devMailToJson(devMail.messagesFor(url.searchParams.get("to") ?? ""));
    },
  };

  return async (req, res, url = new URL(req.url ?? "/", "http://localhost")) => {
    const route = routes[url.pathname];
    if (route === undefined) return false;
    try {
      send(res, url.pathname, options, 200, await route(req, url));
    } catch (error) {
      sendError(res, error, url.pathname, options);
    }
    return true;
  };
}
