import type { StorageLike } from "../src/session.ts";

/** A Map-backed stand-in for sessionStorage/localStorage. */
export function memoryStorage(initial: Record<string, string> = {}): StorageLike & { readonly items: Map<string, string> } {
  const items = new Map(Object.entries(initial));
  return {
    items,
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
    removeItem: (key) => void items.delete(key),
  };
}
