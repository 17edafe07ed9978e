/**
 * One MFA flow over Connect's JSON protocol, each step timed: Login → GetOTP (the dev server's stand-in for the
 * phone) → VerifyMFA for an SMS user, Login → VerifyMFA with the app's code for a TOTP user.
 */
import { request, type Agent } from "node:http";
import { totpCodeAt } from "@gatehouse/core";

/** Flows per SMS user: a flow sends one OTP, and the per-phone send limit allows 5 per 15 minutes. */
export const FLOWS_PER_USER = 5;

export interface FlowStepTimes {
  readonly loginMs: number;
  readonly otpMs: number;
  readonly verifyMs: number;
}

/** Logs `user` in to `orgId` from a new device `fingerprint` (MFA required) and verifies the SMS or app code. */
export async function mfaFlowOnce(
  agent: Agent,
  base: URL,
  user: { readonly email: string; readonly password: string; readonly totpSecret?: string },
  orgId: string,
  fingerprint: string,
): Promise<FlowStepTimes> {
  const t0 = performance.now();
  const login = await connectCall(agent, base, "AuthService/Login", { email: user.email, password: user.password, orgId, deviceFingerprint: fingerprint });
  const t1 = performance.now();
  const challengeId = (login.mfaRequired as { challengeId?: string } | undefined)?.challengeId;
  if (challengeId === undefined) throw new Error(`expected mfaRequired, got ${JSON.stringify(login)}`);
  // The next time step's code: the enrolment used up the current one (a step is accepted once, ±1 step of drift).
  // No factor field for SMS (unspecified is SMS), so this flow also runs against checkouts from before factors.
  const [otp, factor] =
    user.totpSecret === undefined
      ? [((await connectCall(agent, base, "DevService/GetOTP", { challengeId })) as { otp: string }).otp, {}]
      : [totpCodeAt(user.totpSecret, Date.now() + 30_000), { factor: "MFA_FACTOR_TOTP" }];
  const t2 = performance.now();
  const tokens = await connectCall(agent, base, "AuthService/VerifyMFA", { challengeId, otp, ...factor });
  const t3 = performance.now();
  if (typeof tokens.accessToken !== "string") throw new Error("VerifyMFA returned no access token");
  return { loginMs: t1 - t0, otpMs: t2 - t1, verifyMs: t3 - t2 };
}

/** A request on `agent`'s keep-alive connection; resolves with the status and the body's text. */
export function httpCall(agent: Agent, base: URL, path: string, body?: string, localAddress?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers = body === undefined ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(body) };
    const options = { agent, host: base.hostname, port: base.port, method: body === undefined ? "GET" : "POST", path, headers, localAddress };
    const req = request(options, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text })).on("error", reject);
    });
    req.on("error", reject).end(body);
  });
}

async function connectCall(agent: Agent, base: URL, method: string, body: unknown): Promise<Record<string, unknown>> {
  const { status, text } = await httpCall(agent, base, `/gatehouse.v1.${method}`, JSON.stringify(body));
  if (status !== 200) throw new Error(`${method}: HTTP ${status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}
