import { createMemoryStores } from "../src/testing/memory-stores.ts";
import { describeStoreContract, describeUseCaseConcurrency } from "../src/testing/suites/index.ts";

const open = async () => ({ stores: createMemoryStores(), close: async () => {} });

describeStoreContract("memory", open);
describeUseCaseConcurrency("memory", open);
