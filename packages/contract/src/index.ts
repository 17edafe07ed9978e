/**
 * @gatehouse/contract: the wire contract, written once for servers and clients. Each module owns one
 * mapping both ways: domain → wire for the server, wire → view for clients, and the JSON form where
 * a JSON route or the CLI speaks it. The generated code is under `@gatehouse/contract/gen/*`.
 * Isomorphic: nothing here imports Node or `@gatehouse/core`.
 */
export * from "./audit-events.ts";
export * from "./auth-outcome.ts";
export * from "./browser-policy.ts";
export * from "./extension-policy.ts";
export * from "./devices.ts";
export * from "./enforcement-events.ts";
export * from "./error-kind.ts";
export * from "./invitations.ts";
export * from "./members.ts";
export * from "./mfa-factor.ts";
export * from "./org-info.ts";
export type { Refuse } from "./refusal.ts";
export * from "./settings.ts";
export * from "./sms-destination-policy.ts";
export * from "./risk-events.ts";
export * from "./url-decision.ts";
