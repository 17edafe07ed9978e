/** The id Chrome gives the extension: the first 128 bits of SHA-256 over the manifest key, as letters a–p. */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export function extensionIdOf(publicKeyBase64: string): string {
  const hex = createHash("sha256").update(Buffer.from(publicKeyBase64, "base64")).digest("hex").slice(0, 32);
  return [...hex].map((digit) => String.fromCharCode(97 + Number.parseInt(digit, 16))).join("");
}

export const EXTENSION_ID = extensionIdOf(
  (JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), "manifest.json"), "utf8")) as { key: string }).key,
);
