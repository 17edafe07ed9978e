import { GatehouseError } from "../errors.ts";
import type { ResourceServerStore, SigningKeyStore } from "../ports.ts";
import type { ResourceServer, SigningKeyRecord } from "../records/tokens.ts";
import type { MemoryTables } from "./memory-transactions.ts";

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function createMemorySigningKeyStore(tables: MemoryTables): SigningKeyStore {
  const keys = tables.map<string, SigningKeyRecord>();
  return {
    async create(key) {
      if (keys.has(key.kid)) throw new GatehouseError("already_exists");
      keys.set(key.kid, { ...key });
    },
    async list() {
      return [...keys.values()].sort((a, b) => a.activatesAt - b.activatesAt || compareText(a.kid, b.kid)).map((key) => ({ ...key }));
    },
  };
}

export function createMemoryResourceServerStore(tables: MemoryTables): ResourceServerStore {
  const servers = tables.map<string, ResourceServer>();
  return {
    async create(server) {
      if (servers.has(server.clientId)) throw new GatehouseError("already_exists");
      servers.set(server.clientId, { ...server });
    },
    async findByClientId(clientId) {
      const server = servers.get(clientId);
      return server === undefined ? null : { ...server };
    },
    async hasAudience(audience) {
      return [...servers.values()].some((server) => server.audience === audience);
    },
    async list() {
      return [...servers.values()].sort((a, b) => a.createdAt - b.createdAt || compareText(a.clientId, b.clientId)).map((server) => ({ ...server }));
    },
  };
}
