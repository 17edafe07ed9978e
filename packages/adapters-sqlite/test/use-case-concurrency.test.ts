import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeUseCaseConcurrency } from "@gatehouse/core/testing/suites";
import { openSqliteStores } from "../src/index.ts";

describeUseCaseConcurrency("sqlite", async () => {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-sqlite-"));
  const opened = await openSqliteStores({ filename: join(dir, "gatehouse.sqlite") });
  return {
    stores: opened.stores,
    close: async () => {
      await opened.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
