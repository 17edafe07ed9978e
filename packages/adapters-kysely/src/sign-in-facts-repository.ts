import type { Device, SignInFacts, SignInFactsStore } from "@gatehouse/core";
import { sql, type Kysely, type RawBuilder, type Selectable } from "kysely";
import { toDevice } from "./device-repository.ts";
import { preparedQuery, type PreparedQueryCache } from "./prepared-query.ts";
import type { Database, DevicesTable, MembershipsTable, UsersTable } from "./schema.ts";
import { settingsForOrgColumns, settingsFromColumns, type SettingsForOrgRow } from "./settings-repository.ts";
import { toUser } from "./user-repository.ts";

/** Every column of a table, checked complete by the compiler: the read below must not drop one silently. */
const columnsOf = <Table>(columns: Record<keyof Table & string, true>) => Object.keys(columns) as (keyof Table & string)[];

const USER_COLUMNS = columnsOf<UsersTable>({
  id: true,
  email: true,
  display_name: true,
  password_hash: true,
  phone: true,
  phone_verified: true,
  platform_admin: true,
  created_at: true,
  disabled_at: true,
  email_verified_at: true,
});

const DEVICE_COLUMNS = columnsOf<DevicesTable>({
  id: true,
  user_id: true,
  org_id: true,
  fingerprint_hash: true,
  user_agent: true,
  last_address: true,
  trusted: true,
  trusted_until: true,
  trust_revoked_at: true,
  created_at: true,
  last_seen_at: true,
  session_issued_at: true,
});

type DeviceColumns = { readonly [Column in keyof DevicesTable & string as `device_${Column}`]: Selectable<DevicesTable>[Column] | null };

/** The row `signInFactsColumns` selects. */
type SignInRow = Selectable<UsersTable> & { readonly membership_role: MembershipsTable["role"] | null } & DeviceColumns & SettingsForOrgRow;

/**
 * The select-list of `SignInRow` for the user row `users` in the FROM clause: its columns, then its membership
 * of `orgId` and the device found in `deviceSource` (`deviceOfUser`) and both settings rows as scalar
 * subqueries. One subquery per device column repeats the same primary-key lookup, and is still the cheaper
 * form on SQLite than a LEFT JOIN of the device (docs/decisions/sign-in-facts-read.md).
 */
function signInFactsColumns(orgId: unknown, deviceSource: RawBuilder<unknown>): RawBuilder<unknown> {
  const device = (column: keyof DevicesTable & string) => sql`(SELECT ${sql.ref(column)} FROM ${deviceSource}) AS ${sql.id(`device_${column}`)}`;
  return sql`${sql.join(USER_COLUMNS.map((column) => sql.ref(`users.${column}`)))},
             (SELECT role FROM memberships WHERE org_id = ${orgId} AND user_id = users.id) AS membership_role,
             ${sql.join(DEVICE_COLUMNS.map(device))},
             ${settingsForOrgColumns(orgId)}`;
}

/** A `deviceSource`: the device `deviceId` when it is the user's in `orgId`, so a challenge naming another user's device finds none. */
function deviceOfUser(deviceId: unknown, orgId: unknown): RawBuilder<unknown> {
  return sql`devices WHERE id = ${deviceId} AND user_id = users.id AND org_id = ${orgId}`;
}

/** The facts in a row `signInFactsColumns` selected for `orgId`. */
function signInFactsOf(row: SignInRow, orgId: string): SignInFacts {
  return {
    user: toUser(row),
    membership: row.membership_role === null ? null : { orgId, userId: row.id, role: row.membership_role },
    device: deviceOf(row),
    settings: settingsFromColumns(row),
  };
}

/** `SignInFactsStore` in one SELECT of the user's row with `signInFactsColumns`: the facts come from one snapshot. */
export function createSignInFactsRepository(db: Kysely<Database>, cache: PreparedQueryCache): SignInFactsStore {
  const selectFacts = preparedQuery(db, cache, "signInFacts.read", 3, (userId: string, orgId: string, deviceId: string | null) => {
    const query = sql<SignInRow>`SELECT ${signInFactsColumns(orgId, deviceOfUser(deviceId, orgId))} FROM users WHERE users.id = ${userId}`;
    return { compile: () => query.compile(db) };
  });
  return {
    async read(userId, orgId, deviceId) {
      const [row] = await selectFacts(userId, orgId, deviceId);
      return row === undefined ? null : signInFactsOf(row, orgId);
    },
  };
}

function deviceOf(row: DeviceColumns): Device | null {
  const {
    device_id: id,
    device_user_id: userId,
    device_org_id: orgId,
    device_fingerprint_hash: fingerprintHash,
    device_trusted: trusted,
    device_created_at: createdAt,
    device_last_seen_at: lastSeenAt,
  } = row;
  if (id === null || userId === null || orgId === null || fingerprintHash === null || trusted === null || createdAt === null || lastSeenAt === null)
    return null;
  return toDevice({
    id,
    user_id: userId,
    org_id: orgId,
    fingerprint_hash: fingerprintHash,
    user_agent: row.device_user_agent,
    last_address: row.device_last_address,
    trusted,
    trusted_until: row.device_trusted_until,
    trust_revoked_at: row.device_trust_revoked_at,
    created_at: createdAt,
    last_seen_at: lastSeenAt,
    session_issued_at: row.device_session_issued_at,
  });
}
