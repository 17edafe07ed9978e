/**
 * The provider's interactions, answered by Gatehouse and shown by the web client: `GET /oidc/interaction/:uid`
 * sends the browser to the web client's `/authorize/:uid`, which reads the interaction (`GET` asking for JSON:
 * the client, its org, the scopes) and finishes it with `POST` on the same URL carrying the web client's session
 * as a bearer token: a live Gatehouse session of the client's org, as fresh as the RP's `max_age` asks and at
 * the `acr_values` it asks (or what is missing: a step-up, a passkey sign-in), with consent for third-party
 * clients. The interaction cookie is scoped to this path, so only this browser's flow reads or finishes it; the
 * bearer token travels in a header a cross-site form cannot set, so the POST needs no CSRF token.
 */
import { isGatehouseError, type Gatehouse } from "@gatehouse/core";
import type { NodeResponse as Writable } from "@gatehouse/transport-connect";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Http2ServerRequest, Http2ServerResponse } from "node:http2";
import type Provider from "oidc-provider";
import { GRANT_TTL_S, orgOfClient } from "./provider.ts";

const MAX_BODY_BYTES = 1024;
/** The web client's page for an interaction (apps/web/src/pages/authorize). */
export const AUTHORIZE_PAGE_PREFIX = "/authorize/";

type NodeRequest = IncomingMessage | Http2ServerRequest;
type NodeResponse = ServerResponse | Http2ServerResponse;

const JSON_HEADERS = { "content-type": "application/json", "cache-control": "no-store", "x-content-type-options": "nosniff" };

function answer(res: Writable, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...JSON_HEADERS, "content-length": String(Buffer.byteLength(text)) });
  res.end(text);
}

function seeOther(res: Writable, location: string): void {
  res.writeHead(303, { location, "cache-control": "no-store", "content-length": "0" });
  res.end("");
}

/** The member's answer: `{}` to sign in, `{"consent": true}` once they allowed the app, `{"deny": true}` to refuse it. */
interface Decision {
  readonly consent: boolean;
  readonly deny: boolean;
}

async function readDecision(req: NodeRequest): Promise<Decision | null> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(chunk);
  }
  if (size === 0) return { consent: false, deny: false };
  try {
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
    if (typeof body !== "object" || body === null) return null;
    const { consent, deny } = body as { consent?: unknown; deny?: unknown };
    return { consent: consent === true, deny: deny === true };
  } catch {
    return null;
  }
}

function scopesOf(params: Record<string, unknown>): string[] {
  return String(params.scope ?? "")
    .split(" ")
    .filter((scope) => scope !== "");
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
  const clientId = String(details.params.client_id);
  const client = await provider.Client.find(clientId);
  const orgId = orgOfClient(client);
  if (client === undefined || orgId === null) return answer(res, 400, { error: "invalid_client" });
  const firstParty = client.metadata().first_party === true;
  const scopes = scopesOf(details.params);

  if (req.method === "GET") {
    if (!(req.headers.accept ?? "").includes("application/json")) {
      return seeOther(res, `${AUTHORIZE_PAGE_PREFIX}${uid}`);
    }
    const org = await deps.gatehouse.oidc.clientOrg(orgId);
    if (org === null) return answer(res, 400, { error: "invalid_client" });
    return answer(res, 200, {
      client_name: client.clientName ?? clientId,
      first_party: firstParty,
      scopes,
      org: { id: org.orgId, name: org.name, slug: org.slug },
    });
  }
  if (req.method !== "POST") return answer(res, 405, { error: "invalid_request", error_description: "GET or POST" });

  const decision = await readDecision(req);
  if (decision === null) return answer(res, 400, { error: "invalid_request", error_description: 'the body is JSON such as {"consent": true}' });
  if (decision.deny) {
    const redirectTo = await provider.interactionResult(
      req,
      res,
      { error: "access_denied", error_description: "the member refused" },
      { mergeWithLastSubmission: false },
    );
    return answer(res, 200, { redirect_to: redirectTo });
  }

  let outcome;
  try {
    const maxAge = details.params.max_age === undefined ? undefined : Number(details.params.max_age);
    const acrValues = typeof details.params.acr_values === "string" ? details.params.acr_values.split(" ") : [];
    outcome = await deps.gatehouse.oidc.signInFromSession(bearer(req.headers.authorization), { orgId, clientId, acrValues, maxAge });
  } catch (error) {
    if (isGatehouseError(error) && error.kind === "unauthenticated") {
      return answer(res, 401, { error: "login_required", error_description: "sign in to Gatehouse as a member of this app's organization" });
    }
    throw error;
  }
  switch (outcome.kind) {
    case "step_up":
      return answer(res, 401, { error: "step_up_required", reason: outcome.reason, error_description: "the app asks for a fresh second factor" });
    case "passkey_sign_in":
      return answer(res, 401, { error: "passkey_required", error_description: "the app asks for a sign-in with a passkey" });
    case "unmet": {
      const redirectTo = await provider.interactionResult(
        req,
        res,
        { error: "unmet_authentication_requirements", error_description: "the member cannot meet the authentication the app asks for" },
        { mergeWithLastSubmission: false },
      );
      return answer(res, 200, { redirect_to: redirectTo });
    }
    case "signed_in":
      break;
  }
  const { signIn } = outcome;
  if (!firstParty && !decision.consent) return answer(res, 409, { error: "consent_required", scopes });

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
