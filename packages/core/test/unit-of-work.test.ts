import { describe, expect, it } from "vitest";
import { GatehouseError } from "../src/errors.ts";
import { createGatehouse, decorateStores, type Stores } from "../src/index.ts";
import { createMemoryStores, ManualClock, OutboxEmailSender, OutboxSmsSender, SequenceRandom } from "../src/testing/index.ts";
import { PASSWORD, TEST_PASSWORD_PARAMS } from "./harness.ts";

const READS = /^(find|get|list|resolve)/;

/** Which store method fails, and with what (a plain error by default). */
interface Failing {
  readonly port?: string;
  readonly method?: string;
  readonly error?: Error;
}

/**
 * Memory stores that log every write as `outside:port.method` or `tx:port.method`, and each unit of work
 * as `begin` … `commit`/`rollback`, so a test reads how a use case commits.
 */
function observedStores(base: Stores, failing: Failing = {}) {
  const log: string[] = [];
  const observe = (stores: Stores, where: "outside" | "tx"): Stores => {
    const observed = decorateStores(stores, (ports) => {
      const wrapped: Record<string, unknown> = {};
      for (const [port, methods] of Object.entries(ports)) {
        if (typeof methods !== "object" || methods === null) continue;
        wrapped[port] = Object.fromEntries(
          Object.entries(methods as Record<string, (...args: unknown[]) => Promise<unknown>>).map(([name, method]) => [
            name,
            (...args: unknown[]) => {
              if (!READS.test(name)) log.push(`${where}:${port}.${name}`);
              if (port === failing.port && name === failing.method) return Promise.reject(failing.error ?? new Error("disk I/O error"));
              return method(...args);
            },
          ]),
        );
      }
      return wrapped;
    });
    return {
      ...observed,
      transaction: (work) => {
        if (where === "tx") return work(observed);
        log.push("begin");
        return stores
          .transaction((tx) => work(observe(tx, "tx")))
          .then(
            (value) => (log.push("commit"), value),
            (error: unknown) => {
              log.push("rollback");
              throw error;
            },
          );
      },
    };
  };
  return { stores: observe(base, "outside"), log };
}

async function setUp(failing?: Failing) {
  const memory = createMemoryStores();
  const { stores, log } = observedStores(memory, failing);
  const clock = new ManualClock();
  const sms = new OutboxSmsSender();
  const gatehouse = createGatehouse({
    stores,
    clock,
    random: new SequenceRandom(),
    sms,
    email: new OutboxEmailSender(),
    config: { password: TEST_PASSWORD_PARAMS },
  });
  const { orgId } = await gatehouse.admin.createOrg({ kind: "system" }, { name: "Acme" });
  await gatehouse.register({ email: "ada@example.com", password: PASSWORD, emailVerified: true });
  await gatehouse.admin.addMember({ kind: "system" }, { orgId, email: "ada@example.com", role: "member" });
  const login = (fingerprint = "laptop") => gatehouse.login({ email: "ada@example.com", password: PASSWORD, orgId, deviceFingerprint: fingerprint });
  /** The log of what `run` did, from a clean slate. */
  const record = async (run: () => Promise<unknown>) => {
    log.length = 0;
    await run();
    return [...log];
  };
  return { memory, gatehouse, sms, clock, login, record, orgId };
}

/**
 * Login first takes a unit of each guessing budget it spends (its network's, the account's ceiling), in one call
 * of its own: before the password hash, which no transaction may wait on (a right password gives them back
 * inside the unit of work), and a unit of each failure-velocity log (here the account's alone: these sign-ins
 * send no address).
 */
const TAKES_A_GUESS = ["outside:rateLimiter.consumeMany", "outside:rateLimiter.consumeMany"];
/** While the password hash runs, the risk engine reads what it scores by (reads only), so the unit of work holds no lock while it scores. */
const JUDGES_THE_SIGN_IN = ["outside:risk.policy", "outside:risk.signInFeatures", "outside:risk.history", "outside:risk.platformCounts"];
/** The password matched: the failure-velocity unit goes back at once, outside the unit of work. */
const GIVES_THE_VELOCITY_BACK = ["outside:rateLimiter.refund"];
const BEFORE_THE_UNIT_OF_WORK = [...TAKES_A_GUESS, ...JUDGES_THE_SIGN_IN, ...GIVES_THE_VELOCITY_BACK];
const guessesThenCommitsOnce = (entries: string[]) => {
  const before = BEFORE_THE_UNIT_OF_WORK;
  expect(entries.slice(0, before.length)).toEqual(before);
  commitsOnce(entries.slice(before.length));
};

const commitsOnce = (entries: string[]) => {
  expect(entries.filter((entry) => entry === "begin")).toHaveLength(1);
  expect(entries.filter((entry) => entry.startsWith("outside:"))).toEqual([]);
};

/** The unit of work that sends a code is recorded as `otp.sent` only once the provider accepted it: after the commit and the send, in one statement that only appends. */
const RECORDS_THE_SEND = ["outside:audit.append"];
const commitsOnceThenRecordsTheSend = (entries: string[]) => {
  expect(entries.slice(-RECORDS_THE_SEND.length)).toEqual(RECORDS_THE_SEND);
  commitsOnce(entries.slice(0, -RECORDS_THE_SEND.length));
};

