/**
 * Planted faults of the clients under test: iotc's own HTTP device, MQTT device and gateway drivers
 * (test/certify/*-client.ts) with one defect each, switched by IOTC_TEST_CLIENT_FAULT=<short name>.
 * Certified by `iotc certify ... --exec <client>`, each must turn exactly its requirement FAIL and
 * leave every other verdict as the clean client's, except the ones `alsoChanges` names. The kill
 * matrix (`iotc faults`) judges them; the node:test files of test/certify keep only the clean
 * certifications and the edge cases, so this is the one list.
 *
 * An id is `<requirement id>:<short name>` like a reference fault's; the client reads the short
 * name.
 */

import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The clients under test, one per kind of certification. */
export type ClientKind =
  | 'http-device'
  | 'mqtt-device'
  | 'gateway'
  // the MQTT device with --tls (its TLS checks) and with --duration (its behaviour over time),
  // issue 28
  | 'mqtt-device-tls'
  | 'mqtt-device-long'
  // the gateway with --duration: its behaviour over time, as a device's (issue 28)
  | 'gateway-long';

export interface ClientUnderTest {
  /** `iotc certify` arguments before the session options. */
  readonly certify: readonly string[];
  /**
   * The client's source, relative to the project root (run with ts-node, as a vendor's script would
   * run).
   */
  readonly file: string;
}

/**
 * Where the TLS client's certifications keep iotc's certificate authority (made at the first, then
 * kept).
 */
const MATRIX_STATE_DIR = join(tmpdir(), 'iotc-client-matrix-state');

export const CLIENTS_UNDER_TEST: Readonly<Record<ClientKind, ClientUnderTest>> = {
  'http-device': {
    certify: ['device', '--transport', 'http'],
    file: 'test/certify/http-device-client.ts',
  },
  'mqtt-device': {
    certify: ['device', '--transport', 'mqtt'],
    file: 'test/certify/mqtt-device-client.ts',
  },
  gateway: { certify: ['gateway'], file: 'test/certify/gateway-client.ts' },
  'mqtt-device-tls': {
    // iotc's certificate authority kept beside the matrix's runs, not in the home directory
    certify: ['device', '--transport', 'mqtt', '--tls', '--state-dir', MATRIX_STATE_DIR],
    file: 'test/certify/mqtt-tls-client.ts',
  },
  'mqtt-device-long': {
    certify: ['device', '--transport', 'mqtt', '--duration', '25000'],
    file: 'test/certify/mqtt-long-client.ts',
  },
  'gateway-long': {
    // its steps take longer than a device's (the RPC waits for a quiet gateway, the connect's
    // PUBACK a quiet second)
    certify: ['gateway', '--duration', '30000'],
    file: 'test/certify/gateway-long-client.ts',
  },
};

export interface ClientFaultDefinition {
  /** `<requirement id>:<short name>`; the short name is the client's IOTC_TEST_CLIENT_FAULT. */
  readonly id: string;
  readonly client: ClientKind;
  /** What the fault breaks, in a sentence. */
  readonly breaks: string;
  /** Other requirements whose verdict the fault may change, with the verdict it gives them. */
  readonly alsoChanges?: Readonly<Record<string, 'NOT TESTED'>>;
  /**
   * The RPC reply is held back past the timeout (the session's timeout is shortened and the delay
   * set long).
   */
  readonly lateReply?: true;
}

/** Answered only under another id: the timeout of the request's own reply is never exercised. */
const replyTimingNotShown = (requirement: string) => ({ [requirement]: 'NOT TESTED' as const });

