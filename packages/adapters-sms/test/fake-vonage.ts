import type { ServerResponse } from "node:http";
import { startFakeProvider, type FakeProvider, type RecordedRequest } from "./fake-provider.ts";
import type { Scripted } from "./fake-twilio.ts";

export const VONAGE_KEY = "abcd1234";
export const VONAGE_SECRET = "vonage_secret_0123456789";

/** One message part's answer, as Vonage's SMS API sends it (HTTP 200 whatever the status). */
export function vonageAnswer(response: ServerResponse, status: string, extra: Record<string, string> = {}): void {
  const message =
    status === "0"
      ? { to: extra["to"] ?? "", "message-id": "0C000000F00ABD35", status, "remaining-balance": "3.14", "message-price": "0.03", network: "12345" }
      : { status, "error-text": extra["error-text"] ?? "error" };
  response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ "message-count": "1", messages: [message] }));
}

/**
 * Vonage's SMS API as documented: POST /sms/json, form-encoded api_key, api_secret, from, to
 * (digits, no +), text. Always HTTP 200; `messages[].status` "0" is success, "2" missing
 * parameters, "3" invalid parameters, "4" invalid credentials.
 */
export async function startFakeVonage(scripted: Scripted[] = []): Promise<FakeProvider> {
  const queue = [...scripted];
  return startFakeProvider((response, request) => {
    const next = queue.shift();
    if (next !== undefined) {
      next(response, request);
      return;
    }
    answerAsVonage(response, request);
  });
}

function answerAsVonage(response: ServerResponse, request: RecordedRequest): void {
  if (request.method !== "POST" || request.url !== "/sms/json") {
    response.writeHead(404).end();
    return;
  }
  if (request.headers["content-type"] !== "application/x-www-form-urlencoded") {
    vonageAnswer(response, "2", { "error-text": "Missing api_key" });
    return;
  }
  const form = new URLSearchParams(request.body);
  const missing = ["api_key", "api_secret", "from", "to", "text"].find((field) => (form.get(field) ?? "") === "");
  if (missing !== undefined) {
    vonageAnswer(response, "2", { "error-text": `Missing ${missing}` });
    return;
  }
  if (form.get("api_key") !== VONAGE_KEY || form.get("api_secret") !== VONAGE_SECRET) {
    vonageAnswer(response, "4", { "error-text": "Bad Credentials" });
    return;
  }
  const to = form.get("to")!;
  if (!/^[1-9]\d{6,14}$/.test(to)) {
    vonageAnswer(response, "3", { "error-text": `Invalid to address ${to}` });
    return;
  }
  vonageAnswer(response, "0", { to });
}
