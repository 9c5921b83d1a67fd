/**
 * reports/conformance.json: the verdicts, their reasons and the run facts, as `iotc run` and `iotc
 * report merge` write them (src/report/conformance.ts builds it;
 * test/report/inconclusive-files.test.ts validates a built one). The verdict vocabularies are
 * defined here and the report's types derive from them.
 */

/** A requirement's verdict (docs/reference/verdicts.md). */
export const REQUIREMENT_VERDICTS = [
  'PASS',
  'FAIL',
  'DEVIATION',
  'INCONCLUSIVE',
  'NOT APPLICABLE',
  'NOT TESTED',
] as const;

/**
 * A scenario's outcome: cucumber's statuses, and INCONCLUSIVE for one that failed with an
 * `INCONCLUSIVE:` error.
 */
export const SCENARIO_STATUSES = [
  'PASSED',
  'SKIPPED',
  'INCONCLUSIVE',
  'UNKNOWN',
  'PENDING',
  'UNDEFINED',
  'AMBIGUOUS',
  'FAILED',
] as const;

/** The one-line verdict of a whole report (src/report/overall.ts). */
export const OVERALL_VERDICTS = [
  'CONFORMANT',
  // every FAIL is of a SHOULD (a recommendation): conformant, with warnings (issue 28, Device
  // Advisor's wording)
  'PASS WITH WARNINGS',
  'NOT CONFORMANT',
  'INCOMPLETE',
  'NOT TESTED',
] as const;

