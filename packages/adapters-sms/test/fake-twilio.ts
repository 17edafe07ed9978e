import type { ServerResponse } from "node:http";
import { startFakeProvider, type FakeProvider, type RecordedRequest } from "./fake-provider.ts";

export const ACCOUNT_SID = "AC0123456789abcdef0123456789abcdef";
export const AUTH_TOKEN = "twilio_auth_token_5f4e3d2c1b";
export const API_KEY_SID = "SK0123456789abcdef0123456789abcdef";
export const API_KEY_SECRET = "twilio_api_secret_9a8b7c";
export const SERVICE_SID = "MG0123456789abcdef0123456789abcdef";

/** Scripted answers, one per request, before the documented behaviour takes over. */
export type Scripted = (response: ServerResponse, request: RecordedRequest) => void;

const ALLOWED_FIELDS = new Set(["To", "From", "MessagingServiceSid", "Body"]);

/**
 * Twilio's Messages API as documented: POST /2010-04-01/Accounts/{AccountSid}/Messages.json,
 * HTTP basic auth (AccountSid:AuthToken or ApiKeySid:ApiKeySecret), form-encoded To, From or
 * MessagingServiceSid, Body; 201 with the Message JSON, or an error JSON {code, message, more_info, status}.
 * A request with any other field name, or a missing one, is refused as Twilio would.
 */
export async function startFakeTwilio(scripted: Scripted[] = []): Promise<FakeProvider> {
  const queue = [...scripted];
  return startFakeProvider((response, request) => {
    const next = queue.shift();
    if (next !== undefined) {
      next(response, request);
      return;
    }
    answerAsTwilio(response, request);
  });
}

export function twilioError(response: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  response
    .writeHead(status, { "content-type": "application/json", ...headers })
    .end(JSON.stringify({ code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status }));
}

function answerAsTwilio(response: ServerResponse, request: RecordedRequest): void {
  if (request.method !== "POST" || request.url !== `/2010-04-01/Accounts/${ACCOUNT_SID}/Messages.json`) {
    twilioError(response, 404, 20404, "The requested resource was not found");
    return;
  }
  const allowed = [`${ACCOUNT_SID}:${AUTH_TOKEN}`, `${API_KEY_SID}:${API_KEY_SECRET}`].map((pair) => `Basic ${Buffer.from(pair).toString("base64")}`);
  if (!allowed.includes(request.headers.authorization ?? "")) {
    twilioError(response, 401, 20003, "Authenticate");
    return;
  }
  if (request.headers["content-type"] !== "application/x-www-form-urlencoded") {
    twilioError(response, 400, 20001, "Unsupported content type");
    return;
  }
  const form = new URLSearchParams(request.body);
  const unknown = [...form.keys()].find((key) => !ALLOWED_FIELDS.has(key));
  if (unknown !== undefined) {
    twilioError(response, 400, 20001, `Unknown parameter ${unknown}`);
    return;
  }
  const to = form.get("To");
  if (to === null) {
    twilioError(response, 400, 21604, "A 'To' phone number is required.");
    return;
  }
  if (!/^\+[1-9]\d{6,14}$/.test(to)) {
    twilioError(response, 400, 21211, `The 'To' number ${to} is not a valid phone number.`);
    return;
  }
  if ((form.get("From") === null) === (form.get("MessagingServiceSid") === null)) {
    twilioError(response, 400, 21603, "A 'From' or 'MessagingServiceSid' parameter is required.");
    return;
  }
  if ((form.get("Body") ?? "") === "") {
    twilioError(response, 400, 21602, "Message body is required.");
    return;
  }
  response.writeHead(201, { "content-type": "application/json" }).end(
    JSON.stringify({
      sid: "SM0123456789abcdef0123456789abcdef",
      account_sid: ACCOUNT_SID,
      to,
      from: form.get("From"),
      body: form.get("Body"),
      status: "queued",
    }),
  );
}
