/**
 * Child process for one policy size (run with --expose-gc so heap figures are after a full GC):
 * compile time, heap bytes per entry, and per-call time of `checkUrl` next to `new URL()` on the
 * same inputs, interleaved call by call. Prints one JSON line.
 *
 * Usage: node --expose-gc --conditions=@gatehouse/source scripts/bench/url-check-child.ts <size> <rounds> <corpus> <compileRuns>
 */
import { checkUrl, compileAccessControl, type AccessControl, type CompiledAccessControl } from "@gatehouse/core";
import { generateCorpus, generatePolicy } from "./hosts.ts";
import { median, quantileSorted } from "./stats.ts";

export interface UrlCheckSizeResult {
  readonly size: number;
  readonly compileMsRuns: number[];
  readonly compileMs: number;
  /** heapUsed + arrayBuffers retained by the compiled policy, per entry. */
  readonly heapBytesPerEntry: number;
  readonly heapBytesCompiled: number;
  readonly rounds: number;
  readonly corpus: number;
  /** Median of the per-round medians / p99s, nanoseconds per call, timer overhead subtracted. */
  readonly checkMedianNs: number;
  readonly checkP99Ns: number;
  readonly urlMedianNs: number;
  readonly urlP99Ns: number;
  readonly timerOverheadNs: number;
  readonly decisions: Record<string, number>;
}

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("run with --expose-gc");
const fullGc = () => {
  for (let i = 0; i < 3; i++) gc();
};

const [size, rounds, corpusSize, compileRuns] = process.argv.slice(2).map(Number) as [number, number, number, number];

/** JS heap plus array buffers (a compiled policy keeps its host table in typed arrays, outside the heap). */
const retainedBytes = () => {
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
};

/**
 * Memory retained by a compiled policy of `accessControl`, its keys included: the mean over as many compiled
 * copies as make 20,000 entries, because the heap moves by tens of kB between two full GCs, which one
 * 10-entry policy (a few kB) cannot outweigh (a single copy once read as −66,945 B/entry). The generated
 * lists stay alive through both readings, held by the caller: generated inside, a million-entry list was
 * still held by a stack slot at the first reading and gone at the second (−26 MB of heap at 1,000,000).
 */
function heapOfCompiled(accessControl: AccessControl): number {
  const entries = accessControl.allowedDomains.length + accessControl.blockedDomains.length;
  const copies = Math.ceil(20_000 / entries);
  fullGc();
  const base = retainedBytes();
  const compiled = Array.from({ length: copies }, () => compileAccessControl(accessControl));
  fullGc();
  const bytes = retainedBytes() - base;
  // Read after the measurement, so that every copy is alive through it.
  if (compiled.length !== copies) throw new Error("lost a compiled copy");
  return bytes / copies / entries;
}

/** Compile time: each run builds the sets from scratch from the same lists. */
function compileTimes(accessControl: AccessControl, runs: number): { compiled: CompiledAccessControl; ms: number[] } {
  const ms: number[] = [];
  let compiled: CompiledAccessControl | null = null;
  for (let run = 0; run < runs; run++) {
    compiled = null;
    fullGc();
    const start = performance.now();
    compiled = compileAccessControl(accessControl);
    ms.push(performance.now() - start);
  }
  if (compiled === null) throw new Error("no compile run");
  return { compiled, ms };
}

const generated = generatePolicy(size);
// The same procedure once on a small policy first, so the baseline holds the code and feedback it needs.
heapOfCompiled(generatePolicy(10).accessControl);
const heapBytesPerEntry = heapOfCompiled(generated.accessControl);
const corpus = generateCorpus(generated, corpusSize);
const { compiled, ms: compileMsRuns } = compileTimes(generated.accessControl, compileRuns);
// One table holds both lists, so a host on both (or exact and wildcard) is one key.
const { allowedDomains, blockedDomains } = generated.accessControl;
const keys = new Set([...allowedDomains, ...blockedDomains].map((entry) => (entry.startsWith("*.") ? entry.slice(2) : entry))).size;
const kept = compiled.hosts.size;
if (kept !== keys || compiled.skipped.length > 0) throw new Error(`compiled policy kept ${kept} of ${keys} keys`);

// Timer overhead: two back-to-back reads of the clock.
const n = corpus.length;
const overhead = new Float64Array(20_000);
for (let i = 0; i < overhead.length; i++) {
  const a = process.hrtime.bigint();
  const b = process.hrtime.bigint();
  overhead[i] = Number(b - a);
}
overhead.sort();
const timerOverheadNs = quantileSorted(overhead, 0.5);

let sink = 0;
const decisions: Record<string, number> = {};
for (let warm = 0; warm < 5; warm++) {
  for (const input of corpus) {
    sink += new URL(input).href.length;
    const decision = checkUrl(compiled, input);
    sink += decision.allowed ? 1 : 0;
    if (warm === 0) {
      const key = decision.allowed ? "allowed" : (decision.reasonCode ?? "denied");
      decisions[key] = (decisions[key] ?? 0) + 1;
    }
  }
}

const urlTimes = new Float64Array(n);
const checkTimes = new Float64Array(n);
const checkMedians: number[] = [];
const checkP99s: number[] = [];
const urlMedians: number[] = [];
const urlP99s: number[] = [];
for (let round = 0; round < rounds; round++) {
  for (let i = 0; i < n; i++) {
    const input = corpus[i]!;
    const t0 = process.hrtime.bigint();
    const url = new URL(input);
    const t1 = process.hrtime.bigint();
    const decision = checkUrl(compiled, input);
    const t2 = process.hrtime.bigint();
    sink += url.port.length + (decision.allowed ? 1 : 0);
    urlTimes[i] = Number(t1 - t0) - timerOverheadNs;
    checkTimes[i] = Number(t2 - t1) - timerOverheadNs;
  }
  urlTimes.sort();
  checkTimes.sort();
  checkMedians.push(quantileSorted(checkTimes, 0.5));
  checkP99s.push(quantileSorted(checkTimes, 0.99));
  urlMedians.push(quantileSorted(urlTimes, 0.5));
  urlP99s.push(quantileSorted(urlTimes, 0.99));
}

const result: UrlCheckSizeResult = {
  size,
  compileMsRuns,
  compileMs: median(compileMsRuns),
  heapBytesPerEntry,
  heapBytesCompiled: heapBytesPerEntry * size,
  rounds,
  corpus: n,
  checkMedianNs: median(checkMedians),
  checkP99Ns: median(checkP99s),
  urlMedianNs: median(urlMedians),
  urlP99Ns: median(urlP99s),
  timerOverheadNs,
  decisions,
};
if (sink === 42) console.error("");
process.stdout.write(`${JSON.stringify(result)}\n`);
