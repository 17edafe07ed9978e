/**
 * The browser-facing JSON routes of api.md, served beside Connect on the same port. They call
 * the same core as BrowserService and map errors through the same code table.
 */
import type { IncomingMessage } from "node:http";
import type { Http2ServerRequest } from "node:http2";
import { browserPolicyToJson, errorDetailFor, errorDetailToJson, extensionPolicyToJson, orgInfoToJson, urlDecisionToJson } from "@gatehouse/contract";
import { EXTENSION_VERSION_HEADER, GatehouseError, invalidArgument, type Gatehouse, type Principal } from "@gatehouse/core";
import { bearerToken } from "./bearer.ts";
import type { BodyBudget } from "./body-budget.ts";
import { SMALL_BODY_BYTES } from "./body-limits.ts";
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

/** A check-url body is a URL (≤ 8 KiB) and an org id; anything larger is refused unread. */
export const MAX_JSON_BODY_BYTES = SMALL_BODY_BYTES;

/**
 * Every API answer: a JSON body must never be sniffed into something a browser renders, and no cache may keep
 * one (tokens, recovery codes, policies); a route that allows revalidation says so over it (the policy's ETag).
 */
export const API_HEADERS: Readonly<Record<string, string>> = { "x-content-type-options": "nosniff", "cache-control": "no-store" };

/**
 * Writes a whole JSON answer with its length: headers written before the body would otherwise send it chunked, and a
 * client could find its end only by decoding the chunks.
 */
export function writeJson(res: NodeResponse, status: number, body: unknown, headers: Record<string, string>): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, "content-length": String(Buffer.byteLength(text)) });
  res.end(text);
}

export interface HttpRoutesOptions {
  readonly gatehouse: Gatehouse;
  /** Present only in dev OTP mode with NEXT_PUBLIC_DEV_OTP_ENABLED; otherwise the dev route is 404. */
  readonly devOtps: DevOtpLookup | null;
  /** Present only with `devOtps` (the same switch); otherwise the dev mail route is 404. */
  readonly devMail?: DevMailLookup | null;
  readonly onUnexpected: (error: unknown, route: string) => void;
  /** The client hung up while its body was being read: routine, worth a debug line at most. */
  readonly onClientGone: (route: string) => void;
  /** Bytes of request bodies the process reads at once (shared with the RPC handler). */
  readonly bodyBudget: BodyBudget;
}

/**
 * Handles the request and returns true when the path is one of ours; false lets the caller serve it. `url` is
 * the request's URL when the caller has parsed it already (against any base: only its path and query are read).
 */
export type HttpRoutes = (req: NodeRequest, res: NodeResponse, url?: URL) => Promise<boolean>;

