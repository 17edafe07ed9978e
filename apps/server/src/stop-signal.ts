/**
 * Resolves on the first SIGTERM or SIGINT and keeps absorbing later ones, so a second signal (Ctrl-C
 * reaches a whole process group, then a supervisor forwards SIGTERM) cannot kill a process mid-drain.
 */
export function untilStopSignal(logger: { info(fields: object, message: string): void }): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    let first: NodeJS.Signals | undefined;
    const onSignal = (signal: NodeJS.Signals) => {
      if (first !== undefined) return;
      first = signal;
      logger.info({ signal }, "shutting down");
      resolve(signal);
    };
    process.on("SIGTERM", onSignal);
    process.on("SIGINT", onSignal);
  });
}
