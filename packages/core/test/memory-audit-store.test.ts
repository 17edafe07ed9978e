import { describe, expect, it } from "vitest";
import type { AuditEvent } from "../src/index.ts";
import { createMemoryAuditStore } from "../src/testing/index.ts";

const event = (id: string, at: number): AuditEvent => ({
  id,
  at,
  kind: "device.trust_revoked",
  actor: { kind: "system" },
  orgId: "o",
  userId: "u",
  deviceId: "d",
  clientIp: null,
  userAgent: null,
  payload: {},
});

describe("memory audit store snapshot", () => {
  it("restores exactly the events held when the snapshot was taken, however often it is restored", async () => {
    const { store, snapshot } = createMemoryAuditStore();
    await store.append(event("kept", 1));
    const restore = snapshot();
    await store.append(event("rolled-back", 2));
    restore();
    expect((await store.list({ limit: 10 })).events.map((listed) => listed.id)).toEqual(["kept"]);
    await store.append(event("rolled-back", 3));
    restore();
    expect((await store.list({ limit: 10 })).events.map((listed) => listed.id)).toEqual(["kept"]);
    await store.append(event("rolled-back", 4));
    expect((await store.list({ limit: 10 })).events.map((listed) => listed.id)).toEqual(["rolled-back", "kept"]);
  });

  it("hands out copies: editing a listed or appended event changes nothing stored", async () => {
    const { store } = createMemoryAuditStore();
    const appended = event("e", 1);
    await store.append(appended);
    (appended as { orgId: string }).orgId = "edited";
    const [listed] = (await store.list({ limit: 1 })).events;
    (listed as { userId: string }).userId = "edited";
    expect((await store.list({ limit: 1 })).events).toEqual([event("e", 1)]);
  });
});
