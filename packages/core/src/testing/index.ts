/**
 * Test kit for embedders and adapter authors: deterministic time and randomness, in-memory
 * stores, an SMS outbox and an email outbox. Needs no test runner; the vitest suites live in
 * `@gatehouse/core/testing/suites`.
 */
export { ManualClock } from "./manual-clock.ts";
export { SequenceRandom } from "./sequence-random.ts";
export { OutboxSmsSender } from "./outbox-sms-sender.ts";
export { OutboxEmailSender } from "./outbox-email-sender.ts";
export { createMemoryStores } from "./memory-stores.ts";
export { createMemoryAuditStore, type MemoryAuditStore } from "./memory-audit-store.ts";
export { SoftAuthenticator, type CeremonyBending, type SoftAuthenticatorOptions } from "./soft-authenticator.ts";
