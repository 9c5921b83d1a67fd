/**
 * Scenario evidence: the exchanges of the scenario that is running. Drivers made per scenario get
 * the world's log as their recorder; what the whole run shares (the admin sessions, opened once)
 * records through `recordExchange`, which writes to the log of the scenario whose step made the
 * exchange (a worker may run several at once: scenario-scope.ts).
 */
import type { Exchange, ExchangeLog } from '../../src/report/exchanges';
import { scenarioState } from './scenario-scope';

const RECORDING = Symbol('iotc: the exchange log the scenario records into');
const recording = () =>
  scenarioState(RECORDING, () => ({ log: undefined as ExchangeLog | undefined }));

/**
 * Starts recording into a scenario's log (Before hook); `undefined` stops (After hook, before
 * cleanup).
 */
export function recordInto(log: ExchangeLog | undefined): void {
  const scenario = recording();
  if (scenario) scenario.log = log;
}

/**
 * A recorder for drivers that outlive a scenario: the exchange goes to the running scenario's log,
 * if any.
 */
export function recordExchange(exchange: Exchange): void {
  recording()?.log?.record(exchange);
}