describe("each use case commits once", () => {
  it("Login → phone_required, SubmitPhone, VerifyMFA, Refresh with a fingerprint, Login again on the trusted device", async () => {
    const s = await setUp();
    let intentId = "";
    guessesThenCommitsOnce(
      await s.record(async () => {
        const outcome = await s.login();
        if (outcome.kind !== "phone_required") throw new Error(outcome.kind);
        intentId = outcome.intent.intentId;
      }),
    );
    let challengeId = "";
    const submitted = await s.record(async () => {
      challengeId = (await s.gatehouse.submitPhoneAndRequestMfa({ intentId, phone: "+15551234567" })).challengeId;
    });
    commitsOnceThenRecordsTheSend(submitted);
    expect(submitted).toEqual([
      "begin",
      "tx:intents.consume",
      "tx:smsTraffic.read",
      "tx:rateLimiter.consumeMany",
      "tx:smsTraffic.add",
      "tx:challenges.create",
      "commit",
      ...RECORDS_THE_SEND,
    ]);

    let refreshToken = "";
    const verified = await s.record(async () => {
      refreshToken = (await s.gatehouse.verifyMfa({ challengeId, otp: s.sms.lastOtpFor(challengeId)! })).refreshToken;
    });
    // The risk policy read in the unit of work also says whether to mail a new-sign-in notice: with notices off, nothing follows the commit.
    commitsOnce(verified);
    expect(verified.at(-1)).toBe("commit");

    commitsOnce(await s.record(() => s.gatehouse.refresh({ refreshToken, deviceFingerprint: "laptop" })));
    guessesThenCommitsOnce(await s.record(() => s.login()));
  });

  it("Login with a phone on file: the challenge commits before the SMS goes out, the send is recorded after it", async () => {
    const s = await setUp();
    const first = await s.login();
    if (first.kind !== "phone_required") throw new Error(first.kind);
    const { challengeId } = await s.gatehouse.submitPhoneAndRequestMfa({ intentId: first.intent.intentId, phone: "+15551234567" });
    await s.gatehouse.verifyMfa({ challengeId, otp: s.sms.lastOtpFor(challengeId)! });
    const sentBefore = s.sms.sent.length;
    const entries = await s.record(async () => {
      const outcome = await s.login("phone");
      expect(outcome.kind).toBe("mfa_required");
    });
    const before = BEFORE_THE_UNIT_OF_WORK;
    expect(entries.slice(0, before.length)).toEqual(before);
    commitsOnceThenRecordsTheSend(entries.slice(before.length));
    expect(s.sms.sent).toHaveLength(sentBefore + 1);
  });

  it("a wrong code is refused and its claimed attempt, spent budget and recorded failure commit with the refusal", async () => {
    const s = await setUp();
    const first = await s.login();
    if (first.kind !== "phone_required") throw new Error(first.kind);
    const { challengeId } = await s.gatehouse.submitPhoneAndRequestMfa({ intentId: first.intent.intentId, phone: "+15551234567" });
    const otp = s.sms.lastOtpFor(challengeId)!;
    const wrong = otp === "000000" ? "111111" : "000000";
    const entries = await s.record(() =>
      s.gatehouse.verifyMfa({ challengeId, otp: wrong }).catch((error: unknown) => expect(error).toBeInstanceOf(GatehouseError)),
    );
    // The sign-in facts tell which factors the org allows before the code is checked.
    expect(entries).toEqual(["begin", "tx:challenges.claimAttempt", "tx:rateLimiter.consume", "tx:signInFacts.read", "tx:audit.append", "commit"]);
    expect((await s.memory.challenges.findById(challengeId))?.attempts).toBe(1);
  });
});

describe("a failure that is not a decided answer rolls the whole unit of work back", () => {
  it("VerifyMFA whose last write fails: the challenge is not consumed, no session, the phone not locked", async () => {
    const s = await setUp({ port: "devices", method: "markSessionIssued" });
    const first = await s.login();
    if (first.kind !== "phone_required") throw new Error(first.kind);
    const { challengeId } = await s.gatehouse.submitPhoneAndRequestMfa({ intentId: first.intent.intentId, phone: "+15551234567" });
    const entries = await s.record(() =>
      s.gatehouse.verifyMfa({ challengeId, otp: s.sms.lastOtpFor(challengeId)! }).catch((error: unknown) => expect(String(error)).toContain("disk I/O error")),
    );
    expect(entries.at(-1)).toBe("rollback");
    expect(entries).toContain("tx:sessions.create");
    expect(await s.memory.challenges.findById(challengeId)).toMatchObject({ attempts: 0 });
    expect(await s.memory.users.findByEmail("ada@example.com")).toMatchObject({ phone: null, phoneVerified: false });
  });

  it("VerifyMFA whose storage becomes unavailable mid-way: storage_unavailable is no decided answer, nothing of it commits", async () => {
    const s = await setUp({ port: "devices", method: "markSessionIssued", error: new GatehouseError("storage_unavailable") });
    const first = await s.login();
    if (first.kind !== "phone_required") throw new Error(first.kind);
    const { challengeId } = await s.gatehouse.submitPhoneAndRequestMfa({ intentId: first.intent.intentId, phone: "+15551234567" });
    const entries = await s.record(() =>
      s.gatehouse
        .verifyMfa({ challengeId, otp: s.sms.lastOtpFor(challengeId)! })
        .catch((error: unknown) => expect(error).toMatchObject({ kind: "storage_unavailable" })),
    );
    expect(entries.at(-1)).toBe("rollback");
    expect(await s.memory.challenges.findById(challengeId)).toMatchObject({ attempts: 0 });
    expect(await s.memory.users.findByEmail("ada@example.com")).toMatchObject({ phone: null, phoneVerified: false });
  });
});
