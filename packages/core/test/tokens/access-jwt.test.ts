import { describe, expect, it } from "vitest";
import { accessJwtClaims, type Session } from "../../src/index.ts";

const T = Date.UTC(2026, 0, 1, 12);
const session: Session = {
  id: "sess-1",
  userId: "user-1",
  orgId: "org-1",
  deviceId: "dev-1",
  accessTokenHash: "a",
  accessExpiresAt: T + 15 * 60_000,
  refreshTokenHash: "r",
  refreshExpiresAt: T + 86_400_000,
  createdAt: T - 3_600_000,
  expiresAt: T + 7 * 86_400_000,
  revokedAt: null,
  amr: ["pwd", "otp"],
  aal: 2,
  mfaAt: T - 60_000,
};
const input = { issuer: "https://id.example", audience: "https://api.example", clientId: "gatehouse", session, jti: "jti-1", now: T, ttlMs: 300_000 };

describe("access JWT claims (RFC 9068 §2.2)", () => {
  it("carries every required claim and Gatehouse's own, in seconds", () => {
    expect(accessJwtClaims(input)).toEqual({
      iss: "https://id.example",
      sub: "user-1",
      aud: "https://api.example",
      exp: (T + 300_000) / 1000,
      iat: T / 1000,
      jti: "jti-1",
      client_id: "gatehouse",
      sid: "sess-1",
      org_id: "org-1",
      acr: "urn:gatehouse:aal2",
      amr: ["pwd", "otp"],
      auth_time: (T - 60_000) / 1000,
    });
  });

  it.each([
    { why: "the session's absolute end", change: { expiresAt: T + 1_000 }, exp: T / 1000 + 1 },
    { why: "its refresh token's end", change: { refreshExpiresAt: T + 2_000 }, exp: T / 1000 + 2 },
  ])("never outlives $why", ({ change, exp }) => {
    expect(accessJwtClaims({ ...input, session: { ...session, ...change } }).exp).toBe(exp);
  });

  it("takes auth_time from the creation of a session without a second factor, and acr from its level", () => {
    const claims = accessJwtClaims({ ...input, session: { ...session, aal: 1, amr: ["pwd"], mfaAt: null } });
    expect(claims.auth_time).toBe((T - 3_600_000) / 1000);
    expect(claims.acr).toBe("urn:gatehouse:aal1");
  });
});
