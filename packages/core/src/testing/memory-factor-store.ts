import type { MemoryTables } from "./memory-transactions.ts";
import type { RecoveryCode, TotpFactor, WebAuthnChallenge, WebAuthnFactor } from "../model.ts";
import type { FactorStore } from "../ports.ts";
import { alreadyExists, compareText, copyOrNull, deleteWhere, keyOf } from "./memory-records.ts";

export function createFactorStore(tables: MemoryTables): FactorStore {
  const totp = tables.map<string, TotpFactor>();
  const recoveryCodes = tables.map<string, RecoveryCode>();
  const passkeys = tables.map<string, WebAuthnFactor>();
  const webauthnChallenges = tables.map<string, WebAuthnChallenge>();
  const codesOf = (userId: string) => [...recoveryCodes.values()].filter((code) => code.userId === userId).length;
  return {
    async createTotp(factor) {
      if (totp.has(factor.id)) throw alreadyExists();
      totp.set(factor.id, { ...factor });
    },
    async findTotp(id) {
      return copyOrNull(totp.get(id));
    },
    async listTotp(userId) {
      return [...totp.values()]
        .filter((factor) => factor.userId === userId)
        .sort((a, b) => a.createdAt - b.createdAt || compareText(a.id, b.id))
        .map((factor) => ({ ...factor }));
    },
    async confirmTotp(id, now) {
      const factor = totp.get(id);
      if (factor === undefined || factor.confirmedAt !== null) return false;
      totp.set(id, { ...factor, confirmedAt: now });
      return true;
    },
    async acceptTotpStep(id, step, now) {
      const factor = totp.get(id);
      if (factor === undefined || (factor.lastStep !== null && factor.lastStep >= step)) return false;
      totp.set(id, { ...factor, lastStep: step, lastUsedAt: now });
      return true;
    },
    async deleteTotp(userId, id) {
      if (totp.get(id)?.userId !== userId) return false;
      return totp.delete(id);
    },
    async replaceRecoveryCodes(userId, codes) {
      deleteWhere(recoveryCodes, (code) => code.userId === userId);
      for (const code of codes) recoveryCodes.set(keyOf(userId, code.codeHash), { ...code, userId });
    },
    async consumeRecoveryCode(userId, codeHash) {
      if (!recoveryCodes.delete(keyOf(userId, codeHash))) return null;
      return codesOf(userId);
    },
    async countRecoveryCodes(userId) {
      return codesOf(userId);
    },
    async createWebAuthn(factor) {
      if (passkeys.has(factor.id) || [...passkeys.values()].some((held) => held.credentialId === factor.credentialId)) throw alreadyExists();
      passkeys.set(factor.id, { ...factor, transports: [...factor.transports] });
    },
    async listWebAuthn(userId) {
      return [...passkeys.values()]
        .filter((factor) => factor.userId === userId)
        .sort((a, b) => a.createdAt - b.createdAt || compareText(a.id, b.id))
        .map((factor) => ({ ...factor }));
    },
    async findWebAuthnByCredentialId(credentialId) {
      return copyOrNull([...passkeys.values()].find((factor) => factor.credentialId === credentialId));
    },
    async acceptWebAuthnCounter(id, counter, backedUp, now) {
      const factor = passkeys.get(id);
      if (factor === undefined || !(factor.counter < counter || (factor.counter === 0 && counter === 0))) return false;
      passkeys.set(id, { ...factor, counter, backedUp, lastUsedAt: now });
      return true;
    },
    async deleteWebAuthn(userId, id) {
      if (passkeys.get(id)?.userId !== userId) return false;
      return passkeys.delete(id);
    },
    async putWebAuthnChallenge(challenge) {
      webauthnChallenges.set(challenge.id, { ...challenge });
    },
    async consumeWebAuthnChallenge(id, ceremony, now) {
      const challenge = webauthnChallenges.get(id);
      if (challenge === undefined || challenge.ceremony !== ceremony) return null;
      webauthnChallenges.delete(id);
      return challenge.expiresAt > now ? { ...challenge } : null;
    },
    async deleteAllByUser(userId) {
      deleteWhere(webauthnChallenges, (challenge) => challenge.userId === userId);
      return (
        deleteWhere(totp, (factor) => factor.userId === userId) +
        deleteWhere(passkeys, (factor) => factor.userId === userId) +
        deleteWhere(recoveryCodes, (code) => code.userId === userId)
      );
    },
  };
}
