/**
 * `iotc faults` as a whole: the reference's faults (judged by `iotc run`'s scenarios, in this
 * process or in worker processes) and the clients' under test (judged by `iotc certify` sessions)
 * run side by side, and their results become one matrix: one list of faults, each with the role of
 * its requirement, one summary, one exit code.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../lib/package-root';
import { CLIENTS_UNDER_TEST, type ClientKind } from '../../faults/client-catalogue';
import { runClientMatrix } from './client-matrix';
import { runFaultMatrix, summarize, type MatrixOptions, type MatrixResult } from './matrix';
import { allRequirements, selectAll, uncoveredRequirements } from './selection';
import {
  faultTime,
  lastFaultTimes,
  rememberFaultTimes,
  runFaultMatrixInWorkers,
  type LaterWorkers,
} from './workers';

export async function runKillMatrix(
  options: MatrixOptions & { workers: number },
): Promise<MatrixResult> {
  const started = Date.now();
  const { reference, clients: selectedClients } = selectAll(options);
  // the clients under test are sources of the repository (test/certify/), not in an installed
  // package: their faults are left out there, said on the console and in faults.json, never counted
  // as killed
  const missing = selectedClients.filter(
    (fault) => !existsSync(join(PACKAGE_ROOT, CLIENTS_UNDER_TEST[fault.client].file)),
  );
  const clients = selectedClients.filter((fault) => !missing.includes(fault));
  const clientsLeftOut = missing.length
    ? `${missing.length} client faults left out: their clients under test (${[
        ...new Set(missing.map((fault) => CLIENTS_UNDER_TEST[fault.client].file)),
      ].join(', ')}) are sources of the repository, not of an installed package`
    : undefined;
  if (clientsLeftOut) options.log?.(clientsLeftOut);
  // a share of worker processes holds only faults of the reference (workers.ts deals those alone)
  const referenceOptions = { ...options, faults: options.faults?.filter(isReferenceFault) };
  // The client certifications end before the reference's faults: their slots then take as many
  // further reference workers, dealt the shares that end with the first ones (workers.ts,
  // LaterWorkers); the certifications start longest first. Both by the faults' times of the last
  // matrix here, and the later workers only when it knew the clients': counted as one reference
  // fault each (a fresh clone here, 2026-11-27), the 72 certifications of 3 to 30 s took 340 s
  // instead of the 24 faults' time their share assumed, the two later workers started then with 84
  // faults each and the matrix took 526 s
  const times = lastFaultTimes();
  const clientRun =
    clients.length === 0
      ? undefined
      : runClientMatrix(clients, {
          concurrency: options.workers,
          log: options.log,
          expectedMs: faultTime(
            clients.map((fault) => fault.id),
            times,
          ),
        });
  const later: LaterWorkers | undefined =
    clientRun && clients.some((fault) => times.has(fault.id))
      ? {
          workers: options.workers,
          after: clientRun,
          expectedMs: expectedClientMs(clients, options.workers, [...reference, ...clients], times),
        }
      : undefined;
  const [referenceResult, clientResult] = await Promise.all([
    reference.length === 0
      ? undefined
      : options.workers > 1
        ? runFaultMatrixInWorkers({ ...referenceOptions, later })
        : runFaultMatrix(referenceOptions),
    clientRun,
  ]);
  const roles = new Map(allRequirements().map((requirement) => [requirement.id, requirement.role]));
  const faults = [...(referenceResult?.faults ?? []), ...(clientResult?.faults ?? [])].map(
    (fault) => ({ ...fault, role: roles.get(fault.requirement) }),
  );
  rememberFaultTimes(faults);
  const uncovered = uncoveredRequirements(options);
  return {
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    target: referenceResult?.target ?? options.target ?? 'embedded',
    selection: {
      faults: options.faults,
      requirements: options.requirements,
      ...(clientsLeftOut ? { clientsLeftOut } : {}),
    },
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

/**
 * How long the client certifications are expected to take, in the units of faultTime: their faults'
 * times and a clean certification per client kind (counted as one of its faults), `concurrency` at
 * once in each of client-matrix.ts's two sets of lanes (the sessions of a fixed --duration and the
 * others): the longer set's.
 */
function expectedClientMs(
  clients: ReadonlyArray<{ id: string; client: ClientKind }>,
  concurrency: number,
  all: ReadonlyArray<{ id: string }>,
  times: ReadonlyMap<string, number>,
): number {
  const timeOf = faultTime(
    all.map((fault) => fault.id),
    times,
  );
  const setMs = (long: boolean) => {
    const set = clients.filter(
      (fault) => CLIENTS_UNDER_TEST[fault.client].certify.includes('--duration') === long,
    );
    if (set.length === 0) return 0;
    const faultsMs = set.reduce((sum, fault) => sum + timeOf(fault.id), 0);
    const controlsMs = new Set(set.map((fault) => fault.client)).size * (faultsMs / set.length);
    return (faultsMs + controlsMs) / Math.max(1, concurrency);
  };
  return Math.max(setMs(true), setMs(false));
}
