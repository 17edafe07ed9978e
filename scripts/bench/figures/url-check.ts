/**
 * The URL decision in process against `new URL()` alone, at policy sizes from 10 to 1,000,000 entries. Each size runs
 * in a child process of its own (this module, run as a script: a fresh heap), the sizes in turn within each run, so a
 * slow phase of the machine lands on every size alike. Each input is timed call by call, `new URL(input)` then
 * `checkUrl(compiled, input)`, the clock's own cost subtracted; median per round, median of the rounds.
 */
import { checkUrl, compileAccessControl } from "@gatehouse/core";
import { HostTable } from "../../../packages/core/src/url-policy/host-table.ts";
import { sized, table, verdict, type Figure } from "../figure.ts";
import { generateCorpus, generatePolicy } from "../hosts.ts";
import { runNodeJson } from "../load.ts";
import { fmt, median, quantileSorted } from "../stats.ts";

type SizeResult = ReturnType<typeof measureSize>;

export const urlCheck: Figure = {
  name: "url-check",
  title: "URL check in process",
  async run(context) {
    const o = sized(
      context,
      { sizes: [10, 1000, 100_000, 1_000_000], rounds: 7, corpus: 4000, runs: 3 },
      { sizes: [10, 1000], rounds: 2, corpus: 300, runs: 1 },
    );
    checkHostTable(o.sizes.at(-1)!);
    context.log(`a host table of ${fmt(o.sizes.at(-1)!)} keys keeps every key and invents none`);
    const results: SizeResult[] = [];
    for (let run = 0; run < o.runs; run++) {
      for (const size of o.sizes) {
        const args = [import.meta.filename, size, o.rounds, o.corpus].map(String);
        const result = await runNodeJson<SizeResult>(["--conditions=@gatehouse/source", ...args], context.root);
        context.log(`${fmt(size)} entries: checkUrl ${result.checkNs} ns, new URL ${result.urlNs} ns (run ${run + 1})`);
        results.push(result);
      }
    }
    const runs = Object.groupBy(results, (result) => result.size);
    const sizes = o.sizes.map((size) => {
      const of = (pick: (r: SizeResult) => number) => median(runs[size]!.map(pick));
      return {
        size,
        ratio: of((r) => r.checkNs / r.urlNs),
        checkNs: of((r) => r.checkNs),
        urlNs: of((r) => r.urlNs),
        p99Ns: of((r) => r.checkP99Ns),
      };
    });
    const worst = sizes.reduce((a, b) => (b.ratio > a.ratio ? b : a));
    const flatness = Math.max(...sizes.map((s) => Math.abs(s.checkNs / sizes[0]!.checkNs - 1)));
    const rows = [
      {
        measurement: "URL check median vs `new URL()` alone (worst size)",
        figure: `${fmt(worst.checkNs)} ns vs ${fmt(worst.urlNs)} ns = ${fmt(worst.ratio, 2)}× (at ${fmt(worst.size)} entries)`,
        goal: "≤ 2.5×",
        result: verdict(worst.ratio <= 2.5),
      },
      {
        measurement: `URL check median, flat from ${fmt(o.sizes[0])} to ${fmt(o.sizes.at(-1))} entries`,
        figure: `${fmt(sizes[0]!.checkNs)} → ${fmt(sizes.at(-1)!.checkNs)} ns; worst ${fmt(flatness * 100, 0)}% off`,
        goal: "within ±30%",
        result: verdict(flatness <= 0.3),
      },
    ];
    const details = [
      `Policies of N entries in stored form (half allowed, half blocked, a third \`*.\` wildcards, seeded host names); ${fmt(o.corpus)} URLs per size ` +
        `(≈30% exact hits, 30% wildcard hits, 33% misses, 7% odd spellings); ${o.rounds} rounds per child, ${o.runs} child(ren) per size, medians.`,
      "",
      table(
        ["Entries", "checkUrl p50 ns", "checkUrl p99 ns", "new URL p50 ns", "ratio"],
        sizes.map((s) => [fmt(s.size), fmt(s.checkNs), fmt(s.p99Ns), fmt(s.urlNs), `${fmt(s.ratio, 2)}×`]),
      ),
    ].join("\n");
    return { rows, details, data: runs };
  },
};

/**
 * A host table of the figure's largest size keeps every key with its bits and answers 0 for a key never added:
 * the unit tests (packages/core/test/url-policy/host-table.test.ts) check the table at sizes they can afford.
 */
function checkHostTable(size: number): void {
  const table = new HostTable(size);
  for (let i = 0; i < size; i++) table.add(`h${i}.example`, 1 + (i % 15));
  const last = size - 1;
  if (table.size !== size || table.get(`h${last}.example`) !== 1 + (last % 15) || table.get(`h${size}.example`) !== 0) {
    throw new Error(`a host table of ${size} keys lost or invented a key`);
  }
}

/** The child: one policy size, one JSON line. */
function measureSize(size: number, rounds: number, corpusSize: number) {
  const policy = generatePolicy(size);
  const corpus = generateCorpus(policy, corpusSize);
  const compiled = compileAccessControl(policy.accessControl);
  const clock = new Float64Array(20_000).map(() => -Number(process.hrtime.bigint() - process.hrtime.bigint())).sort();
  const overheadNs = quantileSorted(clock, 0.5);
  let sink = 0;
  for (let warm = 0; warm < 5; warm++) for (const input of corpus) sink += new URL(input).href.length + (checkUrl(compiled, input).allowed ? 1 : 0);
  const [urlTimes, checkTimes] = [new Float64Array(corpus.length), new Float64Array(corpus.length)];
  const perRound = Array.from({ length: rounds }, () => {
    corpus.forEach((input, i) => {
      const t0 = process.hrtime.bigint();
      const url = new URL(input);
      const t1 = process.hrtime.bigint();
      const decision = checkUrl(compiled, input);
      const t2 = process.hrtime.bigint();
      sink += url.port.length + (decision.allowed ? 1 : 0);
      urlTimes[i] = Number(t1 - t0) - overheadNs;
      checkTimes[i] = Number(t2 - t1) - overheadNs;
    });
    urlTimes.sort();
    checkTimes.sort();
    return { checkNs: quantileSorted(checkTimes, 0.5), checkP99Ns: quantileSorted(checkTimes, 0.99), urlNs: quantileSorted(urlTimes, 0.5) };
  });
  if (sink === 42) console.error("");
  const of = (key: keyof (typeof perRound)[number]) => median(perRound.map((round) => round[key]));
  return { size, checkNs: of("checkNs"), checkP99Ns: of("checkP99Ns"), urlNs: of("urlNs") };
}

if (import.meta.main) {
  const [size, rounds, corpus] = process.argv.slice(2).map(Number) as [number, number, number];
  process.stdout.write(`${JSON.stringify(measureSize(size, rounds, corpus))}\n`);
}
