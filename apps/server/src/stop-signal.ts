/** How often a process checks that the process that started it is still there. */
const PARENT_POLL_MS = 1_000;

export type StopReason = NodeJS.Signals | "parent_gone";

export interface StopSignalOptions {
  /** The parent's pid as the process reads it now; injected by tests. */
  readonly parentPid?: (() => number) | undefined;
  readonly pollMs?: number | undefined;
}

/**
 * Resolves on the first SIGTERM or SIGINT, or once the process that started this one is gone, and keeps absorbing
 * later signals, so a second signal (Ctrl-C reaches a whole process group, then a supervisor forwards SIGTERM) cannot
 * kill a process mid-drain. The parent check is for launchers that do not forward signals: SIGTERM to
 * `npx gatehouse serve` ends npx alone, and the server, handed to init, would serve on with nobody to stop it.
 * A process whose parent is init from the start (a container's PID 1 started it) has no parent to lose.
 */
export function untilStopSignal(logger: { info(fields: object, message: string): void }, options: StopSignalOptions = {}): Promise<StopReason> {
  const parentPid = options.parentPid ?? (() => process.ppid);
  return new Promise((resolve) => {
    let first: StopReason | undefined;
    const stop = (reason: StopReason) => {
      if (first !== undefined) return;
      first = reason;
      clearInterval(watch);
      logger.info(reason === "parent_gone" ? { reason } : { signal: reason }, "shutting down");
      resolve(reason);
    };
    process.on("SIGTERM", stop);
    process.on("SIGINT", stop);
    const parent = parentPid();
    const watch = setInterval(() => {
      if (parent > 1 && parentPid() !== parent) stop("parent_gone");
    }, options.pollMs ?? PARENT_POLL_MS);
    watch.unref();
  });
}
