import type { ConnectRouter } from "@connectrpc/connect";
import type { Gatehouse } from "@gatehouse/core";
import { AccountService } from "@gatehouse/contract/gen/gatehouse/v1/account_pb";
import { AdminService } from "@gatehouse/contract/gen/gatehouse/v1/admin_pb";
import { AuthService } from "@gatehouse/contract/gen/gatehouse/v1/auth_pb";
import { BrowserService } from "@gatehouse/contract/gen/gatehouse/v1/browser_pb";
import { DevService } from "@gatehouse/contract/gen/gatehouse/v1/dev_pb";
import { createAccountService } from "./services/account-service.ts";
import { createAdminService } from "./services/admin-service.ts";
import { createAuthService } from "./services/auth-service.ts";
import { createBrowserService } from "./services/browser-service.ts";
import { createDevService, type DevOtpLookup } from "./services/dev-service.ts";

export interface ConnectRoutesOptions {
  readonly gatehouse: Gatehouse;
  /** Registers DevService only when given (dev OTP mode); otherwise its methods are Unimplemented. */
  readonly devOtps: DevOtpLookup | null;
}

export function createConnectRoutes(options: ConnectRoutesOptions): (router: ConnectRouter) => void {
  return (router) => {
    router.service(AuthService, createAuthService(options.gatehouse));
    router.service(BrowserService, createBrowserService(options.gatehouse));
    router.service(AdminService, createAdminService(options.gatehouse));
    router.service(AccountService, createAccountService(options.gatehouse));
    if (options.devOtps !== null) router.service(DevService, createDevService(options.devOtps));
  };
}