export const CLIENT_FAULT_CATALOGUE: readonly ClientFaultDefinition[] = [
  {
    id: 'HTTP-DEV-01:url',
    client: 'http-device',
    breaks: 'one telemetry post goes to a resource the device API does not have',
  },
  {
    // issue 28: every request was answered, yet HTTP-DEV-03..07 were NOT TESTED
    id: 'HTTP-DEV-01:trailing-slash',
    client: 'http-device',
    breaks: "every telemetry and attribute request's URL ends with a slash (telemetry/)",
  },
  {
    id: 'HTTP-DEV-02:content-type',
    client: 'http-device',
    breaks: 'the object-form telemetry is sent as text/plain',
  },
  {
    id: 'HTTP-DEV-03:shape',
    client: 'http-device',
    breaks: 'the client attributes are an array, not an object',
  },
  {
    id: 'HTTP-DEV-04:seconds',
    client: 'http-device',
    breaks: "the timestamped telemetry's ts is in seconds",
  },
  {
    id: 'HTTP-DEV-05:wrong-id',
    client: 'http-device',
    breaks: "the RPC reply goes to another id than the request's",
    alsoChanges: replyTimingNotShown('HTTP-DEV-06'),
  },
  {
    id: 'HTTP-DEV-06:late',
    client: 'http-device',
    breaks: 'the RPC reply is sent after the RPC timeout',
    lateReply: true,
  },
  {
    id: 'HTTP-DEV-07:snake-case-keys',
    client: 'http-device',
    breaks:
      'the attribute request names its keys in shared_keys (as the Python SDK TBHTTPDevice 1.13 does)',
  },
  {
    // issue 28: answered {} and certified CONFORMANT
    id: 'HTTP-DEV-07:json-keys',
    client: 'http-device',
    breaks:
      'the attribute request names its keys as a JSON array literal (sharedKeys=["iotcCertifyStep"])',
  },
  {
    // issue 28: every client-observable statement judged; the clean client claims, provisions, asks
    // for firmware, sends a client-side RPC and long-polls with a timeout, each NOT APPLICABLE for
    // a client that never does
    id: 'HTTP-DEV-08:duration-string',
    client: 'http-device',
    breaks: 'the claim\'s durationMs is a string ("60000")',
  },
  {
    id: 'HTTP-DEV-09:provision-no-secret',
    client: 'http-device',
    breaks: 'the provisioning request (POST /api/v1/provision) has no provisionDeviceSecret',
  },
  {
    id: 'HTTP-DEV-10:firmware-no-version',
    client: 'http-device',
    breaks: 'the firmware request names its title only (GET firmware?title=iotc-fw)',
  },
  {
    id: 'HTTP-DEV-11:reply-not-json',
    client: 'http-device',
    breaks: "the RPC reply's body is the text pong, not a JSON document",
  },
  {
    id: 'HTTP-DEV-12:rpc-not-json',
    client: 'http-device',
    breaks: "the client-side RPC's body is the text getCurrentTime, not a JSON document",
  },
  {
    id: 'HTTP-DEV-13:timeout-fraction',
    client: 'http-device',
    breaks: 'a last long-poll for attribute updates asks timeout=0.5, not an integer',
  },
  {
    id: 'MQTT-DEV-01:user',
    client: 'mqtt-device',
    breaks: 'a first CONNECT carries the token as password and another user name',
  },
  {
    // issue 28: the certificate named the version asked, not the one spoken (the Python SDK always
    // speaks 5)
    id: 'MQTT-DEV-01:speaks-5',
    client: 'mqtt-device',
    breaks: 'every CONNECT is MQTT 5 (protocol level 5) when MQTT 3.1.1 is asked',
  },
  {
    id: 'MQTT-DEV-02:topic',
    client: 'mqtt-device',
    breaks: 'a last telemetry publish goes to v1/devices/me/telemetries',
  },
  {
    id: 'MQTT-DEV-03:shape',
    client: 'mqtt-device',
    breaks: 'a last client-attributes publish is an array, not an object',
  },
  {
    // issue 28: also failed MQTT-DEV-04 as "not milliseconds"
    id: 'MQTT-DEV-03:ts-string',
    client: 'mqtt-device',
    breaks: 'a last timestamped telemetry publish has its ts as a string of milliseconds',
  },
  {
    id: 'MQTT-DEV-04:seconds',
    client: 'mqtt-device',
    breaks: "the timestamped telemetry's ts is in seconds",
  },
  {
    id: 'MQTT-DEV-05:subscribe-late',
    client: 'mqtt-device',
    breaks: 'an attribute request comes before any subscription to the responses',
  },
  {
    id: 'MQTT-DEV-06:request-id',
    client: 'mqtt-device',
    breaks: "a second attribute request reuses the first one's id",
  },
  {
    // issue 28: also failed MQTT-DEV-02 (the topic)
    id: 'MQTT-DEV-06:id-not-integer',
    client: 'mqtt-device',
    breaks: 'a last attribute request goes to v1/devices/me/attributes/request/abc',
  },
  {
    id: 'MQTT-DEV-07:wrong-id',
    client: 'mqtt-device',
    breaks: "the RPC reply goes to another id than the request's",
    alsoChanges: replyTimingNotShown('MQTT-DEV-08'),
  },
  {
    id: 'MQTT-DEV-08:late',
    client: 'mqtt-device',
    breaks: 'the RPC reply is sent after the RPC timeout',
    lateReply: true,
  },
  {
    id: 'MQTT-DEV-09:qos2',
    client: 'mqtt-device',
    breaks: 'the subscription to the client-side RPC answers asks QoS 2',
  },
  {
    id: 'MQTT-DEV-10:duration-string',
    client: 'mqtt-device',
    breaks: 'a last claim\'s durationMs is a string ("60000")',
  },
  {
    id: 'MQTT-DEV-11:provision-no-secret',
    client: 'mqtt-device',
    breaks: 'the provisioning request on /provision/request has no provisionDeviceSecret',
  },
  {
    id: 'MQTT-DEV-12:reply-not-json',
    client: 'mqtt-device',
    breaks: "the RPC reply's payload is the text pong, not a JSON document",
  },
  {
    id: 'MQTT-DEV-13:rpc-not-json',
    client: 'mqtt-device',
    breaks: 'a last client-side RPC whose payload is the text getCurrentTime, not a JSON document',
  },
  {
    id: 'GW-CLI-01:user',
    client: 'gateway',
    breaks: 'a first CONNECT carries the token as password and another user name',
  },
  {
    id: 'GW-CLI-01:speaks-5',
    client: 'gateway',
    breaks: 'every CONNECT is MQTT 5 (protocol level 5) when MQTT 3.1.1 is asked',
  },
  {
    id: 'GW-CLI-02:shape',
    client: 'gateway',
    breaks: 'a last telemetry publish has an entry without values',
  },
  {
    // issue 28: also failed GW-RPC-03 though its id was right
    id: 'GW-CLI-02:reply-no-device',
    client: 'gateway',
    breaks: 'a last second reply to the RPC carries the right id but no device',
  },
  {
    id: 'GW-CLI-03:seconds',
    client: 'gateway',
    breaks: "the telemetry's ts is in seconds",
  },
  {
    id: 'GW-RULE-01:subscribe-late',
    client: 'gateway',
    breaks: 'a first attribute request comes before the subscription to the responses',
  },
  {
    id: 'GW-CLI-04:request-id',
    client: 'gateway',
    breaks: "a second attribute request reuses the first one's id",
  },
  {
    id: 'GW-RPC-03:wrong-id',
    client: 'gateway',
    breaks: "the RPC reply carries another id than the request's",
    alsoChanges: replyTimingNotShown('GW-CLI-05'),
  },
  {
    id: 'GW-CLI-05:late',
    client: 'gateway',
    breaks: 'the RPC reply is sent after the RPC timeout',
    lateReply: true,
  },
  {
    id: 'GW-RULE-03-CLAIM:claim-stranger',
    client: 'gateway',
    breaks: 'a claim names a device the gateway never connected',
  },
  {
    id: 'GW-RULE-04-WAIT:no-wait',
    client: 'gateway',
    breaks: "telemetry for the device follows its connect without waiting for the connect's PUBACK",
  },
  {
    // issue 28: by chance and late, so only a PUBACK held until the client is quiet catches it in
    // every run
    id: 'GW-RULE-04-WAIT:no-wait-late',
    client: 'gateway',
    breaks:
      "an attribute request for the device follows its connect and up to 900 ms of the gateway's own telemetry (random pauses) without waiting for the connect's PUBACK",
  },
  {
    id: 'GW-CLI-06:qos2',
    client: 'gateway',
    breaks: 'the subscription to the attribute responses asks QoS 2',
  },
  // beyond the interfaces (issue 28): TLS, behaviour over time, one connection, no tight polling
  {
    id: 'CLI-TLS-01:plain-first',
    client: 'mqtt-device-tls',
    breaks: 'a first connection speaks plain MQTT to the TLS port',
  },
  {
    id: 'CLI-TLS-02:accepts-untrusted',
    client: 'mqtt-device-tls',
    breaks: 'a self-signed server certificate (no trusted authority issued it) is accepted',
  },
  {
    id: 'CLI-TLS-03:ignores-name',
    client: 'mqtt-device-tls',
    breaks: "the server certificate's subject name is not checked",
  },
  {
    id: 'CLI-TLS-04:accepts-expired',
    client: 'mqtt-device-tls',
    breaks: 'an expired server certificate is accepted (the rest still verified)',
  },
  {
    id: 'CLI-TLS-05:small-buffer',
    client: 'mqtt-device-tls',
    breaks:
      'a server certificate chain of more than two certificates is refused (a small TLS buffer)',
  },
  {
    id: 'CLI-BEH-01:no-backoff',
    client: 'mqtt-device-long',
    breaks: 'the reconnect delay does not grow (about 450 ms, jitter kept)',
  },
  {
    id: 'CLI-BEH-02:no-jitter',
    client: 'mqtt-device-long',
    breaks: 'the reconnect delay doubles exactly (300, 600, 1200 ... ms)',
  },
  {
    id: 'CLI-BEH-03:no-dup',
    client: 'mqtt-device-long',
    breaks:
      'the unacknowledged QoS 1 PUBLISH is sent again after the reconnect without the DUP flag',
  },
  {
    id: 'CLI-BEH-04:no-ping',
    client: 'mqtt-device-long',
    breaks: 'once reconnected the client sends nothing more, no PINGREQ (keep alive 2 s)',
  },
  {
    id: 'CLI-BEH-01:gateway-no-backoff',
    client: 'gateway-long',
    breaks: "the gateway's reconnect delay does not grow (about 450 ms, jitter kept)",
  },
  {
    id: 'CLI-BEH-02:gateway-no-jitter',
    client: 'gateway-long',
    breaks: "the gateway's reconnect delay doubles exactly (300, 600, 1200 ... ms)",
  },
  {
    id: 'CLI-BEH-03:gateway-no-dup',
    client: 'gateway-long',
    breaks:
      "the gateway's unacknowledged QoS 1 telemetry is sent again after the reconnect without the DUP flag",
  },
  {
    id: 'CLI-BEH-04:gateway-no-ping',
    client: 'gateway-long',
    breaks:
      'once reconnected and its device connected again the gateway sends nothing more, no PINGREQ (keep alive 2 s)',
  },
  {
    id: 'CLI-BEH-05:second-connection',
    client: 'mqtt-device',
    breaks: 'a second connection with the same token publishes while the first is in use',
  },
  {
    id: 'CLI-BEH-06:tight-poll',
    client: 'http-device',
    breaks: 'the shared attribute is read ten times back to back',
  },
  {
    // issue 28: docs/reference/interfaces.md's gateway keeps one MQTT connection for all its
    // devices
    id: 'GW-CLI-07:second-connection',
    client: 'gateway',
    breaks:
      'once the steps are done, telemetry for the device goes on a second connection opened while the first stays in use (its disconnect follows on the first)',
  },
  {
    // issue 28: subscribe before updates are expected, judged from the order of the gateway's own
    // packets
    id: 'GW-RULE-01-UPD:subscribe-updates-late',
    client: 'gateway',
    breaks: 'v1/gateway/attributes is subscribed only after the connect of the device',
  },
  {
    // issue 28: connect before RPCs are expected; the RPC goes only once the gateway has been quiet
    // for a second
    id: 'GW-RULE-03-RPC:disconnect-before-rpc',
    client: 'gateway',
    breaks:
      'once the attribute update came, the device is disconnected, so the RPC for it expected next finds it not connected',
    alsoChanges: { 'GW-RPC-03': 'NOT TESTED', 'GW-CLI-05': 'NOT TESTED' },
  },
  // the gateway as a device: its own v1/devices/me/... traffic (src/certify/gateway-checks.ts)
  {
    id: 'MQTT-DEV-02:unknown-topic',
    client: 'gateway',
    breaks:
      'a last publish goes to v1/gateway/telemetries, a topic of neither the device nor the gateway API',
  },
  {
    id: 'MQTT-DEV-03:own-shape',
    client: 'gateway',
    breaks:
      "a last telemetry publish of the gateway's own has values that are a string, not an object",
  },
  {
    id: 'MQTT-DEV-04:own-seconds',
    client: 'gateway',
    breaks: "the ts of the gateway's own timestamped telemetry is in seconds",
  },
  {
    id: 'MQTT-DEV-05:own-subscribe-late',
    client: 'gateway',
    breaks:
      "an attribute request of the gateway's own comes before any subscription to v1/devices/me/attributes/response/+",
  },
  {
    id: 'MQTT-DEV-06:own-request-id',
    client: 'gateway',
    breaks: "a second attribute request of the gateway's own reuses the first one's id",
  },
  {
    id: 'MQTT-DEV-07:own-wrong-id',
    client: 'gateway',
    breaks: "the reply to the RPC sent to the gateway itself goes to another id than the request's",
    alsoChanges: replyTimingNotShown('MQTT-DEV-08'),
  },
  {
    id: 'MQTT-DEV-08:own-late',
    client: 'gateway',
    breaks: 'the reply to the RPC sent to the gateway itself comes after the RPC timeout',
    lateReply: true,
  },
  {
    id: 'MQTT-DEV-10:own-duration-string',
    client: 'gateway',
    breaks: "a last claim of the gateway's own has its durationMs as a string",
  },
  {
    id: 'MQTT-DEV-12:own-reply-not-json',
    client: 'gateway',
    breaks: 'the reply to the RPC sent to the gateway itself is the text pong, not a JSON document',
  },
  {
    id: 'MQTT-DEV-13:own-rpc-not-json',
    client: 'gateway',
    breaks:
      "a last client-side RPC of the gateway's own whose payload is the text getCurrentTime, not a JSON document",
  },
];

