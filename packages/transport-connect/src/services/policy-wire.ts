import { invalidArgument, type BrowserPolicy, type BrowserPolicyInput } from "@gatehouse/core";
import type { BrowserPolicy as WireBrowserPolicy } from "../gen/gatehouse/v1/browser_pb.ts";

/** Init shape accepted by both BrowserPolicy and GetBrowserPolicyResponse. */
interface PolicyInit {
  accessControl: { allowedDomains: string[]; blockedDomains: string[]; defaultAction: string; wildcardSupported: boolean };
  actionRestrictions: { allowedActions: string[]; readOnlyMode: boolean };
}

export function toWirePolicy(policy: BrowserPolicy): PolicyInit {
  return {
    accessControl: {
      ...policy.accessControl,
      allowedDomains: [...policy.accessControl.allowedDomains],
      blockedDomains: [...policy.accessControl.blockedDomains],
    },
    actionRestrictions: { ...policy.actionRestrictions, allowedActions: [...policy.actionRestrictions.allowedActions] },
  };
}

/** Both sections are required on update: a partial policy would silently reset the other half. */
export function fromWirePolicy(policy: WireBrowserPolicy | undefined): BrowserPolicyInput {
  if (policy?.accessControl === undefined) throw invalidArgument("policy.access_control", "is required");
  if (policy.actionRestrictions === undefined) throw invalidArgument("policy.action_restrictions", "is required");
  const { accessControl: ac, actionRestrictions: ar } = policy;
  return {
    accessControl: {
      allowedDomains: ac.allowedDomains,
      blockedDomains: ac.blockedDomains,
      defaultAction: ac.defaultAction,
      wildcardSupported: ac.wildcardSupported,
    },
    actionRestrictions: { allowedActions: ar.allowedActions, readOnlyMode: ar.readOnlyMode },
  };
}
