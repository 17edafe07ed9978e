/** CPU use of processes from the scheduler's own count (/proc/<pid>/task/<tid>/schedstat), not sampled ticks. Linux only. */
import { readdirSync, readFileSync } from "node:fs";

/** CPU time a process's threads have run so far, in ms; 0 once it is gone. */
export function cpuMs(pid: string): number {
  try {
    let ns = 0;
    for (const thread of readdirSync(`/proc/${pid}/task`)) ns += Number(readFileSync(`/proc/${pid}/task/${thread}/schedstat`, "utf8").split(" ")[0]);
    return ns / 1e6;
  } catch {
    return 0;
  }
}

/** Every running `postgres` process and its CPU so far (ms), so that a backend that starts or ends mid-block still counts. */
export function postgresCpuMs(): Map<string, number> {
  const ms = new Map<string, number>();
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "postgres") ms.set(pid, cpuMs(pid));
    } catch {
      // gone meanwhile
    }
  }
  return ms;
}
