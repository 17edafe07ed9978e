/**
 * Test kit for embedders and adapter authors: deterministic time and randomness, in-memory
 * stores, an SMS outbox, and the repository contract suite every storage adapter must pass.
 */
export { ManualClock } from "./manual-clock.ts";
export { SequenceRandom } from "./sequence-random.ts";
export { OutboxSmsSender } from "./outbox-sms-sender.ts";
export { createMemoryStores } from "./memory-stores.ts";
export { describeStoreContract, type StoreContractHandle } from "./store-contract.ts";
export { describeUseCaseConcurrency } from "./use-case-concurrency.ts";
