/**
 * The client half of the kill matrix: every planted fault of a client under test
 * (faults/client-catalogue.ts) is certified by `iotc certify ... --exec <client>` with
 * IOTC_TEST_CLIENT_FAULT set, and is KILLED when exactly its requirement is FAIL and every other
 * verdict is the clean client's (except those its declaration lets it change). A clean
 * certification per client kind comes first, the control: all PASS, or that kind's faults are not
 * judged. Sessions run `concurrency` at a time, and as many sessions of a fixed --duration beside
 * them; each is a child process killed on every path (certify-run.ts).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  CLIENTS_UNDER_TEST,
  clientFaultName,
  type ClientFaultDefinition,
  type ClientKind,
} from '../../faults/client-catalogue';
import { faultRequirement } from '../../faults';
import { PACKAGE_ROOT } from '../../lib/package-root';
import type { Verdict } from '../report/verdicts';
import { certify, typeScriptClient, type Certified } from './certify-run';
import { SURVIVOR_ATTEMPTS, type ClientControl, type FaultResult } from './matrix';

/**
 * The RPC timeout of every session: short, as a clean client answers at once (the tests' own
 * value).
 */
const RPC_TIMEOUT_MS = 5000;
/**
 * A late reply waits twice the shortened timeout after the request arrived: late on any machine.
 */
const LATE_RPC_TIMEOUT_MS = 2000;
const LATE_REPLY_MS = 4000;

export interface ClientMatrixResult {
  controls: ClientControl[];
  faults: FaultResult[];
}

interface ClientMatrixOptions {
  concurrency: number;
  log?: (line: string) => void;
  /**
   * The harness's own tests only: certifications of a survivor before it is called one
   * (SURVIVOR_ATTEMPTS).
   */
  survivorAttempts?: number;
  /**
   * A fault's expected time (the last matrix's): the longest certifications start first, so that
   * none of 30 s starts last while the other slots stand idle. Without it, the catalogue's order.
   */
  expectedMs?: (id: string) => number;
}

export async function runClientMatrix(
  faults: readonly ClientFaultDefinition[],
  {
    concurrency,
    log = () => {},
    survivorAttempts = SURVIVOR_ATTEMPTS,
    expectedMs,
  }: ClientMatrixOptions,
): Promise<ClientMatrixResult> {
  const kinds = [...new Set(faults.map((fault) => fault.client))];
  // each kind's clean certification, started by the first lane that reaches it; its faults wait
  // for it (they start as soon as their own control is done, not when every kind's is)
  const controls = new Map<ClientKind, Promise<ClientControl>>();
  const controlOf = (kind: ClientKind) => {
    let running = controls.get(kind);
    if (!running) {
      running = control(kind).then((entry) => {
        log(
          entry.ok
            ? `client control: ${entry.client} certifies with all ${Object.keys(entry.verdicts).length} requirements PASS (${seconds(entry.durationMs)})`
            : `client control: ${entry.client} is not a control: ${entry.reason}; its faults cannot be judged`,
        );
        return entry;
      });
      controls.set(kind, running);
    }
    return running;
  };
  const longestFirst = expectedMs
    ? faults
        .map((_, index) => index)
        .sort((a, b) => expectedMs(faults[b]!.id) - expectedMs(faults[a]!.id))
    : faults.map((_, index) => index);
  const results: FaultResult[] = new Array(faults.length);
  const judgeAt = (index: number) => async () => {
    const fault = faults[index]!;
    const result = await judgeFault(fault, await controlOf(fault.client), survivorAttempts);
    log(
      `${result.outcome === 'killed' ? 'killed  ' : result.outcome === 'survived' ? 'SURVIVED' : 'NOT JUDGED'} ${fault.id} (client ${fault.client}, ${seconds(result.durationMs)})${result.reason ? `: ${result.reason}` : ''}`,
    );
    results[index] = result;
  };
  // Two sets of `concurrency` lanes: the certifications that run for a fixed --duration (the
  // behaviour over time, 25-35 s each, nearly all of it the client's idle session: a PINGREQ every
  // 2 s, a reconnect now and then) and the others (a few seconds each, mostly CPU: a reference and
  // a client started). In one set of two lanes the ten long ones (293 s) held the lanes as long as
  // the 62 others (274 s) and the clients' part of the matrix took 283 s; side by side it ends when
  // the longer set does.
  const waits = (kind: ClientKind) => CLIENTS_UNDER_TEST[kind].certify.includes('--duration');
  const tasksOf = (long: boolean) => [
    ...kinds.filter((kind) => waits(kind) === long).map((kind) => () => controlOf(kind)),
    ...longestFirst.filter((index) => waits(faults[index]!.client) === long).map(judgeAt),
  ];
  await Promise.all([inLanes(tasksOf(true), concurrency), inLanes(tasksOf(false), concurrency)]);
  return {
    controls: await Promise.all(kinds.map((kind) => controlOf(kind))),
    faults: results,
  };
}

/**
 * Killed, or why not: the certification must exit 1 with exactly the verdicts of the control, the
 * fault's own requirement FAIL and the allowed changes.
 */
