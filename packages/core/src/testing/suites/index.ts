/**
 * The vitest suites for adapter authors: the repository contract every storage adapter must pass
 * and the use-case concurrency suite. Kept apart from `@gatehouse/core/testing`, which needs no
 * test runner.
 */
export { describeStoreContract, type StoreContractHandle } from "./store-contract/index.ts";
export { describeUseCaseConcurrency } from "./use-case-concurrency.ts";
