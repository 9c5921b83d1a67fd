/**
 * Ctrl-C during a load run: the first SIGINT/SIGTERM aborts the run, which stops sending and
 * deletes what it created (the journal has it, should the cleanup itself be interrupted); a second
 * one exits at once with 130.
 */
export async function withInterruptAbort<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const abort = new AbortController();
  const interrupted = (signal: NodeJS.Signals) => {
    if (abort.signal.aborted) process.exit(130); // a second Ctrl-C: stop now; `iotc cleanup` finishes the job
    console.error(`\niotc load: ${signal}: stopping, then deleting what this run created`);
    abort.abort();
  };
  process.on('SIGINT', interrupted);
  process.on('SIGTERM', interrupted);
  try {
    return await work(abort.signal);
  } finally {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
  }
}
