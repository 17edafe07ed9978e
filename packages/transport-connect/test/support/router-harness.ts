import { Code, ConnectError, createClient, createRouterTransport, type ConnectRouter } from "@connectrpc/connect";
import { createGatehouse, type GatehouseConfig, type Stores } from "@gatehouse/core";
import { createMemoryStores, ManualClock, OutboxEmailSender, OutboxSmsSender, SequenceRandom } from "@gatehouse/core/testing";
import { expect } from "vitest";
import { createConnectRoutes } from "../../src/connect-routes.ts";
import { AccountService } from "@gatehouse/contract/gen/gatehouse/v1/account_pb";
import { AdminService } from "@gatehouse/contract/gen/gatehouse/v1/admin_pb";
import { AuthService } from "@gatehouse/contract/gen/gatehouse/v1/auth_pb";
import { BrowserService } from "@gatehouse/contract/gen/gatehouse/v1/browser_pb";
import { DevService } from "@gatehouse/contract/gen/gatehouse/v1/dev_pb";
import { ErrorDetailSchema, type ErrorDetail } from "@gatehouse/contract/gen/gatehouse/v1/errors_pb";
import { authInterceptor, errorInterceptor, ipRateLimitInterceptor } from "../../src/interceptors.ts";
import { refusalPacingInterceptor } from "../../src/refusal-pacing.ts";
import { clientIpKey } from "../../src/request-context.ts";

/** Stands in for the socket address the node adapter reads: the in-memory transport has no socket. */
export const CLIENT_IP_HEADER = "x-test-client-ip";
export const DEFAULT_CLIENT_IP = "203.0.113.7";
export const PASSWORD = "correct horse battery";
export const PHONE = "+15551234567";

/** Cheap Argon2id parameters: these tests exercise the edge, not the KDF's cost. */
const TEST_PASSWORD_PARAMS = { memoryKiB: 1024, passes: 1, parallelism: 1 };

export interface RouterHarnessOptions {
  /** RATE_LIMIT_IP_PER_MINUTE; 0 (the default here) turns the per-IP limit off. */
  readonly ipPerMinute?: number;
  /** Registers DevService, reading codes from the SMS outbox, as dev OTP mode does. */
  readonly devOtps?: boolean;
  readonly config?: Partial<GatehouseConfig>;
  /** Replaces stores, e.g. to make one fail like a broken database. */
  readonly stores?: (memory: Stores) => Stores;
  /** Extra services on the same router, behind the same interceptors. */
  readonly extraRoutes?: (router: ConnectRouter) => void;
  /** REFUSAL_PAUSE_MS (default here 1000, the server's); the pauses are recorded in `pauses`, never slept. */
  readonly refusalPauseMs?: number;
}

/**
 * The real routes and the server's interceptors, in the server's order, over memory stores and a
 * manual clock, behind connect-es's in-memory router transport: every call is serialized, routed
 * and answered as on the wire, with no socket and no sleeping.
 */
export async function createRouterHarness(options: RouterHarnessOptions = {}) {
  const memory = createMemoryStores();
  const stores = options.stores?.(memory) ?? memory;
  const clock = new ManualClock();
  const random = new SequenceRandom();
  const sms = new OutboxSmsSender();
  const email = new OutboxEmailSender();
  const gatehouse = createGatehouse({ stores, clock, random, sms, email, config: { password: TEST_PASSWORD_PARAMS, ...options.config } });
  const unexpected: { error: unknown; method: string }[] = [];
  const pauses: number[] = [];
  const devOtps = options.devOtps === true ? { get: (challengeId: string) => sms.lastOtpFor(challengeId) ?? null } : null;
  const transport = createRouterTransport(
    (router) => {
      createConnectRoutes({ gatehouse, devOtps })(router);
      options.extraRoutes?.(router);
    },
    {
      router: {
        interceptors: [
          errorInterceptor((error, method) => unexpected.push({ error, method })),
          refusalPacingInterceptor(options.refusalPauseMs ?? 1000, async (ms) => {
            pauses.push(ms);
          }),
          ipRateLimitInterceptor(stores.rateLimiter, clock, options.ipPerMinute ?? 0),
          authInterceptor(gatehouse),
        ],
        // The router transport has no node adapter to build context values from the socket; the gate
        // sets the client IP where the adapter would, before any interceptor runs.
        requestGate: (context) => {
          context.values.set(clientIpKey, context.requestHeader.get(CLIENT_IP_HEADER) ?? DEFAULT_CLIENT_IP);
        },
      },
    },
  );
  const auth = createClient(AuthService, transport);
  const browser = createClient(BrowserService, transport);
  const admin = createClient(AdminService, transport);
  const dev = createClient(DevService, transport);
  const account = createClient(AccountService, transport);

  const { orgId } = await gatehouse.admin.createOrg({ kind: "system" }, { name: "Acme", slug: "acme" });

  /** A registered member of Acme with the given role (registered directly, so no per-IP unit is spent). */
  async function member(email: string, role: "member" | "admin" = "member", platformAdmin = false) {
    const { userId } = await gatehouse.register({ email, password: PASSWORD, platformAdmin, emailVerified: true });
    await gatehouse.admin.addMember({ kind: "system" }, { orgId, email, role });
    return { email, userId };
  }

  /** Logs in over the wire and completes the phone intent and the OTP; returns the AuthResponse. */
  async function signIn(email: string, fingerprint = "laptop", targetOrgId = orgId, password = PASSWORD) {
    const login = await auth.login({ email, password, orgId: targetOrgId, deviceFingerprint: fingerprint });
    if (login.result.case === "tokens") return login.result.value;
    const challengeId =
      login.result.case === "phoneRequired"
        ? (await auth.submitPhoneAndRequestMFA({ intentId: login.result.value.intentId, phone: PHONE })).challengeId
        : (login.result.value?.challengeId ?? "");
    return auth.verifyMFA({ challengeId, otp: sms.lastOtpFor(challengeId) ?? "" });
  }

  return { gatehouse, stores, clock, sms, email, unexpected, pauses, transport, auth, browser, admin, dev, account, orgId, member, signIn };
}

export type RouterHarness = Awaited<ReturnType<typeof createRouterHarness>>;

export function bearer(accessToken: string): { headers: Record<string, string> } {
  return { headers: { authorization: `Bearer ${accessToken}` } };
}

export interface ExpectedError {
  readonly code: Code;
  readonly message: string;
  /** The ErrorDetail the client branches on; omitted fields are the proto defaults. */
  readonly detail?: Partial<Pick<ErrorDetail, "kind" | "field" | "retryAfterSeconds">> | null;
}

/** Awaits a call that must fail, and checks its Connect code, message and ErrorDetail as a client sees them. */
export async function expectConnectError(call: Promise<unknown>, expected: ExpectedError): Promise<ConnectError> {
  const error = await call.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ConnectError);
  const connectError = error as ConnectError;
  expect({ code: Code[connectError.code], message: connectError.rawMessage }).toEqual({ code: Code[expected.code], message: expected.message });
  const details = connectError.findDetails(ErrorDetailSchema);
  if (expected.detail === null) {
    expect(details).toEqual([]);
  } else if (expected.detail !== undefined) {
    expect(details).toHaveLength(1);
    expect({ kind: details[0]?.kind, field: details[0]?.field, retryAfterSeconds: details[0]?.retryAfterSeconds }).toEqual({
      field: "",
      retryAfterSeconds: 0,
      ...expected.detail,
    });
  }
  return connectError;
}
