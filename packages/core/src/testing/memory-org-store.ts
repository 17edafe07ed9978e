import type { MemoryTables } from "./memory-transactions.ts";
import type { Membership, Org } from "../model.ts";
import type { OrgStore } from "../ports.ts";
import { alreadyExists, compareText, copyOrNull, keyOf } from "./memory-records.ts";

export function createOrgStore(tables: MemoryTables): OrgStore {
  const orgs = tables.map<string, Org>();
  const memberships = tables.map<string, Membership>();
  const findBySlug = (slug: string): Org | undefined => [...orgs.values()].find((org) => org.slug === slug);
  return {
    async create(org) {
      if (orgs.has(org.id)) throw alreadyExists();
      if (org.slug !== undefined && findBySlug(org.slug) !== undefined) throw alreadyExists();
      orgs.set(org.id, { ...org });
    },
    async findById(id) {
      return copyOrNull(orgs.get(id));
    },
    async findBySlug(slug) {
      return copyOrNull(findBySlug(slug));
    },
    async putMembership(membership) {
      memberships.set(keyOf(membership.orgId, membership.userId), { ...membership });
    },
    async removeMembership(orgId, userId) {
      return memberships.delete(keyOf(orgId, userId));
    },
    async findMembership(orgId, userId) {
      return copyOrNull(memberships.get(keyOf(orgId, userId)));
    },
    async list() {
      return [...orgs.values()].sort((a, b) => a.createdAt - b.createdAt || compareText(a.id, b.id)).map((org) => ({ ...org }));
    },
    async listMemberships(orgId) {
      return [...memberships.values()]
        .filter((m) => m.orgId === orgId)
        .sort((a, b) => compareText(a.userId, b.userId))
        .map((m) => ({ ...m }));
    },
    async listMembershipsOfUser(userId) {
      return [...memberships.values()]
        .filter((m) => m.userId === userId)
        .sort((a, b) => compareText(a.orgId, b.orgId))
        .map((m) => ({ ...m }));
    },
  };
}
