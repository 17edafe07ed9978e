import { beforeEach, describe, expect, it } from "vitest";
import type { ExtensionSessionRecord } from "../../../records/extension-session.ts";
import type { Stores } from "../../../ports.ts";
import {
  aSession,
  DEVICE_ID,
  MINUTE,
  ORG_ID,
  OTHER_ORG_DEVICE_ID,
  OTHER_ORG_ID,
  OTHER_USER_DEVICE_ID,
  OTHER_USER_ID,
  seedGraph,
  T0,
  tokenPair,
  USER_ID,
} from "./fixtures.ts";

function aRecord(overrides: Partial<ExtensionSessionRecord> = {}): ExtensionSessionRecord {
  return {
    sessionId: "session-1",
    orgId: ORG_ID,
    userId: USER_ID,
    deviceId: DEVICE_ID,
    extensionVersion: "0.1.0",
    policyVersion: 3,
    lastPollAt: T0,
    ...overrides,
  };
}

/** Each extension session's last rules poll: one row per session, replaced by each poll, listed per org and per member. */
export function describeExtensionSessionsContract(current: () => Stores): void {
  describe("extension sessions", () => {
    let stores: Stores;

    beforeEach(async () => {
      stores = current();
      await seedGraph(stores);
      await stores.sessions.create(aSession());
      await stores.sessions.create(aSession({ id: "session-2", ...tokenPair("2") }));
      await stores.sessions.create(aSession({ id: "session-3", userId: OTHER_USER_ID, deviceId: OTHER_USER_DEVICE_ID, ...tokenPair("3") }));
      await stores.sessions.create(aSession({ id: "session-4", orgId: OTHER_ORG_ID, deviceId: OTHER_ORG_DEVICE_ID, ...tokenPair("4") }));
    });

    it("a poll replaces the session's record: version, policy version and time round-trip", async () => {
      await stores.extensionSessions.recordPoll(aRecord());
      await stores.extensionSessions.recordPoll(aRecord({ extensionVersion: "0.2.0", policyVersion: 2 ** 40, lastPollAt: T0 + MINUTE }));
      expect(await stores.extensionSessions.listByOrg(ORG_ID)).toEqual([
        aRecord({ extensionVersion: "0.2.0", policyVersion: 2 ** 40, lastPollAt: T0 + MINUTE }),
      ]);
    });

    it("lists the org's records newest poll first, and a member's own; never another org's", async () => {
      await stores.extensionSessions.recordPoll(aRecord({ lastPollAt: T0 }));
      await stores.extensionSessions.recordPoll(aRecord({ sessionId: "session-2", lastPollAt: T0 + 2 * MINUTE }));
      await stores.extensionSessions.recordPoll(
        aRecord({ sessionId: "session-3", userId: OTHER_USER_ID, deviceId: OTHER_USER_DEVICE_ID, lastPollAt: T0 + MINUTE }),
      );
      await stores.extensionSessions.recordPoll(aRecord({ sessionId: "session-4", orgId: OTHER_ORG_ID, deviceId: OTHER_ORG_DEVICE_ID }));
      expect((await stores.extensionSessions.listByOrg(ORG_ID)).map((record) => record.sessionId)).toEqual(["session-2", "session-3", "session-1"]);
      expect((await stores.extensionSessions.listByUser(ORG_ID, USER_ID)).map((record) => record.sessionId)).toEqual(["session-2", "session-1"]);
      expect((await stores.extensionSessions.listByUser(OTHER_ORG_ID, USER_ID)).map((record) => record.sessionId)).toEqual(["session-4"]);
      expect(await stores.extensionSessions.listByOrg("no-such-org")).toEqual([]);
    });

    it("ties on the poll time are ordered by session id", async () => {
      await stores.extensionSessions.recordPoll(aRecord({ sessionId: "session-2" }));
      await stores.extensionSessions.recordPoll(aRecord());
      expect((await stores.extensionSessions.listByUser(ORG_ID, USER_ID)).map((record) => record.sessionId)).toEqual(["session-1", "session-2"]);
    });
  });
}
