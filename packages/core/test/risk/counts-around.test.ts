import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { countsAround, type FeatureGroup } from "../../src/risk/counts-around.ts";
import { FeatureCounts, levelKey } from "../../src/risk/feature-counts.ts";
import { FEATURE_CHAINS, featureKey, featuresOfKey, featureValues, type ChainName, type RiskObservation } from "../../src/records/risk-observation.ts";
import { scoreObservation } from "../../src/risk/score.ts";

/** Few values per feature, so histories share prefixes and differ below them as real ones do. */
const anObservation: fc.Arbitrary<RiskObservation> = fc.record({
  at: fc.constant(0),
  ip: fc.constantFrom("81.2.69.10", "81.2.69.11", "95.1.1.1"),
  country: fc.constantFrom("GB", "DE", null),
  asn: fc.constantFrom(5089, 3320, null),
  location: fc.constant(null),
  userAgent: fc.constantFrom("ua-1", "ua-2", ""),
  browser: fc.constantFrom("Chrome 131", "Firefox 133", null),
  os: fc.constantFrom("Windows 10", "Mac OS 14"),
  deviceType: fc.constantFrom("desktop", "mobile", null),
  rttMs: fc.constantFrom(10, 30, 260, null),
});

/** The rows as a store groups them: equal feature values once, with how many rows show them. */
function grouped(rows: readonly RiskObservation[]): FeatureGroup[] {
  const times = new Map<string, number>();
  for (const key of rows.map(featureKey)) times.set(key, (times.get(key) ?? 0) + 1);
  return [...times].map(([key, count]) => ({ values: featuresOfKey(key), times: count }));
}

function filled(rows: readonly RiskObservation[]): FeatureCounts {
  const counts = new FeatureCounts();
  for (const row of rows) counts.add(row);
  return counts;
}

describe("countsAround", () => {
  it("counts every level of the observation's chains as FeatureCounts does", () => {
    fc.assert(
      fc.property(anObservation, fc.array(anObservation, { maxLength: 40 }), (observation, rows) => {
        const around = countsAround(observation, grouped(rows));
        const all = filled(rows);
        const values = featureValues(observation);
        for (const chain of Object.keys(FEATURE_CHAINS) as ChainName[]) {
          for (let depth = 0; depth <= values[chain].length; depth++) {
            const key = levelKey(chain, values[chain], depth);
            expect([around.count(key), around.distinct(key)]).toEqual([all.count(key), all.distinct(key)]);
          }
        }
      }),
    );
  });

  it("gives the score FeatureCounts gives", () => {
    fc.assert(
      fc.property(anObservation, fc.array(anObservation, { maxLength: 40 }), fc.array(anObservation, { maxLength: 40 }), (observation, rows, others) => {
        const platform = filled([...rows, ...others]);
        expect(scoreObservation(observation, countsAround(observation, grouped(rows)), platform)).toEqual(
          scoreObservation(observation, filled(rows), platform),
        );
      }),
    );
  });

  it.each([
    ["no history", [], 0],
    ["one sign-in elsewhere", [{ country: "DE" }], 1],
  ] as const)("%s: the user's total is the rows read", (_name, overrides, total) => {
    const base = fc.sample(anObservation, { numRuns: 1, seed: 7 })[0]!;
    const rows = overrides.map((each) => ({ ...base, ...each }));
    expect(countsAround(base, grouped(rows)).count("ip")).toBe(total);
  });
});
