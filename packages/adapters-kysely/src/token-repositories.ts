import type { ResourceServer, ResourceServerStore, SigningKeyRecord, SigningKeyStore } from "@gatehouse/core";
import type { Kysely, Selectable } from "kysely";
import { insertUnlessTaken } from "./already-exists.ts";
import { fromDbBigint } from "./dialect-differences.ts";
import type { Database, ResourceServersTable, SigningKeysTable } from "./schema.ts";

function toSigningKey(row: Selectable<SigningKeysTable>): SigningKeyRecord {
  if (row.alg !== "EdDSA") throw new Error(`signing key ${row.kid} has an algorithm this version does not know: ${row.alg}`);
  return {
    kid: row.kid,
    alg: row.alg,
    publicJwk: row.public_jwk,
    sealedPrivateJwk: row.sealed_private_jwk,
    createdAt: fromDbBigint(row.created_at),
    activatesAt: fromDbBigint(row.activates_at),
  };
}

function toResourceServer(row: Selectable<ResourceServersTable>): ResourceServer {
  return { clientId: row.client_id, name: row.name, audience: row.audience, secretHash: row.secret_hash, createdAt: fromDbBigint(row.created_at) };
}

export function createSigningKeyRepository(db: Kysely<Database>): SigningKeyStore {
  return {
    async create(key) {
      await insertUnlessTaken(
        db.insertInto("signing_keys").values({
          kid: key.kid,
          alg: key.alg,
          public_jwk: key.publicJwk,
          sealed_private_jwk: key.sealedPrivateJwk,
          created_at: key.createdAt,
          activates_at: key.activatesAt,
        }),
      );
    },
    async list() {
      const rows = await db.selectFrom("signing_keys").selectAll().orderBy("activates_at").orderBy("kid").execute();
      return rows.map(toSigningKey);
    },
  };
}

export function createResourceServerRepository(db: Kysely<Database>): ResourceServerStore {
  return {
    async create(server) {
      await insertUnlessTaken(
        db.insertInto("resource_servers").values({
          client_id: server.clientId,
          name: server.name,
          audience: server.audience,
          secret_hash: server.secretHash,
          created_at: server.createdAt,
        }),
      );
    },
    async findByClientId(clientId) {
      const row = await db.selectFrom("resource_servers").selectAll().where("client_id", "=", clientId).executeTakeFirst();
      return row === undefined ? null : toResourceServer(row);
    },
    async hasAudience(audience) {
      const row = await db.selectFrom("resource_servers").select("client_id").where("audience", "=", audience).limit(1).executeTakeFirst();
      return row !== undefined;
    },
    async list() {
      const rows = await db.selectFrom("resource_servers").selectAll().orderBy("created_at").orderBy("client_id").execute();
      return rows.map(toResourceServer);
    },
  };
}
