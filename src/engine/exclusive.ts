/**
 * Which scenarios may run beside others against one shared target, and which go first. Against a
 * remote target every worker of a parallel run (src/engine/run.ts) uses the same tenant, so a
 * scenario that changes what others see must not overlap the scenarios it would disturb. The rule
 * is cucumber's setParallelCanAssign (steps/hooks.ts), asked in the coordinator each time a worker
 * is free; on embedded targets each worker has a platform of its own and no rule is set. A worker
 * that runs several scenarios at once (staggered-workers.ts, IOTC_SCENARIOS_PER_WORKER) shares its
 * one platform between them: canRunBeside decides among them, on every target.
 *
 * Each scenario has one of seven kinds of sharing:
 * - `alone`: nothing beside it: a feature folder not named below (shared state until sorted
 *   scenario by scenario), a `@robustness` scenario of a requirement not sorted yet
 *   (ROBUSTNESS_SHARING), and the two that load the target and the harness for seconds: a client
 *   that stops reading while 96 updates of 256 KB are saved for it (ROB-SLOW-01), 200 devices
 *   created and their long-polls held (ROB-POLL-01). Under six CPU burners the long-polls' 200
 *   device creations beside other scenarios timed out (a FAIL: under abuse a transport error is
 *   the target's answer, steps/hooks.ts) and their neighbours' logins with them. Their features
 *   go first, so a worker takes each as soon as it is ready and the rest of the run flows past.
 *   The robustness scenarios are sorted: each abuses a device and connections of its own and
 *   judges only those and a well-behaved device of its own ("served meanwhile": its answer within
 *   the request timeout, which a scenario beside can only make later, never sooner), and none
 *   changes a setting, restarts the target or holds a pool another scenario draws from (the 200
 *   long-polls go through an agent of their own). Those that only send a malformed or oversized
 *   message, or open a connection that never speaks MQTT, are `free`. A scenario beside them
 *   stays right: the target refuses or closes the one connection.
 * - `abuse` (`@ROB-SIZE-01`): bodies of 50 MB started at the target (the reference answers 413
 *   from the headers; a platform that reads the body first reads 50 MB): in an embedded worker, one
 *   at a time beside `free`, `logs-in` and `token-lifetimes` scenarios on the worker's own
 *   reference; never beside the device limit's or an analytics one, whose rate limiter's verdicts
 *   compare the timing of its answers. Against a remote target (overlapRule) alone as before: how
 *   the platform reads such bodies beside other tenants' requests was not measured.
 *   The REST connector's scenarios are sorted: each names its devices, the requests the external
 *   API records and the connector's routes by the scenario's own names, and the one constant device
 *   of the gateway configuration is used by one scenario (steps/world.ts unique).
 * - `tenant-limits` (`@capability-tenant-limits`): the tenant profile's device limit, set to the
 *   tenant's device count plus some room: a device created or deleted beside it would change what
 *   the limit allows. Only a `token-lifetimes` scenario, which creates no device, runs beside it.
 * - `token-lifetimes`: a step about token lifetimes (steps/token-lifetimes.steps.ts sets the
 *   system's JWT lifetimes through the system administrator for the scenario, or judges the
 *   lifetimes a login gets). A login beside it would get seconds-long tokens, and a second one
 *   beside it would save its short lifetimes as the ones to put back. Only logins are affected:
 *   tokens issued before keep their lifetimes, and the run's own sessions log in once, before any
 *   scenario (steps/hooks.ts BeforeAll), and refresh on expiry (src/admin-client/auth.ts). So it
 *   runs beside every scenario but those that log in or judge tokens (and beside the device
 *   limit's, whose system administrator session refreshes its token like any other).
 * - `logs-in`: a step logs in ("a JWT from the tenant administrator's login") and the scenario
 *   judges what the tokens allow, so it never overlaps a `token-lifetimes` scenario.
 * - `analytics` (features/analytics-report): the report service's rate limiter (its pool and queue)
 *   is the service's, and a report covers every device of the view (src/target/
 *   embedded-analytics-views.json: names containing "-analytics-"), which another analytics
 *   scenario creates and deletes: with two at once a burst sized for the limiter got 9 of 14
 *   served and a report over a device deleted beside it answered 502 (bench/README.md "Several
 *   scenarios at once in one worker"). So one at a time, beside `free` and `logs-in` scenarios,
 *   whose devices the view does not cover; never beside a `token-lifetimes` one (its steps log in
 *   for the report's JWT) or the device limit's (it creates devices).
 * - `free`: touches only the entities it creates: beside anything but an `alone` one, the device
 *   limit's, or the ones named above.
 *
 * A run against a remote target puts the features of `alone`, `tenant-limits` and
 * `token-lifetimes` scenarios first (src/engine/feature-order.ts remoteOrder): a scenario that runs
 * alone started first waits for no running one to finish, and the `token-lifetimes` scenarios,
 * one after another, start beside the device limit's and overlap the rest of the run instead of
 * following it. Left last, as cucumber's order of features had them, they ran one at
 * a time after everything else (the platform features through 50 ms each way: 17 s of 55).
 */
