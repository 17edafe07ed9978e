import { describeUseCaseConcurrency } from "@gatehouse/core/testing/suites";
import { databaseUnderTest } from "./support/database-under-test.ts";

const database = await databaseUnderTest();

describeUseCaseConcurrency(`postgres (${database.kind})`, async () => {
  const schema = await database.freshSchema();
  const opened = await schema.open();
  return { stores: opened.stores, close: () => schema.drop() };
});