const harnessWorkerSchema = {
  type: 'object',
  required: ['pid', 'eventLoopLagMs', 'measuredDelays'],
  properties: {
    pid: { type: 'integer' },
    /** The worker's event-loop lag over its whole run, in ms (perf_hooks.monitorEventLoopDelay). */
    eventLoopLagMs: {
      type: 'object',
      required: ['max', 'p99', 'mean'],
      properties: {
        max: { type: 'number', minimum: 0 },
        p99: { type: 'number', minimum: 0 },
        mean: { type: 'number', minimum: 0 },
      },
      additionalProperties: false,
    },
    /**
     * steps/support/timing.ts measuredDelays.summary(): by kind, the largest delay seen and how
     * many were.
     */
    measuredDelays: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        required: ['maxMs', 'count'],
        properties: {
          maxMs: { type: 'number', minimum: 0 },
          count: { type: 'integer', minimum: 0 },
        },
        additionalProperties: false,
      },
    },
    /**
     * A remote target only: the round trip to each of its interfaces the worker measured at its
     * start (steps/support/network.ts), the largest of them, and the timeouts derived from it
     * (timing.ts networkTimeouts).
     */
    network: {
      type: 'object',
      required: ['roundTripMs', 'interfaces', 'timeouts'],
      properties: {
        roundTripMs: { type: 'number', minimum: 0 },
        interfaces: {
          type: 'object',
          additionalProperties: {
            type: 'object',
            required: ['url', 'samplesMs'],
            properties: {
              url: { type: 'string' },
              rttMs: { type: 'number', minimum: 0 },
              samplesMs: { type: 'array', items: { type: 'number', minimum: 0 } },
              error: { type: 'string' },
            },
            additionalProperties: false,
          },
        },
        timeouts: {
          type: 'object',
          required: ['eventuallyMs', 'pollIntervalMs', 'requestMs'],
          properties: {
            eventuallyMs: { type: 'number', minimum: 0 },
            pollIntervalMs: { type: 'number', minimum: 0 },
            requestMs: { type: 'number', minimum: 0 },
          },
          additionalProperties: false,
        },
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const;

const scenarioSchema = {
  type: 'object',
  required: ['name', 'location', 'status', 'durationMs'],
  properties: {
    name: { type: 'string' },
    location: { type: 'string' },
    status: { enum: SCENARIO_STATUSES },
    durationMs: { type: 'number' },
    error: { type: 'string' },
    failedStep: { type: 'string' },
    exchanges: { type: 'array' },
    /** Why a SKIPPED scenario was skipped (the profile field or capability it lacked). */
    skipped: { type: 'string' },
  },
} as const;

const requirementResultSchema = {
  type: 'object',
  required: ['id', 'interface', 'verdict', 'planned', 'scenarios'],
  properties: {
    id: { type: 'string' },
    interface: { type: 'string' },
    verdict: { enum: REQUIREMENT_VERDICTS },
    /**
     * Always given for NOT TESTED, NOT APPLICABLE and INCONCLUSIVE; for a PASS that declared
     * deviations thinned.
     */
    reason: { type: 'string' },
    planned: { type: 'integer', minimum: 0 },
    deviationDeclared: { type: 'boolean' },
    /**
     * Its scenarios that declared deviations of other requirements kept from running
     * (src/report/verdicts.ts).
     */
    setAside: {
      type: 'object',
      required: ['scenarios', 'deviations', 'checkedByAlternatives'],
      properties: {
        scenarios: { type: 'integer', minimum: 1 },
        deviations: { type: 'array', items: { type: 'string' }, minItems: 1 },
        checkedByAlternatives: { type: 'boolean' },
      },
      additionalProperties: false,
    },
    scenarios: { type: 'array', items: scenarioSchema },
  },
  // NOT TESTED, NOT APPLICABLE and INCONCLUSIVE always say why
  anyOf: [
    { properties: { verdict: { enum: ['PASS', 'FAIL', 'DEVIATION'] } } },
    { required: ['reason'] },
  ],
} as const;

export const conformanceReportSchema = {
  $id: 'iotc:conformance-report',
  type: 'object',
  required: ['tool', 'target', 'run', 'summary', 'requirements', 'untraced'],
  properties: {
    tool: { type: 'object', required: ['name', 'version'] },
    verdict: { enum: OVERALL_VERDICTS },
    /** Why the run is INCOMPLETE when requirements are INCONCLUSIVE. */
    verdictReason: { type: 'string' },
    provenance: { type: 'object' },
    target: { type: 'object', required: ['name', 'httpUrl', 'adminUrl', 'capabilities'] },
    run: {
      type: 'object',
      required: ['startedAt', 'finishedAt', 'durationMs', 'tagExpression', 'scenarios', 'seeds'],
      properties: {
        startedAt: { type: 'string' },
        finishedAt: { type: 'string' },
        durationMs: { type: 'number' },
        tagExpression: { type: 'string' },
        scenarios: { type: 'object', additionalProperties: { type: 'integer' } },
        seeds: { type: 'array' },
        couldNotTest: { type: 'string' },
        /**
         * The run was stopped before its end (Ctrl-C): how; the report holds what ran until then.
         */
        interrupted: { type: 'string' },
        /** How loaded the harness was, per worker process. */
        harness: { type: 'array', items: harnessWorkerSchema },
        /** The twin ran asynchronous: the run's seed (src/target/twin-asynchrony.ts). */
        twin: {
          type: 'object',
          required: ['asynchronous', 'seed', 'workers'],
          properties: {
            asynchronous: { const: true },
            seed: { type: 'integer' },
            workers: { type: 'integer', minimum: 1 },
          },
          additionalProperties: false,
        },
      },
      additionalProperties: false,
    },
    summary: {
      type: 'array',
      items: {
        type: 'object',
        required: ['interface', 'requirements', 'testable', 'tested', 'verdicts'],
        properties: {
          verdicts: {
            type: 'object',
            required: [...REQUIREMENT_VERDICTS],
            additionalProperties: false,
            properties: Object.fromEntries(
              REQUIREMENT_VERDICTS.map((verdict) => [verdict, { type: 'integer', minimum: 0 }]),
            ),
          },
        },
      },
    },
    requirements: { type: 'array', items: requirementResultSchema },
    untraced: { type: 'array', items: { type: 'string' } },
  },
  additionalProperties: false,
} as const;