import type { Pickle } from '@cucumber/messages';

export type Sharing =
  | 'alone'
  | 'abuse'
  | 'tenant-limits'
  | 'token-lifetimes'
  | 'logs-in'
  | 'analytics'
  | 'free';

/**
 * Feature folders whose scenarios touch only the entities they create (or say so by the tags
 * below).
 */
const PER_ENTITY_FOLDERS = [
  'admin-auth',
  'http-device-api',
  'mqtt-device-api',
  'mqtt-gateway-api',
  'rest-connector',
];

/** Step texts of steps that log in (and so get tokens of the lifetimes set at that moment). */
const LOGIN_STEPS = /\blog(?:s|ged)? ?-?in\b/i;

const ROBUSTNESS_TAGS = new Set(['@robustness']);

/**
 * The robustness scenarios sorted one by one, by requirement: each abuses only a device and a
 * connection of its own and judges only them and its own well-behaved device (see above). A
 * robustness scenario of a requirement not named here runs alone.
 */
const ROBUSTNESS_SHARING: Record<string, 'alone' | 'abuse' | 'free'> = {
  '@ROB-SLOW-01': 'alone',
  '@deviation-ROB-SLOW-01': 'alone',
  '@ROB-POLL-01': 'alone',
  '@ROB-SIZE-01': 'abuse',
  '@ROB-CONN-01': 'free',
  '@ROB-CONN-02': 'free',
  '@deviation-ROB-CONN-02': 'free',
  '@ROB-SIZE-02': 'free',
  '@ROB-NEST-01': 'free',
  '@deviation-ROB-NEST-01': 'free',
  '@ROB-UTF8-01': 'free',
};

const TENANT_LIMITS_TAG = '@capability-tenant-limits';

/** Step texts of steps that set or judge the system's token lifetimes (see above). */
const LIFETIME_STEPS = /token lifetime/i;

type Scenario = Pick<Pickle, 'uri' | 'tags' | 'steps'>;

