import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { DEFAULT_RISK_POLICY, riskPolicyFromJson, TraceEvaluator, type RiskPolicy, type TraceEvaluation } from "@gatehouse/core";
import { openIpData, type IpData } from "./ip-data.ts";
import { readRbaDataset } from "./rba-dataset.ts";

/** The dataset through the real engine in memory, in time order; one JSON object. */
export async function evaluateDataset(path: string, ipData: IpData, policy: RiskPolicy = DEFAULT_RISK_POLICY): Promise<TraceEvaluation> {
  // Judged as enforcement would judge: the measure is what the engine would have asked for, whatever the mode.
  const evaluator = new TraceEvaluator({ ...policy, mode: "enforce" }, { timer: () => performance.now() });
  for await (const row of readRbaDataset(path, ipData)) evaluator.observe(row);
  return evaluator.result();
}

/** The IP data files the environment names (the server reads the same variables). */
export function ipDataFilesFromEnv(env: Readonly<Record<string, string | undefined>>) {
  const file = (name: string) => (env[name] === undefined || env[name] === "" ? undefined : env[name]);
  return { countryDb: file("IP_COUNTRY_DB"), asnDb: file("IP_ASN_DB"), cityDb: file("IP_CITY_DB") };
}

/** `gatehouse risk evaluate --dataset FILE [--policy FILE]`. */
export async function evaluateDatasetCommand(
  dataset: string,
  policyFile: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Promise<TraceEvaluation> {
  const policy = policyFile === undefined ? DEFAULT_RISK_POLICY : riskPolicyFromJson(JSON.parse(readFileSync(policyFile, "utf8")) as unknown);
  return evaluateDataset(dataset, openIpData(ipDataFilesFromEnv(env)), policy);
}
