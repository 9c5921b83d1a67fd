/**
 * The kill matrix's options and results (matrix.ts runs it, selection.ts chooses its faults,
 * matrix-report.ts prints it): apart, so that neither of those imports the other's module for a
 * type.
 */
import type { ClientKind } from '../../faults/client-catalogue';
import type { Role } from '../../schemas';
import type { Verdict } from '../report/verdicts';

export type FaultOutcome = 'killed' | 'survived' | 'not judged';

/** Where a fault was seen: the first scenario of its requirement that did not pass. */
export interface Failure {
  scenario: string;
  location: string;
  step?: string;
  error?: string;
}

export interface FaultResult {
  id: string;
  requirement: string;
  breaks: string;
  outcome: FaultOutcome;
  /** The requirement's verdict with the fault on. */
  verdict?: Verdict;
  /** Why it was not judged, or what the verdict said when it survived. */
  reason?: string;
  scenarios: number;
  failure?: Failure;
  durationMs: number;
  /**
   * Runs it took: a fault that survives is judged again (SURVIVOR_ATTEMPTS in all) before it is
   * called a survivor.
   */
  attempts?: number;
  /**
   * The role of the requirement: platform or connector for a fault of the reference, device or
   * gateway for a client's.
   */
  role?: Role;
  /** A fault of a client under test: which one (a fault of the reference has none). */
  client?: ClientKind;
}

/** The clean certification of one client under test: the control its faults are judged against. */
export interface ClientControl {
  client: ClientKind;
  ok: boolean;
  verdicts: Record<string, string>;
  /** Why it is not a usable control. */
  reason?: string;
  durationMs: number;
}

export interface BaselineResult {
  /** Every requirement of the selected faults PASSes with no fault on. */
  ok: boolean;
  requirements: number;
  /** The requirements that did not PASS, with their verdict and first failure. */
  notPassing: Array<{ id: string; verdict: Verdict; reason?: string; failure?: Failure }>;
  durationMs: number;
}

export interface MatrixResult {
  startedAt: string;
  durationMs: number;
  target: string;
  selection: {
    faults?: string[];
    requirements?: string[];
    /**
     * Why client faults of the selection did not run (an installed package has no clients under
     * test).
     */
    clientsLeftOut?: string;
  };
  baseline: BaselineResult;
  /** The clean certification per client kind whose faults were selected. */
  clients: ClientControl[];
  faults: FaultResult[];
  /** Testable requirements in scope with no fault in the catalogue. */
  uncovered: Array<{ id: string; interface: string; statement: string }>;
  summary: {
    faults: number;
    killed: number;
    survived: number;
    notJudged: number;
    requirementsWithFaults: number;
    uncovered: number;
    /** Of `faults`, those of a client under test. */
    clientFaults: number;
  };
}

export interface MatrixOptions {
  /** Only these faults (developer filter). */
  faults?: string[];
  /** Only the faults of these requirements (developer filter). */
  requirements?: string[];
  target?: string;
  /**
   * The harness's own tests only: judge a fault by another requirement's scenarios, to make a known
   * survivor (one whose fault those scenarios cannot see). Never used by `iotc faults`.
   */
  judgeBy?: Readonly<Record<string, string>>;
  /** One line per fault as it is judged. */
  log?: (line: string) => void;
}
