/**
 * Per-scenario state. Names in scenarios are local ("thermo"); the world turns them into
 * `<namePrefix><runId>-<name>` so that a run never touches what it did not create, and remembers
 * every entity it creates so the After hook can delete it, also after a failure.
 */
import { randomUUID } from 'node:crypto';
import { World, setWorldConstructor, type IWorldOptions } from './support/cucumber';
import { HttpDevice, type DeviceResponse } from '../simulators/device/http-device';
import type { ConnectorResponse } from '../simulators/connector-client';
import type { DeviceRecord, NewDevice } from '../src/admin-client';
import { Redactor } from '../src/report/redact';
import { ExchangeLog } from '../src/report/exchanges';
import { run, type RunContext } from './support/run';
import { creation, type EntityKind } from '../src/target/journal';
import { eventually, GiveUp } from './support/eventually';
import { HARNESS_STARVED, Inconclusive, StallLog } from './support/timing';
import type { AttributeResponse, MqttGateway } from '../simulators/gateway/mqtt-gateway';
import type { MqttConnection, PublishOutcome } from '../simulators/device/mqtt-connection';
import type { DeviceRpcRequest } from '../simulators/device/mqtt-device';
import { PendingOperations } from './support/pending-operations';
import {
  PlatformIds,
  type AdminAuthState,
  type RobustnessState,
  type ConnectorCredentials,
  type MqttConnectOutcome,
  type ReceivedRpcIds,
  type TimeWindow,
} from './support/scenario-state';
import { removeById, removeNamed, type PlatformCreatedKind } from './support/entity-removal';
import { ChosenTokens } from './support/device-tokens';
import { RUN_CONSTANT } from '../lib/gateway-rest';
import { transportFailure } from './support/transport';

/** A gateway of the scenario: its device (also in `devices`) and its MQTT connection. */
export interface ScenarioGateway {
  local: string;
  driver: MqttGateway;
}

export interface ScenarioDevice {
  local: string;
  record: DeviceRecord;
  token: string;
  driver: HttpDevice;
}

/**
 * A publish whose PUBACK had not come within its window (support/publish-window.ts).
 */
export interface PendingPublish {
  topic: string;
  connection: MqttConnection;
  /** The quiet window it was given, ms. */
  windowMs: number;
  /** Its outcome once the driver settles it (acked, closed, or timed out after requestMs). */
  settled: Promise<PublishOutcome>;
  /** Set when a step judged it unacknowledged and stopped waiting for it. */
  judgedUnacknowledged?: boolean;
  /** Its outcome, once settled. */
  outcome?: PublishOutcome;
}

/**
 * An undo action of the After hook; `entity` (`kind:name`) marks the removal of a journaled entity.
 */
export interface Cleanup {
  what: string;
  undo: () => Promise<void>;
  entity?: string;
  /**
   * The undo closes one of the harness's own client connections (MQTT, a long-poll's sockets): it
   * runs before the others (steps/support/cleanup-batches.ts).
   */
  connection?: boolean;
}

/** The tokens this process's devices are created with (steps/support/device-tokens.ts). */
const chosenTokens = new ChosenTokens();

/**
 * The lanes of this worker's running scenarios. A worker may run several scenarios at once
 * (src/engine/staggered-workers.ts, IOTC_SCENARIOS_PER_WORKER): their local names ("thermo") would
 * make the same platform name, and the second creation answer "already exists". Each running
 * scenario takes the lowest lane free and names its entities in it; one at a time, every scenario
 * takes lane 0, the names of before.
 */
const lanesInUse = new Set<number>();
function claimLane(): number {
  let lane = 0;
  while (lanesInUse.has(lane)) lane++;
  lanesInUse.add(lane);
  return lane;
}

