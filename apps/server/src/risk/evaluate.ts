import { performance } from "node:perf_hooks";
import { DEFAULT_RISK_POLICY, TraceEvaluator, type RiskPolicy, type TraceEvaluation } from "@gatehouse/core";
import type { IpData } from "./ip-data.ts";
import { readRbaDataset } from "./rba-dataset.ts";

/** `gatehouse risk evaluate`: the dataset through the real engine in memory, in time order; one JSON object. */
export async function evaluateDataset(path: string, ipData: IpData, policy: RiskPolicy = DEFAULT_RISK_POLICY): Promise<TraceEvaluation & { readonly policy_mode: string }> {
  // Judged as enforcement would judge: the measure is what the engine would have asked for.
  const evaluator = new TraceEvaluator({ ...policy, mode: "enforce" }, { timer: () => performance.now() });
  for await (const row of readRbaDataset(path, ipData)) evaluator.observe(row);
  return { ...evaluator.result(), policy_mode: policy.mode };
}
