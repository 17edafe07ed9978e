/**
 * The provider's interactions, answered by Gatehouse: `GET /oidc/interaction/:uid` is a small page that
 * hands the web client's session (kept in this tab's sessionStorage) to `POST` on the same URL, which
 * finishes the interaction from that session: a live Gatehouse session of the client's org, as fresh as
 * the RP's `max_age` asks and at the `acr_values` it asks, with consent for third-party clients.
 * The bearer token travels in a header a cross-site form cannot set, so the POST needs no CSRF token.
 */
import { createHash } from "node:crypto";
import { isGatehouseError, type Gatehouse } from "@gatehouse/core";
import type { NodeResponse as Writable } from "@gatehouse/transport-connect";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Http2ServerRequest, Http2ServerResponse } from "node:http2";
import type Provider from "oidc-provider";
import { GRANT_TTL_S, orgOfClient } from "./provider.ts";

const MAX_BODY_BYTES = 1024;

type NodeRequest = IncomingMessage | Http2ServerRequest;
type NodeResponse = ServerResponse | Http2ServerResponse;

/** Reads the web client's session and posts it; the page's one script, allowed by its hash. */
const SCRIPT = `
const status = document.getElementById("status");
const raw = sessionStorage.getItem("gatehouse.session");
let token = "";
try { token = raw === null ? "" : String(JSON.parse(raw).accessToken ?? ""); } catch { token = ""; }
async function finish(consent) {
  const response = await fetch(location.pathname, { method: "POST", headers: { authorization: "Bearer " + token, "content-type": "application/json" }, body: JSON.stringify({ consent }) });
  const body = await response.json();
  if (body.redirect_to) { location.assign(body.redirect_to); return; }
  if (body.error === "consent_required") { document.getElementById("consent").hidden = false; status.textContent = "This app asks for: " + body.scopes.join(", "); return; }
  status.textContent = body.error_description ?? "Sign-in refused.";
  document.getElementById("signin").hidden = false;
}
document.getElementById("allow").addEventListener("click", () => void finish(true));
if (token === "") { status.textContent = "Sign in to Gatehouse in this tab first, then reload this page."; document.getElementById("signin").hidden = false; }
else void finish(false);
`;
const SCRIPT_HASH = createHash("sha256").update(SCRIPT).digest("base64");

function page(): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign in with Gatehouse</title></head><body><main><h1>Sign in with Gatehouse</h1><p id="status" role="status">Checking your Gatehouse session…</p><p id="signin" hidden><a href="/" target="_blank">Sign in to Gatehouse</a></p><p id="consent" hidden><button id="allow" type="button">Allow</button></p></main><script>${SCRIPT}</script></body></html>`;
}

const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "content-security-policy": `default-src 'none'; script-src 'sha256-${SCRIPT_HASH}'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`,
};
const JSON_HEADERS = { "content-type": "application/json", "cache-control": "no-store", "x-content-type-options": "nosniff" };

function answer(res: Writable, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...JSON_HEADERS, "content-length": String(Buffer.byteLength(text)) });
  res.end(text);
}

function sendPage(res: Writable): void {
  const html = page();
  res.writeHead(200, { ...PAGE_HEADERS, "content-length": String(Buffer.byteLength(html)) });
  res.end(html);
}

async function readConsent(req: NodeRequest): Promise<boolean | null> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(chunk);
  }
  if (size === 0) return false;
  try {
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
    return typeof body === "object" && body !== null && (body as { consent?: unknown }).consent === true;
  } catch {
    return null;
  }
}

function bearer(header: string | undefined): string {
  return /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? "")?.[1] ?? "";
}

export interface InteractionDeps {
  readonly gatehouse: Gatehouse;
  readonly provider: () => Promise<Provider>;
  readonly now: () => number;
}

/** Serves `GET` and `POST /oidc/interaction/:uid`. */
export async function serveInteraction(deps: InteractionDeps, uid: string, req: NodeRequest, res: NodeResponse): Promise<void> {
  const provider = await deps.provider();
  let details: Awaited<ReturnType<Provider["interactionDetails"]>>;
  try {
    details = await provider.interactionDetails(req, res);
  } catch {
    return answer(res, 400, {
      error: "invalid_request",
      error_description: "this sign-in has expired or belongs to another browser; start again from the app",
    });
  }
  if (details.uid !== uid) return answer(res, 400, { error: "invalid_request", error_description: "interaction mismatch" });
  if (req.method === "GET") {
    return sendPage(res);
  }
  if (req.method !== "POST") return answer(res, 405, { error: "invalid_request", error_description: "GET or POST" });

  const consent = await readConsent(req);
  if (consent === null) return answer(res, 400, { error: "invalid_request", error_description: 'the body is JSON such as {"consent": true}' });
  const clientId = String(details.params.client_id);
  const client = await provider.Client.find(clientId);
  const orgId = orgOfClient(client);
  if (client === undefined || orgId === null) return answer(res, 400, { error: "invalid_client" });

  let signIn;
  try {
    signIn = await deps.gatehouse.oidc.signInFromSession(bearer(req.headers.authorization), orgId, clientId);
  } catch (error) {
    if (isGatehouseError(error) && error.kind === "unauthenticated") {
      return answer(res, 401, { error: "login_required", error_description: "sign in to Gatehouse as a member of this app's organization" });
    }
    throw error;
  }
  const maxAge = details.params.max_age === undefined ? undefined : Number(details.params.max_age);
  if (maxAge !== undefined && Math.floor(deps.now() / 1000) - signIn.authTime > maxAge) {
    return answer(res, 401, { error: "login_required", error_description: "the app asks for a fresher sign-in: sign in to Gatehouse again" });
  }
  const acrValues = typeof details.params.acr_values === "string" ? details.params.acr_values.split(" ") : [];
  if (acrValues.length > 0 && !acrValues.includes(signIn.acr)) {
    return answer(res, 403, { error: "insufficient_assurance", error_description: "the app asks for a second factor this session has not verified" });
  }
  const scopes = String(details.params.scope ?? "")
    .split(" ")
    .filter((scope) => scope !== "");
  if (client.metadata().first_party !== true && !consent) return answer(res, 409, { error: "consent_required", scopes });

  const existing = details.grantId === undefined ? undefined : await provider.Grant.find(details.grantId);
  const grant = existing?.accountId === signIn.accountId ? existing : new provider.Grant({ accountId: signIn.accountId, clientId });
  grant.addOIDCScope(scopes.join(" "));
  const grantId = await grant.save();
  await deps.gatehouse.oidc.bindGrant(grantId, signIn.sessionId, deps.now() + GRANT_TTL_S * 1000);
  const redirectTo = await provider.interactionResult(
    req,
    res,
    { login: { accountId: signIn.accountId, acr: signIn.acr, amr: [...signIn.amr], ts: signIn.authTime, remember: false }, consent: { grantId } },
    { mergeWithLastSubmission: false },
  );
  answer(res, 200, { redirect_to: redirectTo });
}