export class HttpStatusError extends Error {
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
export class ClientGone extends Error {}

/** A route's answer: its body, and headers beside the JSON ones; a null body is a 304. */
interface Answer {
  readonly body: unknown;
  readonly status?: number;
  readonly headers?: Record<string, string>;
}

function send(res: NodeResponse, route: string, options: HttpRoutesOptions, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const allHeaders = { "content-type": "application/json; charset=utf-8", ...API_HEADERS, ...headers };
  try {
    // A 304 has no body, and a length it stated would have to be the 200's (RFC 9110 §8.6).
    if (status !== 304) return writeJson(res, status, body, allHeaders);
    res.writeHead(status, allHeaders);
    res.end("");
  } catch (error) {
    options.onUnexpected(error, route);
  }
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

async function readJsonBody(req: NodeRequest, budget: BodyBudget): Promise<unknown> {
  const contentType = String(req.headers["content-type"] ?? "")
    .split(";")[0]!
    .trim()
    .toLowerCase();
  if (contentType !== "application/json") throw new HttpStatusError(400, "invalid_argument", "content-type must be application/json");
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > MAX_JSON_BODY_BYTES) throw new HttpStatusError(413, "resource_exhausted", `body must be at most ${MAX_JSON_BODY_BYTES} bytes`);
  // The declared length, or the cap when none is declared (chunked, HTTP/2): what the read may hold at most.
  const release = budget.reserve(declared > 0 ? declared : MAX_JSON_BODY_BYTES);
  if (release === null) throw new HttpStatusError(503, "unavailable", "the server is reading too many requests; retry shortly", { "retry-after": "1" });
  let body: Buffer;
  try {
    body = await readBody(req, MAX_JSON_BODY_BYTES);
  } finally {
    release();
  }
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
export function readBody(req: NodeRequest, limit: number): Promise<Buffer> {
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

/** `If-None-Match` names `etag` (or is `*`); weak and strong forms compare alike, as RFC 9110 §13.1.2 says for GET. */
function matchesEtag(header: string | string[] | undefined, etag: string): boolean {
  const value = Array.isArray(header) ? header.join(",") : (header ?? "");
  return value.split(",").some((tag) => {
    const trimmed = tag.trim();
    return trimmed === "*" || (trimmed.startsWith("W/") ? trimmed.slice(2) : trimmed) === etag;
  });
}

export function createHttpRoutes(options: HttpRoutesOptions): HttpRoutes {
  const { gatehouse, devOtps } = options;
  // Every browser route authenticates before it reads a body or a query (nothing is decoded for an unknown caller).
  const principalOf = (req: NodeRequest): Promise<Principal> => gatehouse.authenticate(bearerToken(req.headers.authorization));
  const devMail = options.devMail ?? null;

  const routes: Record<string, (req: NodeRequest, url: URL) => Promise<Answer>> = {
    "/api/browser/policy": async (req, url) => {
      requireMethod(req, "GET");
      const { policy, version } = await gatehouse.getBrowserPolicy(await principalOf(req), url.searchParams.get("org_id") ?? "");
      // The version names the policy: a client that holds it is told so instead of sent the whole list again.
      const etag = `"${version}"`;
      const headers = { etag, "cache-control": "private, no-cache" };
      if (matchesEtag(req.headers["if-none-match"], etag)) return { body: null, status: 304, headers };
      return { body: browserPolicyToJson(policy), headers };
    },
    "/api/browser/extension-rules": async (req, url) => {
      requireMethod(req, "GET");
      const principal = await principalOf(req);
      const version = req.headers[EXTENSION_VERSION_HEADER];
      const policy = await gatehouse.getExtensionPolicy(principal, {
        orgId: url.searchParams.get("org_id") ?? "",
        extensionVersion: Array.isArray(version) ? version.join(",") : version,
      });
      // The browser extension polls with the version it holds: unchanged, it is told so in a few bytes. The grace is an
      // org setting, not part of the policy's version, so the tag names both.
      const etag = `"${policy.version}.${policy.graceMinutes}"`;
      const headers = { etag, "cache-control": "private, no-cache" };
      if (matchesEtag(req.headers["if-none-match"], etag)) return { body: null, status: 304, headers };
      return { body: extensionPolicyToJson(policy), headers };
    },
    "/api/browser/check-url": async (req) => {
      requireMethod(req, "POST");
      const principal = await principalOf(req);
      const body = await readJsonBody(req, options.bodyBudget);
      return { body: urlDecisionToJson(await gatehouse.checkUrlAccess(principal, stringField(body, "org_id"), stringField(body, "url"))) };
    },
    "/api/browser/org": async (req, url) => {
      requireMethod(req, "GET");
      return { body: orgInfoToJson(await gatehouse.getOrgInfo(await principalOf(req), url.searchParams.get("org_id") ?? "")) };
    },
    "/api/dev/mfa/otp": async (req, url) => {
      if (devOtps === null) throw new HttpStatusError(404, "not_found", "not found");
      requireMethod(req, "GET");
      const otp = devOtps.get(url.searchParams.get("challenge_id") ?? "");
      if (otp === null) throw new HttpStatusError(404, "not_found", "no OTP for this challenge");
      return { body: { otp, note: "dev OTP mode: this route does not exist in production" } };
    },
    "/api/dev/mail": async (req, url) => {
      if (devMail === null) throw new HttpStatusError(404, "not_found", "not found");
      requireMethod(req, "GET");
      return { body: devMailToJson(devMail.messagesFor(url.searchParams.get("to") ?? "")) };
    },
  };

  return async (req, res, url = new URL(req.url ?? "/", "http://localhost")) => {
    const route = routes[url.pathname];
    if (route === undefined) return false;
    try {
      const answer = await route(req, url);
      send(res, url.pathname, options, answer.status ?? 200, answer.body, answer.headers);
    } catch (error) {
      sendError(res, error, url.pathname, options);
    }
    return true;
  };
}
