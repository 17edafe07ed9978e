import { GatehouseError } from "@gatehouse/core";
import { isUniqueViolation } from "./dialect-differences.ts";

/** Runs a write and reports a duplicate key the way the ports promise: `GatehouseError("already_exists")`. */
export async function failOnDuplicate<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw new GatehouseError("already_exists");
    throw error;
  }
}