export class IotcWorld extends World {
  readonly devices = new Map<string, ScenarioDevice>();
  /** Undo actions for what this scenario created or changed, run last-first by the After hook. */
  readonly cleanups: Cleanup[] = [];
  /** `kind:name` of the entities expectCreated journaled: each is registered once. */
  private readonly expected = new Set<string>();
  /**
   * By `kind:name`: the platform id a step last found a device under (findDevice). The removal of
   * an entity another party created deletes by it rather than looking the name up again (a run's
   * cleanups made some 350 lookups of devices a step had just found); removeNamed looks the name
   * up when that id is gone.
   */
  private readonly foundIds = new Map<string, string>();
  /** Local names of profiles, firmware packages and persistent RPCs to their platform ids. */
  readonly ids = new PlatformIds();
  /** Binary contents the scenario made (firmware packages), by local name. */
  readonly blobs = new Map<string, Buffer>();
  /** A tag expression that selects this scenario (for replay lines). */
  scenarioTags = '';
  /** The command that runs this scenario again against the same target (set by the Before hook). */
  replayCommand = '';
  /** The last answer of the device API, for Then steps. */
  response?: DeviceResponse;
  /** The last answer of a REST connector endpoint, for Then steps. */
  connectorResponse?: ConnectorResponse;
  /** Requests started in a When step and awaited in a Then step (long-polls, RPC calls). */
  readonly pending = new PendingOperations();
  /**
   * By local device name: the local clock around its last data request, for `server` timestamps.
   */
  readonly sentWindows = new Map<string, TimeWindow>();
  /**
   * The local clock around the last request of the REST connector's client (`request` timestamps).
   */
  connectorWindow?: TimeWindow;
  /**
   * The harness's event-loop stalls over the scenario, timestamped (stopped by the After hook):
   * what a verdict that rests on time weighs its margin against, when the timing it judges happened
   * in earlier steps (support/timing.ts).
   */
  readonly stalls = new StallLog();
  /**
   * When this attempt of the scenario began (Date.now()): cucumber's retry reuses the run-unique
   * names, so what the first attempt left in a simulator's records (the external API's requests) is
   * told apart by time.
   */
  readonly startedAt = Date.now();
  /**
   * What the REST connector's client sends instead of the endpoint's credentials; unset: those
   * credentials.
   */
  connectorCredentials?: ConnectorCredentials;
  /**
   * By local device name: when the platform acknowledged its last claim (Date.now() after the
   * answer).
   */
  readonly claimsAcknowledgedAt = new Map<string, number>();
  /**
   * By local device name: how much longer its last claim's durationMs was sent over the network
   * (claim-window.ts).
   */
  readonly claimWindowStretchMs = new Map<string, number>();
  /**
   * The longest a claim of this scenario took from its acknowledgement to the customer's successful
   * claim (the positive control of a claim that must fail); unset while no claim of this scenario
   * was proven registered.
   */
  claimRegistrationMs?: number;
  /** The outcome of the last bare MQTT connect with an access token. */
  mqttConnectOutcome?: MqttConnectOutcome;
  /**
   * By local name of a gateway or MQTT device: the shared attribute updates on its own
   * subscription, in order.
   */
  readonly ownSharedUpdates = new Map<string, Array<Record<string, unknown>>>();
  /**
   * By local name of a gateway or MQTT device: the RPC requests its own handler answered, in order.
   */
  readonly ownRpcRequests = new Map<string, DeviceRpcRequest[]>();
  /** By gateway: the index (in its driver's attributeUpdates) of the last update a step awaited. */
  readonly gatewayUpdatesSeen = new Map<string, number>();
  /** By gateway: the answer to its last attribute request (v1/gateway/attributes/response). */
  readonly gatewayAttributeResponses = new Map<string, AttributeResponse>();
  /**
   * By gateway: the RPCs (`device#id`) a step has taken already, so that the next step takes a
   * fresh one.
   */
  readonly gatewayRpcsTaken = new Map<string, Set<string>>();
  /** By local device name: the RPC requests its gateway received for it. */
  readonly gatewayRpcIds = new Map<string, ReceivedRpcIds>();
  /** Credentials of the administration API this scenario obtained (admin-auth steps). */
  readonly adminAuth: AdminAuthState = { secrets: new Map() };
  /** What a robustness scenario keeps between its steps. */
  readonly robustness: RobustnessState = {
    bareClients: new Map(),
    polls: [],
    updatesRead: new Map(),
    openedAt: new Map(),
  };
  /** By local device name: the id of the last RPC request an HTTP device polled. */
  readonly polledRpcIds = new Map<string, number>();
  /** Drivers with their own connection pool (HTTPS), closed by the After hook. */
  readonly ownDrivers: HttpDevice[] = [];
  /**
   * Counted as a running scenario by the Before hook (src/engine/interruption.ts); the After hook
   * uncounts it.
   */
  countedAsRunning = false;
  /**
   * A socket error is an answer of the target here (steps/hooks.ts): a robustness scenario abuses
   * the target, and a reset or refused connection of the well-behaved client meanwhile is the
   * target failing it, not the network.
   */
  transportIsAnswer = false;
  /** Gateways of this scenario by local name (their devices are in `devices` too). */
  readonly gateways = new Map<string, ScenarioGateway>();
  /** The outcome of the last MQTT publish, for Then steps. */
  lastPublish?: PublishOutcome;
  /**
   * The last publish when its PUBACK had not come within its quiet window
   * (support/publish-window.ts): lastPublish is then provisional until settledPublish.
   */
  pendingPublish?: PendingPublish;
  /**
   * Blanks the tokens of this scenario's devices (and secret shapes) in everything a step shows.
   */
  readonly redactor = new Redactor();
  /**
   * The last requests and responses of this scenario, redacted: its evidence in the conformance
   * report.
   */
  readonly exchanges = new ExchangeLog({ redact: (text) => this.redact(text) });

