/**
 * The vitest suites for adapter authors: the repository contract every storage adapter must pass
 * and the use-case concurrency suite. Kept apart from `@gatehouse/core/testing`, which needs no
 * test runner.
 */
export { describeStoreContract, type StoreContractHandle } from "./store-contract/index.ts";
export { describeUseCaseConcurrency } from "./use-case-concurrency.ts";
/** The contract's records, for an adapter's own tests: the users, orgs and devices they hang off, a session of USER_ID in ORG_ID, a policy. */
export { aPolicy, aSession, ORG_ID, OTHER_ORG_ID, seedGraph, T0, USER_ID } from "./store-contract/fixtures.ts";
