import type { ServiceImpl } from "@connectrpc/connect";
import type { AccountService } from "@gatehouse/contract/gen/gatehouse/v1/account_pb";
import type { Gatehouse } from "@gatehouse/core";
import { clientIpKey } from "../request-context.ts";
import { requestMetaOf } from "../request-meta.ts";
import { requirePrincipal } from "./principal.ts";

export function createAccountService(gatehouse: Gatehouse): ServiceImpl<typeof AccountService> {
  return {
    changePassword: async (req, ctx) => {
      await gatehouse.changePassword(requirePrincipal(ctx), {
        currentPassword: req.currentPassword,
        newPassword: req.newPassword,
        clientKey: ctx.values.get(clientIpKey),
        request: requestMetaOf(ctx),
      });
      return {};
    },
  };
}
