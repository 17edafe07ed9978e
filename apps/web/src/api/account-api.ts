import { createClient, type Transport } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { AccountService } from "@gatehouse/contract/gen/gatehouse/v1/account_pb";
import { AuthService } from "@gatehouse/contract/gen/gatehouse/v1/auth_pb";

/** What the pages of emailed links and the account page call: AuthService's link RPCs and AccountService. */
export interface AccountApi {
  /** With the registrant proof kept in this tab, or with the password chosen on the link's page. */
  verifyEmail(token: string, proof: { readonly registrantProof?: string; readonly newPassword?: string }): Promise<void>;
  /** The org joined, to sign in with. */
  acceptInvitation(token: string, password: string): Promise<{ orgId: string }>;
  requestPasswordReset(email: string): Promise<void>;
  resetPassword(token: string, newPassword: string): Promise<void>;
  /** "This wasn't me" from a new-location or new-device email's link. */
  disownSignIn(token: string, eventId: string): Promise<void>;
  changePassword(accessToken: string, currentPassword: string, newPassword: string): Promise<void>;
}

export function createAccountApi(transport: Transport): AccountApi {
  const auth = createClient(AuthService, transport);
  const account = createClient(AccountService, transport);
  return {
    async verifyEmail(token, { registrantProof = "", newPassword = "" }) {
      await auth.verifyEmail({ token, registrantProof, newPassword });
    },
    async acceptInvitation(token, password) {
      const { orgId } = await auth.acceptInvitation({ token, password });
      return { orgId };
    },
    async requestPasswordReset(email) {
      await auth.requestPasswordReset({ email });
    },
    async resetPassword(token, newPassword) {
      await auth.resetPassword({ token, newPassword });
    },
    async disownSignIn(token, eventId) {
      await auth.disownSignIn({ token, eventId });
    },
    async changePassword(accessToken, currentPassword, newPassword) {
      await account.changePassword({ currentPassword, newPassword }, { headers: { authorization: `Bearer ${accessToken}` } });
    },
  };
}

let shared: AccountApi | null = null;

/** One client for the page's origin, made on first use. */
export function accountApi(): AccountApi {
  shared ??= createAccountApi(createConnectTransport({ baseUrl: window.location.origin }));
  return shared;
}

/** The token of an emailed link: it travels in the fragment (`#token=…`), which no server or log ever sees. */
export function linkToken(hash: string): string {
  return new URLSearchParams(hash.replace(/^#/, "")).get("token") ?? "";
}
