/**
 * Kept apart from src/report/exit-code.ts so that --help loads no report code (the commands load
 * theirs lazily).
 */
/**
 * The exit codes as `iotc run --help`, `iotc certify --help` and `iotc report merge --help` print
 * them.
 */
export const EXIT_CODES_HELP = `
Exit codes (docs/reference/verdicts.md):
  0  CONFORMANT; PASS WITH WARNINGS (every FAIL is of a SHOULD); or INCOMPLETE only because the
     selection (--tags, paths; for certify: what the client exercised) left requirements out
  1  NOT CONFORMANT: a MUST or MAY requirement FAILs
  2  bad invocation
  3  nothing decided (target unreachable, client sent nothing, every requirement NOT TESTED)
  4  no FAIL, but some requirement is INCONCLUSIVE (the harness was starved): run it again
  5  the selection matches no scenario
  6  INCOMPLETE: no FAIL, but requirements the run selected stayed NOT TESTED (skipped scenarios,
     a default never exercised, no scenario): the run did not prove them
  130 interrupted`;
