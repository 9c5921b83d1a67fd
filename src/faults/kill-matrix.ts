/**
 * `iotc faults` as a whole: the reference's faults (judged by `iotc run`'s scenarios, in this process or in worker
 * processes) and the clients' under test (judged by `iotc certify` sessions) run side by side, and their results
 * become one matrix: one list of faults, each with the role of its requirement, one summary, one exit code.
 */
import { runClientMatrix } from './client-matrix';
import { runFaultMatrix, summarize, type MatrixOptions, type MatrixResult } from './matrix';
import { allRequirements, selectAll, uncoveredRequirements } from './selection';
import { runFaultMatrixInWorkers } from './workers';

export async function runKillMatrix(
  options: MatrixOptions & { workers: number },
): Promise<MatrixResult> {
  const started = Date.now();
  const { reference, clients } = selectAll(options);
  // a share of worker processes holds only faults of the reference (workers.ts deals those alone)
  const referenceOptions = { ...options, faults: options.faults?.filter(isReferenceFault) };
  const [referenceResult, clientResult] = await Promise.all([
    reference.length === 0
      ? undefined
      : options.workers > 1
        ? runFaultMatrixInWorkers(referenceOptions)
        : runFaultMatrix(referenceOptions),
    clients.length === 0
      ? undefined
      : runClientMatrix(clients, { concurrency: options.workers, log: options.log }),
  ]);
  const roles = new Map(allRequirements().map((requirement) => [requirement.id, requirement.role]));
  const faults = [...(referenceResult?.faults ?? []), ...(clientResult?.faults ?? [])].map(
    (fault) => ({ ...fault, role: roles.get(fault.requirement) }),
  );
  const uncovered = uncoveredRequirements(options);
  return {
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    target: referenceResult?.target ?? options.target ?? 'embedded',
    selection: { faults: options.faults, requirements: options.requirements },
    baseline: referenceResult?.baseline ?? {
      ok: true,
      requirements: 0,
      notPassing: [],
      durationMs: 0,
    },
    clients: clientResult?.controls ?? [],
    faults,
    uncovered,
    summary: summarize(faults, uncovered),
  };

  function isReferenceFault(id: string): boolean {
    return reference.some((fault) => fault.id === id);
  }
}
