import type { MemoryTables } from "./memory-transactions.ts";
import type { Invitation } from "../model.ts";
import type { InvitationStore } from "../ports.ts";
import { alreadyExists, compareText } from "./memory-records.ts";

export function createInvitationStore(tables: MemoryTables): InvitationStore {
  const invitations = tables.map<string, Invitation>();
  const byTokenHash = (tokenHash: string) => [...invitations.values()].find((invitation) => invitation.tokenHash === tokenHash);
  return {
    async put(invitation) {
      const replaced = [...invitations.values()].find((other) => other.orgId === invitation.orgId && other.email === invitation.email);
      const taken = (other: Invitation | undefined) => other !== undefined && other.id !== replaced?.id;
      if (taken(invitations.get(invitation.id)) || taken(byTokenHash(invitation.tokenHash))) throw alreadyExists();
      if (replaced !== undefined) invitations.delete(replaced.id);
      invitations.set(invitation.id, { ...invitation });
    },
    async findByTokenHash(tokenHash, now) {
      const invitation = byTokenHash(tokenHash);
      return invitation !== undefined && invitation.expiresAt > now ? { ...invitation } : null;
    },
    async consume(tokenHash, now) {
      const invitation = byTokenHash(tokenHash);
      if (invitation === undefined) return null;
      invitations.delete(invitation.id);
      return invitation.expiresAt > now ? { ...invitation } : null;
    },
    async listByOrg(orgId, now) {
      return [...invitations.values()]
        .filter((invitation) => invitation.orgId === orgId && invitation.expiresAt > now)
        .sort((a, b) => a.createdAt - b.createdAt || compareText(a.id, b.id))
        .map((invitation) => ({ ...invitation }));
    },
    async delete(orgId, invitationId) {
      const invitation = invitations.get(invitationId);
      return invitation !== undefined && invitation.orgId === orgId && invitations.delete(invitationId);
    },
  };
}
