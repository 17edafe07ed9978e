import js from "@eslint/js";
import tseslint from "typescript-eslint";

/** I/O modules the pure core must never import (node:crypto and node:url stay allowed). */
const ioModules = [
  "fs",
  "node:fs",
  "fs/promises",
  "node:fs/promises",
  "net",
  "node:net",
  "http",
  "node:http",
  "https",
  "node:https",
  "http2",
  "node:http2",
  "child_process",
  "node:child_process",
  "dgram",
  "node:dgram",
  "tls",
  "node:tls",
  "dns",
  "node:dns",
  "worker_threads",
  "node:worker_threads",
  "cluster",
  "node:cluster",
  "pg",
  "better-sqlite3",
  "kysely",
  "pino",
  "undici",
];

export default tseslint.config(
  { ignores: ["**/dist/**", "**/node_modules/**", "**/src/gen/**", ".tools/**", "data/**", "apps/web/dist/**"] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    languageOptions: {
      globals: {
        console: "readonly",
        process: "readonly",
        Buffer: "readonly",
        URL: "readonly",
        setTimeout: "readonly",
        clearTimeout: "readonly",
        fetch: "readonly",
        AbortSignal: "readonly",
        TextEncoder: "readonly",
        TextDecoder: "readonly",
        structuredClone: "readonly",
        performance: "readonly",
        setInterval: "readonly",
        clearInterval: "readonly",
        queueMicrotask: "readonly",
        setImmediate: "readonly",
        document: "readonly",
        window: "readonly",
        localStorage: "readonly",
        sessionStorage: "readonly",
        navigator: "readonly",
        Response: "readonly",
        Request: "readonly",
        Headers: "readonly",
      },
    },
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-non-null-assertion": "off",
      "@typescript-eslint/consistent-type-imports": "error",
      "no-console": ["error", { allow: ["warn", "error"] }],
    },
  },
  {
    files: ["packages/core/src/**/*.ts"],
    ignores: ["packages/core/src/testing/**"],
    rules: {
      "no-restricted-imports": ["error", { paths: ioModules.map((name) => ({ name, message: "@gatehouse/core is pure: I/O belongs in an adapter." })) }],
    },
  },
  {
    files: ["packages/contract/src/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["node:*", ...ioModules], message: "@gatehouse/contract runs in the browser: no Node module." },
            { group: ["@gatehouse/*"], message: "@gatehouse/contract stands alone, so a web client installs and bundles nothing else of Gatehouse." },
          ],
        },
      ],
    },
  },
  {
    files: ["scripts/**", "examples/**", "**/test/**", "apps/server/src/cli*.ts"],
    rules: { "no-console": "off" },
  },
);
