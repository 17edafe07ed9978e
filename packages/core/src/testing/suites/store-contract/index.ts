import { afterEach, beforeEach, describe } from "vitest";
import { describeAccountSecurityContract } from "./account-security.ts";
import { describeAuditContract } from "./audit.ts";
import { describeBrowserPoliciesContract } from "./browser-policies.ts";
import { describeChallengesContract } from "./challenges.ts";
import { describeDevicesContract } from "./devices.ts";
import { describeExtensionSessionsContract } from "./extension-sessions.ts";
import { describeEmailOwnershipContract } from "./email-ownership.ts";
import { describeGuessingBudgetsContract } from "./guessing-budgets.ts";
import type { StoreContractHandle } from "./handle.ts";
import { describeIntentsContract } from "./intents.ts";
import { describeOrgsContract } from "./orgs.ts";
import { describePasskeysContract } from "./passkeys.ts";
import { describePurgeContract } from "./purge.ts";
import { describeRateLimiterContract } from "./rate-limiter.ts";
import { describeRecoveryCodesContract } from "./recovery-codes.ts";
import { describeOidcStoreContract } from "./oidc.ts";
import { describeRiskContract } from "./risk.ts";
import { describeSessionsContract } from "./sessions.ts";
import { describeSettingsContract } from "./settings.ts";
import { describeSignInFactsContract } from "./sign-in-facts.ts";
import { describeSmsTrafficContract } from "./sms-traffic.ts";
import { describeTokenStoresContract } from "./token-stores.ts";
import { describeTotpContract } from "./totp.ts";
import { describeTransactionsContract } from "./transactions.ts";
import { describeUsersContract } from "./users.ts";
import { describeWebAuthnChallengesContract } from "./webauthn-challenges.ts";

export type { StoreContractHandle } from "./handle.ts";

/**
 * The repository contract every storage adapter must pass, concurrency cases included, one file
 * per port. `open` is called before every test and must return fresh, empty, migrated stores;
 * `close` runs after it.
 */
export function describeStoreContract(name: string, open: () => Promise<StoreContractHandle>): void {
  describe(`store contract: ${name}`, () => {
    let handle: StoreContractHandle | undefined;

    beforeEach(async () => {
      handle = await open();
    });

    afterEach(async () => {
      await handle?.close();
      handle = undefined;
    });

    const current = (): StoreContractHandle => {
      if (handle === undefined) throw new Error("the store contract reads its stores only inside a test");
      return handle;
    };
    const stores = () => current().stores;

    describeUsersContract(stores);
    describeOrgsContract(stores);
    describeDevicesContract(stores);
    describeChallengesContract(stores);
    describeIntentsContract(stores);
    describeSessionsContract(stores);
    describeSettingsContract(stores);
    describeBrowserPoliciesContract(stores);
    describeExtensionSessionsContract(stores);
    describeSignInFactsContract(stores);
    describeEmailOwnershipContract(stores);
    describeRateLimiterContract(stores);
    describeSmsTrafficContract(current);
    describeTransactionsContract(stores);
    describePurgeContract(current);
    describeAuditContract(current);
    describeAccountSecurityContract(stores);
    describeTotpContract(stores);
    describeRecoveryCodesContract(stores);
    describePasskeysContract(stores);
    describeWebAuthnChallengesContract(stores);
    describeGuessingBudgetsContract(stores);
    describeTokenStoresContract(stores);
    describeRiskContract(stores);
    describeOidcStoreContract(stores);
  });
}