/** The value of IOTC_TEST_CLIENT_FAULT that plants the fault: its id after the colon. */
export function clientFaultName(id: string): string {
  return id.slice(id.indexOf(':') + 1);
}

/**
 * Planted faults of the harness itself, the client of the platform in a conformance run: switched
 * by IOTC_HARNESS_FAULT=<short name> in the suite's steps (steps/support/readiness.ts), not
 * certified by the client matrix above (the client under test there is a vendor's). A fault here is
 * killed when a run against `target`, a conforming platform, turns `id`'s requirement (and those
 * `alsoChanges` names) FAIL: the scenarios of `features` then show that the suite's precaution is
 * needed, not decoration.
 */
export interface HarnessFaultDefinition {
  /** `<requirement id>:<short name>`; the short name is the value of IOTC_HARNESS_FAULT. */
  readonly id: string;
  readonly breaks: string;
  /** The target profile that must kill it. */
  readonly target: string;
  /** The feature files to run. */
  readonly features: readonly string[];
  /** Other requirements the fault turns FAIL on that target. */
  readonly alsoChanges?: Readonly<Record<string, 'FAIL'>>;
}

export const HARNESS_FAULT_NAMES = { noReadinessProof: 'no-readiness-proof' } as const;

export const HARNESS_FAULT_CATALOGUE: readonly HarnessFaultDefinition[] = [
  {
    // Killed by the asynchronous twin (embedded-thingsboard-4.3: the device actor handles the
    // session open and the subscription after the SUBACK / PUBACK, as ThingsBoard's core queue
    // does; test/integration/harness-fault.test.ts runs it in npm test). A synchronous reference
    // delivers an update sent right after the acknowledgement, so there it survives. Real
    // ThingsBoard 4.3.1.3 kills it by chance of the race: one run FAILed GW-GEN-03, GW-EVT-02,
    // GW-DISC-01, GW-STATE-05, GW-STATE-06 and MQTT-DEV-ATTR-03.
    id: `GW-STATE-04:${HARNESS_FAULT_NAMES.noReadinessProof}`,
    breaks:
      "the harness skips its readiness proofs: the shared attribute update under test follows the SUBACK or the gateway connect's PUBACK at once, and the check after a disconnect is one round, not eventual",
    target: 'embedded-thingsboard-4.3',
    features: [
      'features/mqtt-gateway-api/attributes.feature',
      'features/mqtt-gateway-api/connect.feature',
      'features/mqtt-gateway-api/disconnect.feature',
      'features/mqtt-gateway-api/gateway-as-device.feature',
      'features/mqtt-device-api/telemetry-attributes.feature',
    ],
    alsoChanges: {
      'GW-ATTR-03': 'FAIL',
      'GW-EVT-01': 'FAIL',
      'GW-EVT-02': 'FAIL',
      'GW-STATE-01': 'FAIL',
      'GW-GEN-03': 'FAIL',
      'GW-DISC-01': 'FAIL',
      'GW-STATE-05': 'FAIL',
      'GW-STATE-06': 'FAIL',
      'MQTT-DEV-ATTR-03': 'FAIL',
    },
  },
];
