/** One MFA flow over Connect's JSON protocol, as a dev-OTP server answers it: Login → GetOTP → VerifyMFA, each step timed. */
import { request, type Agent } from "node:http";

/** Flows per bench user: a flow sends one OTP, and the per-phone send limit allows 5 per 15 minutes. */
export const FLOWS_PER_USER = 5;

export interface FlowStepTimes {
  readonly loginMs: number;
  readonly otpMs: number;
  readonly verifyMs: number;
}

/** Logs `user` in to `orgId` from a new device `fingerprint` (MFA required), fetches the dev OTP and verifies it. */
export async function mfaFlowOnce(
  agent: Agent,
  base: URL,
  user: { readonly email: string; readonly password: string },
  orgId: string,
  fingerprint: string,
): Promise<FlowStepTimes> {
  const t0 = performance.now();
  const login = await connectCall(agent, base, "gatehouse.v1.AuthService/Login", {
    email: user.email,
    password: user.password,
    orgId,
    deviceFingerprint: fingerprint,
  });
  const t1 = performance.now();
  const challengeId = (login.mfaRequired as { challengeId?: string } | undefined)?.challengeId;
  if (challengeId === undefined) throw new Error(`expected mfaRequired, got ${JSON.stringify(login)}`);
  const { otp } = (await connectCall(agent, base, "gatehouse.v1.DevService/GetOTP", { challengeId })) as { otp: string };
  const t2 = performance.now();
  const tokens = await connectCall(agent, base, "gatehouse.v1.AuthService/VerifyMFA", { challengeId, otp });
  const t3 = performance.now();
  if (typeof tokens.accessToken !== "string") throw new Error("VerifyMFA returned no access token");
  return { loginMs: t1 - t0, otpMs: t2 - t1, verifyMs: t3 - t2 };
}

/** Connect unary call with a JSON body over one keep-alive connection. */
function connectCall(agent: Agent, base: URL, method: string, body: unknown): Promise<Record<string, unknown>> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        host: base.hostname,
        port: base.port,
        method: "POST",
        path: `/${method}`,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          if (res.statusCode !== 200) reject(new Error(`${method}: HTTP ${res.statusCode} ${text}`));
          else resolve(JSON.parse(text) as Record<string, unknown>);
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}
