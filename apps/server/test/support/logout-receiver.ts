/**
 * An RP's back-channel logout endpoint for tests: a local HTTP server that takes `logout_token` form posts,
 * verifies each against the issuer's keys as an RP must (OpenID Connect Back-Channel Logout 1.0 §2.6), and
 * hands them to whoever waits for the next one.
 */
import { createServer, type Server } from "node:http";
import * as jose from "jose";

export interface LogoutToken extends jose.JWTPayload {
  readonly sub: string;
  readonly events: Record<string, unknown>;
}

export interface LogoutReceiver {
  readonly url: string;
  /** The next verified logout token for `audience` (and `sub`, if given; one already received first), whatever came for others in between. */
  next(audience: string, sub?: string): Promise<LogoutToken>;
  close(): Promise<void>;
}

const EVENT = "http://schemas.openid.net/event/backchannel-logout";

export async function startLogoutReceiver(issuer: string): Promise<LogoutReceiver> {
  const keys = jose.createRemoteJWKSet(new URL(`${issuer}/oidc/jwks`));
  const received: string[] = [];
  const waiters: (() => void)[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const token = new URLSearchParams(Buffer.concat(chunks).toString("utf8")).get("logout_token");
      res.writeHead(token === null ? 400 : 200).end();
      if (token === null) return;
      received.push(token);
      for (const wake of waiters.splice(0)) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  const unread = (audience: string, sub: string | undefined): number =>
    received.findIndex((token) => {
      const claims = jose.decodeJwt(token);
      return claims.aud === audience && (sub === undefined || claims.sub === sub);
    });

  return {
    url: `http://127.0.0.1:${port}/backchannel-logout`,
    async next(audience, sub) {
      while (unread(audience, sub) === -1) await new Promise<void>((resolve) => waiters.push(resolve));
      const [token] = received.splice(unread(audience, sub), 1) as [string];
      const { payload } = await jose.jwtVerify(token, keys, { issuer, audience, algorithms: ["EdDSA"], typ: "logout+jwt" });
      if (typeof payload.sub !== "string" || typeof payload.events !== "object" || payload.events === null || !(EVENT in payload.events)) {
        throw new Error("not a logout token");
      }
      if ("nonce" in payload) throw new Error("a logout token carries no nonce");
      return payload as LogoutToken;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
