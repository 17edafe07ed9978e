import type { BrowserAccess, BrowserAccessStore, EpochMs } from "@gatehouse/core";
import { setImmediate } from "node:timers";
import { CompiledQuery, type Kysely } from "kysely";
import { toBrowserAccess, type BrowserAccessRow } from "./browser-access-repository.ts";
import type { Database } from "./schema.ts";

/**
 * PostgreSQL's `BrowserAccessStore`: the browser requests that call `resolve` in one event-loop turn share
 * one statement, which takes their arguments as arrays and answers one row per active session, tagged
 * with the request it answers. Under load the server reads several requests per turn; each used to cost
 * its own Bind, Execute and Sync, its own result for the driver to parse, and its own executor start in
 * the backend, all of it CPU of the two processes that share the machine.
 *
 * Nothing is cached: a request's read is sent at the end of the turn in which it asked, after its
 * arrival, so a session revoked or a membership removed before the request is refused, as the port
 * requires. The statement reads one snapshot for the whole batch. A statement that fails fails every
 * request in it; the core passes only values that no statement refuses (hashed tokens, org ids it has
 * validated, integer versions, its clock), so what fails a batch (a broken connection, the database away)
 * would have failed each request's own statement too.
 */
export function createBatchedBrowserAccess(db: Kysely<Database>): BrowserAccessStore {
  let waiting: Waiting[] = [];
  const sendWaiting = () => {
    const batch = waiting;
    waiting = [];
    for (let from = 0; from < batch.length; from += MAX_BATCH) void answer(db, batch.slice(from, from + MAX_BATCH));
  };
  return {
    resolve(accessTokenHash, orgId, knownPolicyVersion, now) {
      return new Promise((resolve, reject) => {
        // setImmediate runs once the turn's I/O callbacks have run: every request read in this turn has asked by then.
        // node:timers' own, which a test's fake timers (they replace the global) leave running, as they leave the socket's I/O.
        if (waiting.length === 0) setImmediate(sendWaiting);
        waiting.push({ accessTokenHash, orgId, knownPolicyVersion, now, resolve, reject });
      });
    },
  };
}

/** Bounds one statement's arrays; a larger turn sends several statements. */
const MAX_BATCH = 256;

interface Waiting {
  readonly accessTokenHash: string;
  readonly orgId: string;
  readonly knownPolicyVersion: number;
  readonly now: EpochMs;
  resolve(access: BrowserAccess | null): void;
  reject(error: unknown): void;
}

interface AccessRow extends BrowserAccessRow {
  /** The request's place in the batch, from 1. */
  readonly request: number;
}

/**
 * One row per request whose session is active, `request` being its index in the arrays. The membership is a
 * scalar subquery as in the one-request statement (browser-access-repository.ts); the policy is joined once
 * per request for both its version and its text, where two subqueries would look it up twice.
 */
const SELECT_ACCESS = `select r.request::int as request, s.id as session_id, s.user_id, s.org_id as session_org_id,
  (select m.user_id from memberships m where m.user_id = s.user_id and m.org_id = r.org_id) as member_user_id,
  p.version as policy_version,
  case when p.version = r.known_version then null else p.policy end as policy
from unnest($1::text[], $2::text[], $3::int[], $4::bigint[]) with ordinality as r(access_token_hash, org_id, known_version, now, request)
join sessions s on s.access_token_hash = r.access_token_hash and s.revoked_at is null and s.access_expires_at > r.now
left join browser_policies p on p.org_id = r.org_id`;

async function answer(db: Kysely<Database>, batch: readonly Waiting[]): Promise<void> {
  let rows: AccessRow[];
  try {
    ({ rows } = await db.executeQuery<AccessRow>(
      CompiledQuery.raw(SELECT_ACCESS, [
        batch.map((w) => w.accessTokenHash),
        batch.map((w) => w.orgId),
        batch.map((w) => w.knownPolicyVersion),
        batch.map((w) => w.now),
      ]),
    ));
  } catch (error) {
    for (const w of batch) w.reject(error);
    return;
  }
  const rowOf = new Array<AccessRow | undefined>(batch.length);
  for (const row of rows) rowOf[row.request - 1] = row;
  batch.forEach((w, i) => {
    const row = rowOf[i];
    // Each request's own row is decoded on its own: a policy that fails to decode fails only the requests for its org.
    try {
      w.resolve(row === undefined ? null : toBrowserAccess(row));
    } catch (error) {
      w.reject(error);
    }
  });
}
