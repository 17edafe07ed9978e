import type { ConnectRouter } from "@connectrpc/connect";
import type { Gatehouse } from "@gatehouse/core";
import { AdminService } from "./gen/gatehouse/v1/admin_pb.ts";
import { AuthService } from "./gen/gatehouse/v1/auth_pb.ts";
import { BrowserService } from "./gen/gatehouse/v1/browser_pb.ts";
import { DevService } from "./gen/gatehouse/v1/dev_pb.ts";
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
    if (options.devOtps !== null) router.service(DevService, createDevService(options.devOtps));
  };
}
