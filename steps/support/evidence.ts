/**
 * Scenario evidence: the exchanges of the scenario that is running. Drivers made per scenario get
 * the world's log as their recorder; what the whole run shares (the admin sessions, opened once)
 * records through `recordExchange`, which writes to the log of the scenario running now (scenarios
 * of one process run one at a time).
 */
import type { Exchange, ExchangeLog } from '../../src/report/exchanges';

let current: ExchangeLog | undefined;

/**
 * Starts recording into a scenario's log (Before hook); `undefined` stops (After hook, before
 * cleanup).
 */
export function recordInto(log: ExchangeLog | undefined): void {
  current = log;
}

/**
 * A recorder for drivers that outlive a scenario: the exchange goes to the running scenario's log,
 * if any.
 */
export function recordExchange(exchange: Exchange): void {
  current?.record(exchange);
}
