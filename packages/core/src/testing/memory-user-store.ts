import type { MemoryTables } from "./memory-transactions.ts";
import type { User } from "../model.ts";
import type { UserStore } from "../ports.ts";
import { alreadyExists, compareText, copyOrNull } from "./memory-records.ts";

export function createUserStore(tables: MemoryTables): UserStore {
  const users = tables.map<string, User>();
  const findByEmail = (email: string) => [...users.values()].find((user) => user.email === email);
  return {
    async create(user) {
      if (users.has(user.id) || findByEmail(user.email) !== undefined) throw alreadyExists();
      users.set(user.id, { ...user, disabledAt: user.disabledAt ?? null });
    },
    async findById(id) {
      return copyOrNull(users.get(id));
    },
    async findByEmail(email) {
      return copyOrNull(findByEmail(email));
    },
    async list() {
      return [...users.values()].sort((a, b) => a.createdAt - b.createdAt || compareText(a.id, b.id)).map((user) => ({ ...user }));
    },
    async clearPhone(userId) {
      const user = users.get(userId);
      if (user === undefined || (user.phone === null && !user.phoneVerified)) return false;
      users.set(userId, { ...user, phone: null, phoneVerified: false });
      return true;
    },
    async setVerifiedPhone(userId, phone) {
      const user = users.get(userId);
      if (user === undefined || user.phoneVerified) return false;
      users.set(userId, { ...user, phone, phoneVerified: true });
      return true;
    },
    async replacePasswordHash(userId, expectedHash, newHash) {
      const user = users.get(userId);
      if (user === undefined || user.passwordHash !== expectedHash) return false;
      users.set(userId, { ...user, passwordHash: newHash });
      return true;
    },
    async setDisabled(userId, disabledAt) {
      const user = users.get(userId);
      if (user === undefined || (user.disabledAt != null) === (disabledAt !== null)) return false;
      users.set(userId, { ...user, disabledAt });
      return true;
    },
    async setPasswordHash(userId, newHash) {
      const user = users.get(userId);
      if (user === undefined) return false;
      users.set(userId, { ...user, passwordHash: newHash });
      return true;
    },
    async markEmailVerified(userId, now) {
      const user = users.get(userId);
      if (user === undefined || user.emailVerifiedAt !== null) return false;
      users.set(userId, { ...user, emailVerifiedAt: now });
      return true;
    },
    async reclaimUnverified(userId, newHash, now) {
      const user = users.get(userId);
      if (user === undefined || user.emailVerifiedAt !== null) return false;
      users.set(userId, { ...user, passwordHash: newHash, displayName: "", phone: null, phoneVerified: false, emailVerifiedAt: now });
      return true;
    },
    async restartRegistration(userId, newHash, displayName) {
      const user = users.get(userId);
      if (user === undefined || user.emailVerifiedAt !== null) return false;
      users.set(userId, { ...user, passwordHash: newHash, displayName });
      return true;
    },
  };
}