  constructor(options: IWorldOptions) {
    super(options);
  }

  get run(): RunContext {
    return run();
  }

  /**
   * The platform name of a local name: the run's id, the scenario's lane among the worker's running
   * scenarios (claimLane; lane 0, the only one when a worker runs one at a time, adds nothing), the
   * local name. A name the gateway configuration fixes for the run (RUN_CONSTANT,
   * lib/gateway-rest.ts withRunNames) is the run's in every lane: one scenario uses each
   * (features/rest-connector/converter.feature).
   */
  unique(local: string): string {
    const lane = local.startsWith(RUN_CONSTANT) ? 0 : (this.lane ??= claimLane());
    return `${this.run.target.namePrefix}${this.run.runId}-${lane === 0 ? '' : `${lane}-`}${local}`;
  }

  /** The scenario's names in use among the worker's running scenarios (claimLane); see unique. */
  private lane?: number;

  /** After the scenario's cleanup: its names are free for the next scenario. */
  releaseLane(): void {
    if (this.lane !== undefined) lanesInUse.delete(this.lane);
    this.lane = undefined;
  }

  /**
   * A platform name no other scenario or call uses, for entities a step makes many of (property
   * cases).
   */
  fresh(local: string): string {
    return this.unique(`${local}-${randomUUID().slice(0, 8)}`);
  }

  newDriver(token: string, options: { https?: boolean } = {}): HttpDevice {
    const { target, deviceDispatcher } = this.run;
    const baseUrl = options.https ? target.httpsUrl : target.httpUrl;
    if (!baseUrl) throw new Error('the target has no HTTPS URL for the HTTP device API');
    this.redactor.addSecret(token);
    const driver = new HttpDevice(baseUrl, token, {
      requestTimeoutMs: target.timeouts.requestMs,
      dispatcher: options.https ? undefined : deviceDispatcher,
      tls: options.https
        ? { ca: target.tls.ca, insecureSkipVerify: target.tls.insecureSkipVerify }
        : undefined,
      recorder: this.exchanges.record,
    });
    if (options.https) this.ownDrivers.push(driver);
    return driver;
  }

  /**
   * Text safe to show in a message, log or attachment: no device token, JWT, API key or secret
   * field.
   */
  redact(text: string): string {
    return this.redactor.redactEvidence(text);
  }

  /** The start of a body for an assertion message, redacted. */
  shown(response: { status: number; text: string }): string {
    return `${response.status} ${this.redact(response.text.slice(0, 300)) || '(empty body)'}`;
  }

