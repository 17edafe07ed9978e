import type { ServiceImpl } from "@connectrpc/connect";
import { GatehouseError } from "@gatehouse/core";
import type { DevService } from "@gatehouse/contract/gen/gatehouse/v1/dev_pb";

/** Where dev OTP mode keeps the plain codes, keyed by challenge id. */
export interface DevOtpLookup {
  get(challengeId: string): string | null;
}

export function createDevService(otps: DevOtpLookup): ServiceImpl<typeof DevService> {
  return {
    getOTP: (req) => {
      const otp = otps.get(req.challengeId);
      if (otp === null) throw new GatehouseError("not_found", "no OTP for this challenge");
      return { otp };
    },
  };
}
