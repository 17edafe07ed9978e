import type { MemoryTables } from "./memory-transactions.ts";
import type { EpochMs, Session } from "../model.ts";
import type { SessionStore } from "../ports.ts";
import { alreadyExists, compareText, deleteWhere, inScope } from "./memory-records.ts";

interface RetiredRefreshToken {
  readonly sessionId: string;
  /** Reuse is detected until the token that replaced this one expires, as in the SQL adapters. */
  readonly expiresAt: EpochMs;
  /** The refresh token hash that replaced this one: a replay is answered only while it is current. */
  readonly successorHash: string;
  /** Until when a replay gets the sealed successor instead of revoking. */
  readonly replayUntil: EpochMs;
  readonly sealedSuccessor: string | null;
}

export function createSessionStore(tables: MemoryTables): { store: SessionStore; deviceIds: () => ReadonlySet<string> } {
  const sessions = tables.map<string, Session>();
  const retired = tables.map<string, RetiredRefreshToken>();
  const tokenTaken = (accessTokenHash: string, refreshTokenHash: string, exceptId: string | null) =>
    [...sessions.values()].some(
      (session) => session.id !== exceptId && (session.accessTokenHash === accessTokenHash || session.refreshTokenHash === refreshTokenHash),
    );
  const revokeIfActive = (session: Session | undefined, now: EpochMs): boolean => {
    if (session === undefined || session.revokedAt !== null) return false;
    sessions.set(session.id, { ...session, revokedAt: now });
    return true;
  };
  const store: SessionStore = {
    async create(session) {
      if (sessions.has(session.id) || tokenTaken(session.accessTokenHash, session.refreshTokenHash, null)) throw alreadyExists();
      sessions.set(session.id, { ...session });
    },
    async findActiveByAccessTokenHash(accessTokenHash, now) {
      const session = [...sessions.values()].find((candidate) => candidate.accessTokenHash === accessTokenHash);
      return session !== undefined && session.revokedAt === null && session.accessExpiresAt > now ? { ...session } : null;
    },
    async listActiveByUser(orgId, userId, now) {
      return [...sessions.values()]
        .filter((s) => s.orgId === orgId && s.userId === userId && s.revokedAt === null && s.refreshExpiresAt > now && s.expiresAt > now)
        .sort((a, b) => b.createdAt - a.createdAt || compareText(b.id, a.id))
        .map((session) => ({ ...session, amr: [...session.amr] }));
    },
    async recordStepUp(sessionId, proof, next, now) {
      const session = sessions.get(sessionId);
      if (session === undefined || session.revokedAt !== null || session.expiresAt <= now) return null;
      if (tokenTaken(next.accessTokenHash, next.refreshTokenHash, sessionId)) throw alreadyExists();
      const stepped: Session = {
        ...session,
        ...next,
        accessExpiresAt: Math.min(next.accessExpiresAt, session.expiresAt),
        refreshExpiresAt: Math.min(next.refreshExpiresAt, session.expiresAt),
        amr: [...proof.amr],
        aal: proof.aal,
        mfaAt: proof.mfaAt,
      };
      sessions.set(sessionId, stepped);
      return { ...stepped };
    },
    async rotate(refreshTokenHash, next, now, replay) {
      const isLive = (session: Session | undefined): session is Session =>
        session !== undefined && session.revokedAt === null && session.refreshExpiresAt > now && session.expiresAt > now;
      const current = [...sessions.values()].find((session) => session.refreshTokenHash === refreshTokenHash);
      if (isLive(current)) {
        if (tokenTaken(next.accessTokenHash, next.refreshTokenHash, current.id)) throw alreadyExists();
        const rotated: Session = {
          ...current,
          ...next,
          accessExpiresAt: Math.min(next.accessExpiresAt, current.expiresAt),
          refreshExpiresAt: Math.min(next.refreshExpiresAt, current.expiresAt),
        };
        sessions.set(rotated.id, rotated);
        retired.set(refreshTokenHash, {
          sessionId: rotated.id,
          expiresAt: rotated.refreshExpiresAt,
          successorHash: next.refreshTokenHash,
          replayUntil: now + (replay?.reuseIntervalMs ?? 0),
          sealedSuccessor: replay?.sealedSuccessor ?? null,
        });
        return { kind: "rotated", session: { ...rotated } };
      }
      const reused = retired.get(refreshTokenHash);
      if (reused === undefined || reused.expiresAt <= now) return { kind: "invalid" };
      const session = sessions.get(reused.sessionId);
      if (session === undefined) return { kind: "invalid" };
      if (reused.replayUntil > now && reused.sealedSuccessor !== null && isLive(session) && session.refreshTokenHash === reused.successorHash) {
        return { kind: "replayed", session: { ...session }, sealedSuccessor: reused.sealedSuccessor };
      }
      revokeIfActive(session, now);
      return { kind: "reused", sessionId: session.id, userId: session.userId, orgId: session.orgId, deviceId: session.deviceId };
    },
    async revoke(sessionId, now) {
      return revokeIfActive(sessions.get(sessionId), now);
    },
    async revokeByUser(userId, now, scope = {}) {
      let revoked = 0;
      for (const session of sessions.values()) {
        const live = session.accessExpiresAt > now || session.refreshExpiresAt > now;
        const reached = session.userId === userId && inScope(session.orgId, session.id, scope.orgId, scope.keepSessionId);
        if (reached && live && revokeIfActive(session, now)) revoked++;
      }
      return revoked;
    },
    async revokeByDevice(deviceId, now) {
      let revoked = 0;
      for (const session of sessions.values()) {
        const live = session.accessExpiresAt > now || session.refreshExpiresAt > now;
        if (session.deviceId === deviceId && live && revokeIfActive(session, now)) revoked++;
      }
      return revoked;
    },
    async deleteEnded(now) {
      const detecting = new Set([...retired.values()].filter((token) => token.expiresAt > now).map((token) => token.sessionId));
      const ended = (session: Session) => session.revokedAt !== null || session.refreshExpiresAt <= now || session.expiresAt <= now;
      const deleted = deleteWhere(sessions, (session) => ended(session) && !detecting.has(session.id));
      deleteWhere(retired, (token) => !sessions.has(token.sessionId));
      return deleted;
    },
  };
  return { store, deviceIds: () => new Set([...sessions.values()].map((session) => session.deviceId)) };
}
