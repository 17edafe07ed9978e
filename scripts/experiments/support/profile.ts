/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`): self time per function, and self time per
 * area of the code (native built-ins such as JSON.parse are charged to the nearest JS caller's area).
 */
import { readFileSync } from "node:fs";

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}

interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: readonly number[];
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
  readonly startTime: number;
  readonly endTime: number;
}

export interface ProfileRow {
  readonly name: string;
  readonly ms: number;
  /** Share of busy time (idle excluded). */
  readonly percent: number;
}

export interface ProfileSummary {
  readonly busyMs: number;
  readonly idleMs: number;
  readonly topFunctions: readonly ProfileRow[];
  readonly areas: readonly ProfileRow[];
  /** Share of busy time whose stack contains a frame of each named path (inclusive, may overlap). */
  readonly inclusive: readonly ProfileRow[];
}

/** Areas by file; the first matching rule wins. */
const AREA_RULES: readonly [string, (url: string, fn: string) => boolean][] = [
  ["URL policy (parse + host key + match)", (url) => /\/core\/(src|dist)\/url-policy\//.test(url)],
  ["core use cases (auth, membership, policy reader)", (url) => /\/core\/(src|dist)\//.test(url)],
  [
    "repositories (adapters-kysely/sqlite)",
    (url) => url.includes("/adapters-kysely/") || url.includes("/adapters-sqlite/") || url.includes("/adapters-postgres/"),
  ],
  ["kysely (query building, compiling, driver)", (url) => url.includes("/node_modules/kysely/")],
  ["better-sqlite3 (statements)", (url) => url.includes("/node_modules/better-sqlite3/")],
  ["pg driver", (url) => url.includes("/node_modules/pg")],
  ["transport-connect (routes, interceptors)", (url) => url.includes("/transport-connect/")],
  ["Connect / protobuf-es", (url) => url.includes("/@connectrpc/") || url.includes("/@bufbuild/")],
  ["server (dual-protocol, app)", (url) => url.includes("/apps/server/")],
  ["pino logging", (url) => url.includes("/node_modules/pino") || url.includes("/thread-stream/") || url.includes("sonic-boom")],
  ["Node http / net / streams", (url) => url.startsWith("node:")],
];

const SPECIAL = new Set(["(garbage collector)", "(program)", "(idle)", "(root)"]);

/** A span of the monotonic clock in microseconds (`process.hrtime.bigint() / 1000n` in any process on the host). */
export interface ProfileWindow {
  readonly fromUs: number;
  readonly toUs: number;
}

/**
 * `window` keeps only the samples taken inside it (V8 stamps samples with the same monotonic clock as
 * `process.hrtime`), so the server's start-up does not count; the whole profile is used when none fall inside.
 */
export function summariseProfile(
  file: string,
  inclusivePatterns: readonly [string, RegExp][] = [],
  top = 15,
  window?: ProfileWindow,
): ProfileSummary & { windowed: boolean } {
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  // Self time per node from samples and their time deltas (each delta precedes its sample).
  const collect = (from: number, to: number) => {
    const self = new Map<number, number>();
    let at = profile.startTime;
    for (let i = 0; i < profile.samples.length; i++) {
      at += profile.timeDeltas[i] ?? 0;
      if (at < from || at > to) continue;
      const id = profile.samples[i]!;
      const delta = profile.timeDeltas[i + 1] ?? 0;
      self.set(id, (self.get(id) ?? 0) + Math.max(0, delta));
    }
    return self;
  };
  let selfUs = window === undefined ? collect(-Infinity, Infinity) : collect(window.fromUs, window.toUs);
  const windowed = window !== undefined && selfUs.size > 0;
  if (!windowed) selfUs = collect(-Infinity, Infinity);

  const areaOf = (id: number): string => {
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === "(garbage collector)") return "garbage collector";
    if (SPECIAL.has(frame.functionName)) return frame.functionName === "(idle)" ? "(idle)" : "(program: native / VM)";
    // Built-ins have no url: charge them to the nearest caller that has one.
    let current: number | undefined = id;
    while (current !== undefined) {
      const node = byId.get(current)!;
      const url = node.callFrame.url;
      if (url !== "") {
        for (const [area, test] of AREA_RULES) if (test(url, node.callFrame.functionName)) return area;
        return "other JS";
      }
      current = parent.get(current);
    }
    return "native (no JS caller)";
  };
  const functionLabel = (frame: CallFrame): string => {
    const name = frame.functionName === "" ? "(anonymous)" : frame.functionName;
    if (frame.url === "") return name;
    const short = frame.url.replace(/^file:\/\/.*?\/(node_modules|packages|apps)\//, "$1/").replace(/^file:\/\//, "");
    return `${name} ${short}:${frame.lineNumber + 1}`;
  };

  let idleUs = 0;
  let busyUs = 0;
  const byFunction = new Map<string, number>();
  const byArea = new Map<string, number>();
  const inclusiveUs = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === "(idle)") {
      idleUs += us;
      continue;
    }
    busyUs += us;
    const label = functionLabel(frame);
    byFunction.set(label, (byFunction.get(label) ?? 0) + us);
    const area = areaOf(id);
    byArea.set(area, (byArea.get(area) ?? 0) + us);
    if (inclusivePatterns.length > 0) {
      const seen = new Set<string>();
      for (let current: number | undefined = id; current !== undefined; current = parent.get(current)) {
        const stackFrame = byId.get(current)!.callFrame;
        const text = `${stackFrame.functionName} ${stackFrame.url}`;
        for (const [name, pattern] of inclusivePatterns) if (!seen.has(name) && pattern.test(text)) seen.add(name);
      }
      for (const name of seen) inclusiveUs.set(name, (inclusiveUs.get(name) ?? 0) + us);
    }
  }
  const rows = (map: Map<string, number>, limit = Infinity): ProfileRow[] =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(([name, us]) => ({ name, ms: us / 1000, percent: busyUs === 0 ? 0 : (100 * us) / busyUs }));
  return {
    windowed,
    busyMs: busyUs / 1000,
    idleMs: idleUs / 1000,
    topFunctions: rows(byFunction, top),
    areas: rows(byArea),
    inclusive: inclusivePatterns.map(([name]) => ({
      name,
      ms: (inclusiveUs.get(name) ?? 0) / 1000,
      percent: busyUs === 0 ? 0 : (100 * (inclusiveUs.get(name) ?? 0)) / busyUs,
    })),
  };
}