  /**
   * Creates an entity the staging-safe way: journal the intent, create, journal the id, and
   * register its removal (journaled too) for the After hook.
   */
  async track<T extends { id: string }>(
    kind: EntityKind,
    name: string,
    create: () => Promise<T>,
    remove: (created: T) => Promise<void>,
  ): Promise<T> {
    const { journal } = this.run;
    journal.intend(kind, name);
    let created: T;
    try {
      created = await creation(create());
    } catch (error) {
      // a create the network broke may have reached the target before it: the entity may exist, and
      // the retry of the scenario would find its name taken (a `unique` name is the same in every
      // attempt). Deleted by name after the scenario, if it exists; the other kinds are left to the
      // journal's cleanup at the end of the run
      if (transportFailure(error) && (kind === 'device' || kind === 'deviceProfile'))
        this.expectCreated(kind, name);
      throw error;
    }
    journal.created(kind, name, created.id);
    this.cleanups.push({
      what: `${kind} ${name}`,
      entity: `${kind}:${name}`,
      undo: async () => {
        await remove(created);
        journal.deleted(kind, name, created.id);
      },
    });
    return created;
  }

  /**
   * An entity another party will create (the platform on a gateway's connect, the REST connector, a
   * provisioning request), or create again (a gateway naming a device the scenario deleted):
   * journaled before it can exist, and deleted by name after the scenario if it does. Once per
   * name.
   */
  expectCreated(kind: PlatformCreatedKind, name: string): void {
    const entity = `${kind}:${name}`;
    if (this.expected.has(entity)) return;
    this.expected.add(entity);
    this.run.journal.intend(kind, name);
    this.cleanups.push({
      what: `${kind} ${name}`,
      entity,
      undo: async () => {
        const id = await removeNamed(this.run.admin, kind, name, this.foundIds.get(entity));
        this.run.journal.deleted(kind, name, id);
      },
    });
  }

  /**
   * An entity another party created already (a device profile the REST connector made): its id
   * journaled, and it is deleted after the scenario; `heldBy` names a device that uses it, deleted
   * first.
   */
  adoptCreated(
    kind: PlatformCreatedKind,
    name: string,
    id: string,
    options: { heldBy?: string } = {},
  ): void {
    const entity = `${kind}:${name}`;
    if (this.cleanups.some((cleanup) => cleanup.entity === entity)) return;
    this.run.journal.created(kind, name, id);
    this.cleanups.push({
      what: `${kind} ${name}`,
      entity,
      undo: async () => {
        if (options.heldBy)
          await removeNamed(
            this.run.admin,
            'device',
            options.heldBy,
            this.foundIds.get(`device:${options.heldBy}`),
          );
        await removeById(this.run.admin, kind, id);
        this.run.journal.deleted(kind, name, id);
      },
    });
  }

  /**
   * The device of that exact name on the platform, or undefined (GET by name); its id is kept for
   * the removal of a device another party created (expectCreated).
   */
  async findDevice(name: string): Promise<DeviceRecord | undefined> {
    const record = await this.run.admin.findDeviceByName(name);
    if (record) this.foundIds.set(`device:${name}`, record.id);
    return record;
  }

  /**
   * Deletes a journaled entity of this scenario now rather than after it (a property case's
   * device).
   */
  async removeNow(kind: EntityKind, name: string): Promise<void> {
    const entity = `${kind}:${name}`;
    const index = this.cleanups.findLastIndex((cleanup) => cleanup.entity === entity);
    if (index < 0) throw new Error(`${kind} ${name} was not journaled by this scenario`);
    const [cleanup] = this.cleanups.splice(index, 1);
    this.expected.delete(entity);
    await cleanup?.undo();
  }

  async createDevice(
    local: string,
    options: { deviceProfileId?: string; type?: string } = {},
  ): Promise<ScenarioDevice> {
    const { record, token } = await this.newDevice(this.unique(local), options);
    return this.adoptDevice(local, record, token);
  }