export function judgeClientCertification(
  fault: ClientFaultDefinition,
  control: Readonly<Record<string, string>>,
  certified: Pick<Certified, 'code' | 'verdicts'>,
  /** The level of the fault's requirement. */
  level = 'MUST',
): { killed: boolean; reason?: string } {
  const requirement = faultRequirement(fault.id);
  const expected: Record<string, string> = {
    ...control,
    ...fault.alsoChanges,
    [requirement]: 'FAIL',
  };
  const ids = [...new Set([...Object.keys(expected), ...Object.keys(certified.verdicts)])];
  const differences = ids
    .filter((id) => expected[id] !== certified.verdicts[id])
    .map(
      (id) =>
        `${id} is ${certified.verdicts[id] ?? 'absent'}, expected ${expected[id] ?? 'absent'}`,
    );
  if (differences.length) return { killed: false, reason: differences.join('; ') };
  // a SHOULD that fails is a warning: the certification passes with warnings and exits 0
  // (src/cli/certify.ts)
  const exitCode = level === 'SHOULD' ? 0 : 1;
  if (certified.code !== exitCode)
    return {
      killed: false,
      reason: `iotc certify exited with ${certified.code}, not ${exitCode}`,
    };
  return { killed: true };
}

async function control(kind: ClientKind): Promise<ClientControl> {
  const started = Date.now();
  const missing = missingClient(kind);
  if (missing) return { client: kind, ok: false, verdicts: {}, reason: missing, durationMs: 0 };
  try {
    const certified = await certifyClient(kind, {}, RPC_TIMEOUT_MS);
    const notPassing = Object.entries(certified.verdicts).filter(([, v]) => v !== 'PASS');
    const reason =
      certified.code !== 0
        ? `the clean client's certification exited with ${certified.code}`
        : notPassing.length
          ? `with no fault on, ${notPassing.map(([id, verdict]) => `${id} is ${verdict}`).join(', ')}`
          : undefined;
    const durationMs = Date.now() - started;
    return { client: kind, ok: !reason, verdicts: certified.verdicts, reason, durationMs };
  } catch (error) {
    const reason = `the clean certification failed: ${(error as Error).message}`;
    return { client: kind, ok: false, verdicts: {}, reason, durationMs: Date.now() - started };
  }
}

async function judgeFault(
  fault: ClientFaultDefinition,
  control: ClientControl,
  survivorAttempts: number,
): Promise<FaultResult> {
  const requirement = faultRequirement(fault.id);
  const entry = { id: fault.id, requirement, breaks: fault.breaks, client: fault.client };
  if (!control.ok)
    return {
      ...entry,
      outcome: 'not judged',
      reason: `the clean ${fault.client} client is not a control`,
      scenarios: 0,
      durationMs: 0,
    };
  const started = Date.now();
  let attempts = 0;
  let certified: Certified | undefined;
  let judged: { killed: boolean; reason?: string } = { killed: false };
  try {
    // a survivor is certified again before it is called one, as a reference fault is judged again
    while (attempts < survivorAttempts && !judged.killed) {
      attempts += 1;
      const environment = {
        IOTC_TEST_CLIENT_FAULT: clientFaultName(fault.id),
        IOTC_TEST_CLIENT_LATE_MS: String(LATE_REPLY_MS),
      };
      certified = await certifyClient(
        fault.client,
        environment,
        fault.lateReply ? LATE_RPC_TIMEOUT_MS : RPC_TIMEOUT_MS,
      );
      judged = judgeClientCertification(
        fault,
        control.verdicts,
        certified,
        certified.report.requirements.find((result) => result.id === requirement)?.level,
      );
    }
  } catch (error) {
    return {
      ...entry,
      outcome: 'not judged',
      reason: `the certification failed: ${(error as Error).message}`,
      scenarios: 0,
      durationMs: Date.now() - started,
    };
  }
  const own = certified!.report.requirements.find((result) => result.id === requirement);
  return {
    ...entry,
    outcome: judged.killed ? 'killed' : 'survived',
    verdict: certified!.verdicts[requirement] as Verdict | undefined,
    reason: judged.reason,
    scenarios: own?.scenarios.length ?? 0,
    failure: firstFailure(own?.scenarios ?? []),
    durationMs: Date.now() - started,
    attempts,
  };
}

function certifyClient(kind: ClientKind, env: Record<string, string>, rpcTimeoutMs: number) {
  const client = CLIENTS_UNDER_TEST[kind];
  return certify(
    [...client.certify, '--rpc-timeout-ms', String(rpcTimeoutMs)],
    typeScriptClient(client.file),
    env,
  );
}

/**
 * The clients under test are TypeScript sources of the repository: an installed package does not
 * have them.
 */
function missingClient(kind: ClientKind): string | undefined {
  const { file } = CLIENTS_UNDER_TEST[kind];
  return existsSync(join(PACKAGE_ROOT, file))
    ? undefined
    : `${file} is not here (the clients under test are in the repository, not in the package)`;
}

/**
 * The first failed check of the requirement in the certification's report: its evidence of the
 * fault.
 */
function firstFailure(scenarios: readonly unknown[]): FaultResult['failure'] {
  const failed = (
    scenarios as Array<{
      name: string;
      location: string;
      status: string;
      failedStep?: string;
      error?: string;
    }>
  ).find((scenario) => scenario.status === 'FAILED');
  return failed
    ? {
        scenario: failed.name,
        location: failed.location,
        step: failed.failedStep,
        error: failed.error?.slice(0, 600),
      }
    : undefined;
}

/** Runs the tasks in their order, at most `concurrency` at once. */
async function inLanes(tasks: ReadonlyArray<() => Promise<unknown>>, concurrency: number) {
  let next = 0;
  const lanes = Array.from({ length: Math.min(concurrency, tasks.length) }, async () => {
    while (next < tasks.length) {
      const task = tasks[next]!;
      next += 1;
      await task();
    }
  });
  await Promise.all(lanes);
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
