import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Code } from "@connectrpc/connect";
import { beforeEach, describe, expect, it } from "vitest";
import { bearer, createRouterHarness, expectConnectError, type RouterHarness } from "./support/router-harness.ts";

describe("AdminService: SMS destination policy and traffic report", () => {
  let h: RouterHarness;
  let orgAdmin: ReturnType<typeof bearer>;
  let platformAdmin: ReturnType<typeof bearer>;

  beforeEach(async () => {
    h = await createRouterHarness();
    await h.member("admin@example.com", "admin");
    await h.member("root@example.com", "member", true);
    orgAdmin = bearer((await h.signIn("admin@example.com")).accessToken);
    platformAdmin = bearer((await h.signIn("root@example.com")).accessToken);
  });

  it("a platform admin reads and sets the platform's policy: unset lists keep their value, an empty list is set", async () => {
    const initial = await h.admin.getSmsDestinationPolicy({}, platformAdmin);
    expect(initial.policy).toMatchObject({ allowedCountries: [], refusedNumberTypes: expect.arrayContaining(["premium_rate", "international_network"]) });
    const updated = await h.admin.updateSmsDestinationPolicy({ allowedCountries: { values: ["US", "GB"] } }, platformAdmin);
    expect(updated.policy).toMatchObject({ allowedCountries: ["GB", "US"], refusedNumberTypes: initial.policy!.refusedNumberTypes });
    const cleared = await h.admin.updateSmsDestinationPolicy({ refusedNumberTypes: { values: [] } }, platformAdmin);
    expect(cleared.policy).toMatchObject({ allowedCountries: ["GB", "US"], refusedNumberTypes: [] });
  });

  it("an org admin narrows the org's countries, may not touch the platform's policy, and an unknown region is InvalidArgument naming the field", async () => {
    const org = await h.admin.updateSmsDestinationPolicy({ orgId: h.orgId, allowedCountries: { values: ["FR"] } }, orgAdmin);
    expect(org.policy).toMatchObject({ orgId: h.orgId, allowedCountries: ["FR"] });
    await expectConnectError(h.admin.getSmsDestinationPolicy({}, orgAdmin), {
      code: Code.PermissionDenied,
      message: "platform admin role required",
      detail: { kind: "permission_denied" },
    });
    await expectConnectError(h.admin.updateSmsDestinationPolicy({ orgId: h.orgId, allowedCountries: { values: ["ZZ"] } }, orgAdmin), {
      code: Code.InvalidArgument,
      message: expect.any(String) as unknown as string,
      detail: { kind: "invalid_argument", field: "allowed_countries" },
    });
  });

  it("the traffic report needs both ends of the period and a platform admin", async () => {
    const now = h.clock.now();
    const report = await h.admin.getSmsTrafficReport({ since: timestampFromMs(now - 3_600_000), until: timestampFromMs(now + 60_000) }, platformAdmin);
    // Each sign-in of the set-up sent one code and verified it.
    expect(report.rows.find((row) => row.scope === "country")).toMatchObject({ sent: 2n, verified: 2n, conversion: 1 });
    expect(report.rows.some((row) => row.scope === "prefix")).toBe(true);
    await expectConnectError(h.admin.getSmsTrafficReport({ since: timestampFromMs(now) }, platformAdmin), {
      code: Code.InvalidArgument,
      message: expect.any(String) as unknown as string,
      detail: { kind: "invalid_argument", field: "until" },
    });
    await expectConnectError(h.admin.getSmsTrafficReport({ since: timestampFromMs(now - 1000), until: timestampFromMs(now) }, orgAdmin), {
      code: Code.PermissionDenied,
      message: "platform admin role required",
      detail: { kind: "permission_denied" },
    });
  });
});