  /**
   * Creates a device under `name` (journaled, deleted after the scenario) with an access token the
   * harness chose, and returns its record and token. The token is given in the creation request
   * (`POST /api/device?accessToken=`, docs/reference/platform-facts.md §8 "Devices"; ThingsBoard
   * DeviceController.java:189), which saves the `GET /api/device/{id}/credentials` of each
   * device (a run creates some 700). Whether the target takes the token is checked once per
   * process, on its first device, against the credentials it holds; a target that made a token of
   * its own instead is asked for each device's credentials as before.
   */
  async newDevice(
    name: string,
    options: NewDevice = {},
  ): Promise<{ record: DeviceRecord; token: string }> {
    const { admin } = this.run;
    const chosen = chosenTokens.next();
    // a secret from the start: the creation request's evidence names it (in its query)
    if (chosen) this.redactor.addSecret(chosen);
    const record = await this.track(
      'device',
      name,
      () => admin.createDevice(name, chosen ? { ...options, accessToken: chosen } : options),
      (device) => admin.deleteDevice(device.id),
    );
    const token = await chosenTokens.tokenOf(chosen, () => admin.getDeviceCredentials(record.id));
    return { record, token };
  }

  /**
   * Registers a device that exists on the platform (created by provisioning, say) under a local
   * name.
   */
  async adoptDevice(local: string, record: DeviceRecord, token?: string): Promise<ScenarioDevice> {
    const accessToken = token ?? (await this.run.admin.getDeviceCredentials(record.id));
    const device = { local, record, token: accessToken, driver: this.newDriver(accessToken) };
    this.devices.set(local, device);
    return device;
  }

  /**
   * The platform name of a device that the platform will create by itself (a gateway connects it or
   * publishes for it): journaled before it can exist, and deleted by name after the scenario. Local
   * names already known map to their device.
   */
  platformCreatedDevice(local: string): string {
    const known = this.devices.get(local);
    if (known) return known.record.name;
    const name = this.unique(local);
    this.expectCreated('device', name);
    return name;
  }

  /**
   * The platform name of a device profile the platform will create by itself (a gateway connect
   * with a type).
   */
  platformCreatedProfile(local: string): string {
    const name = this.unique(local);
    this.expectCreated('deviceProfile', name);
    return name;
  }

  gateway(local: string): ScenarioGateway {
    const gateway = this.gateways.get(local);
    if (!gateway)
      throw new Error(`no gateway "${local}" in this scenario: create it with a Given step first`);
    return gateway;
  }

  device(local: string): ScenarioDevice {
    const device = this.devices.get(local);
    if (!device)
      throw new Error(`no device "${local}" in this scenario: create it with a Given step first`);
    return device;
  }

  /**
   * Retries `check` until it passes, for the target's eventuallyMs (plus `extraMs` when the effect
   * is known to take longer). `local`: the check reads only the harness's own state and is repeated
   * at the poll interval without backing off (support/eventually.ts EventuallyOptions.local).
   */
  // A wait that ran out while the harness's loop stood still for half of it or more (in all: a
  // loaded machine's many short stalls add up) did not really wait, as in untilEffective:
  // INCONCLUSIVE with the stall, not FAIL.
  async eventually<T>(
    check: () => Promise<T> | T,
    extraMs = 0,
    { local = false }: { local?: boolean } = {},
  ): Promise<T> {
    const { eventuallyMs, pollIntervalMs } = this.run.target.timeouts;
    const timeoutMs = eventuallyMs + extraMs;
    const started = Date.now();
    try {
      return await eventually(check, { timeoutMs, intervalMs: pollIntervalMs, local });
    } catch (error) {
      if (error instanceof GiveUp || error instanceof Inconclusive) throw error;
      const stalledMs = this.stalls.stalledBetween(started);
      if (stalledMs >= timeoutMs / 2)
        throw new Inconclusive(
          `${HARNESS_STARVED} ${Math.round(stalledMs)} ms in all (worst ${Math.round(this.stalls.worstBetween(started))} ms) of a ${timeoutMs} ms wait, more than half of it (a busy machine): ${error instanceof Error ? error.message : String(error)}`,
          { cause: error },
        );
      throw error;
    }
  }

  lastResponse(): DeviceResponse {
    if (!this.response) throw new Error('no device API request was made in this scenario yet');
    return this.response;
  }
}

setWorldConstructor(IotcWorld);