/** The scenario's kind of sharing (see above). */
export function sharingOf(pickle: Scenario): Sharing {
  const folder = pickle.uri.replace(/\\/g, '/').match(/features\/([^/]+)\//)?.[1];
  if (pickle.tags.some((tag) => ROBUSTNESS_TAGS.has(tag.name))) {
    const sorted = pickle.tags.map((tag) => ROBUSTNESS_SHARING[tag.name]).filter(Boolean);
    // one requirement tag, sorted: its kind; none, or several, alone
    return sorted.length === 1 ? sorted[0]! : 'alone';
  }
  if (folder === 'analytics-report') return 'analytics';
  if (!folder || !PER_ENTITY_FOLDERS.includes(folder)) return 'alone';
  if (pickle.tags.some((tag) => tag.name === TENANT_LIMITS_TAG)) return 'tenant-limits';
  if (
    pickle.tags.some((tag) => tag.name === '@capability-jwt-settings') ||
    pickle.steps.some((step) => LIFETIME_STEPS.test(step.text))
  )
    return 'token-lifetimes';
  return pickle.steps.some((step) => LOGIN_STEPS.test(step.text)) ? 'logs-in' : 'free';
}

/**
 * Whether a remote run starts the scenario's feature before the others (remoteOrder): all but
 * `logs-in` and `free` scenarios.
 */
export function goesFirst(pickle: Scenario): boolean {
  const sharing = sharingOf(pickle);
  return sharing !== 'logs-in' && sharing !== 'free';
}

/** The kinds each kind may overlap (the relation is symmetric). */
const OVERLAPS: Record<Sharing, ReadonlySet<Sharing>> = {
  alone: new Set(),
  abuse: new Set(['token-lifetimes', 'logs-in', 'free']),
  'tenant-limits': new Set(['token-lifetimes']),
  'token-lifetimes': new Set(['tenant-limits', 'abuse', 'free']),
  'logs-in': new Set(['abuse', 'logs-in', 'analytics', 'free']),
  analytics: new Set(['logs-in', 'free']),
  free: new Set(['abuse', 'token-lifetimes', 'logs-in', 'analytics', 'free']),
};

/** Whether the scenario overlaps none it would disturb. */
export function canRunBeside(pickle: Pickle, running: readonly Pickle[]): boolean {
  const sharing = sharingOf(pickle);
  return running.every((other) => OVERLAPS[sharing].has(sharingOf(other)));
}

/**
 * cucumber's setParallelCanAssign rule for one run (it keeps state: make one per run):
 * canRunBeside, and a `token-lifetimes` scenario that had to wait goes before every `logs-in` one.
 * cucumber asks about the scenarios in the run's order each time a worker is free and starts the
 * first it may; a short login scenario started while a lifetime scenario waited for the one before
 * it kept the next from starting, and the next login beside that one again: on real ThingsBoard,
 * whose lifetime scenarios each wait 60 s, the second of them started 39 s late, after the API
 * description's scenarios (which then did not log in yet), and ended the run alone.
 */
export function overlapRule(): (pickle: Pickle, running: readonly Pickle[]) => boolean {
  /** `token-lifetimes` scenarios refused so far and not started since. */
  const waiting = new Set<string>();
  return (pickle, running) => {
    const sharing = sharingOf(pickle);
    if (sharing === 'logs-in' && waiting.size > 0) return false;
    // an `abuse` scenario runs alone against a remote target (see above)
    const abuse = [pickle, ...running].some((scenario) => sharingOf(scenario) === 'abuse');
    const fits = !(abuse && running.length > 0) && canRunBeside(pickle, running);
    if (sharing === 'token-lifetimes') {
      if (fits) waiting.delete(pickle.id);
      else waiting.add(pickle.id);
    }
    return fits;
  };
}

/**
 * Where a feature file goes in a remote run's order (remoteOrder), from its path and text: 0 when
 * it holds an `alone`, `abuse`, `analytics` or `tenant-limits` scenario (every feature outside the
 * platform interfaces, or one tagged so), 1 when it holds a `token-lifetimes` one, 2 otherwise.
 * Read from the text rather than from parsed scenarios: it only orders the run, so a feature placed
 * wrong makes a run slower, never different.
 */
export function featureRank(uri: string, text: string): 0 | 1 | 2 {
  const folder = uri.replace(/\\/g, '/').match(/features\/([^/]+)\//)?.[1];
  if (!folder || !PER_ENTITY_FOLDERS.includes(folder)) return 0;
  if ([...ROBUSTNESS_TAGS, TENANT_LIMITS_TAG].some((tag) => new RegExp(`${tag}\\b`).test(text)))
    return 0;
  if (text.includes('@capability-jwt-settings') || LIFETIME_STEPS.test(text)) return 1;
  return 2;
}
