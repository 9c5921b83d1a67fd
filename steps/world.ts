/**
 * Per-scenario state. Names in scenarios are local ("thermo"); the world turns them into
 * `<namePrefix><runId>-<name>` so that a run never touches what it did not create, and remembers every entity it
 * creates so the After hook can delete it, also after a failure.
 */
import { World, setWorldConstructor, type IWorldOptions } from '@cucumber/cucumber';
import { HttpDevice, type DeviceResponse } from '../simulators/device/http-device';
import type { ConnectorResponse } from '../simulators/connector-client';
import type { DeviceRecord } from '../src/admin-client';
import { Redactor } from '../src/report/redact';
import { ExchangeLog } from '../src/report/exchanges';
import { run, type RunContext } from './support/run';
import { creation, type EntityKind } from '../src/target/journal';
import { eventually } from './support/eventually';
import type { MqttGateway } from '../simulators/gateway/mqtt-gateway';
import type { PublishOutcome } from '../simulators/device/mqtt-connection';

/** A gateway of the scenario: its device (also in `devices`) and its MQTT connection. */
export interface ScenarioGateway {
  local: string;
  driver: MqttGateway;
}

/** JSON members that carry credentials (the provisioning answer's credentialsValue, say). */
const SECRET_FIELD =
  /("(?:credentialsValue|credentialsId|token|refreshToken|accessToken|password)"\s*:\s*)"[^"]*"/g;

export interface ScenarioDevice {
  local: string;
  record: DeviceRecord;
  token: string;
  driver: HttpDevice;
}

export class IotcWorld extends World {
  readonly devices = new Map<string, ScenarioDevice>();
  /** Undo actions for what this scenario created, run last-first by the After hook. */
  readonly cleanups: Array<{ what: string; undo: () => Promise<void> }> = [];
  /** Local names of profiles, keys and packages to their platform ids or unique values. */
  readonly ids = new Map<string, string>();
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
  readonly pending = new Map<string, Promise<unknown>>();
  /** Drivers with their own connection pool (HTTPS), closed by the After hook. */
  readonly ownDrivers: HttpDevice[] = [];
  /** Counted as a running scenario by the Before hook (src/cli/interruption.ts); the After hook uncounts it. */
  countedAsRunning = false;
  /** Gateways of this scenario by local name (their devices are in `devices` too). */
  readonly gateways = new Map<string, ScenarioGateway>();
  /** The outcome of the last MQTT publish, for Then steps. */
  lastPublish?: PublishOutcome;
  /** Blanks the tokens of this scenario's devices (and secret shapes) in everything a step shows. */
  readonly redactor = new Redactor();
  /** The last requests and responses of this scenario, redacted: its evidence in the conformance report. */
  readonly exchanges = new ExchangeLog({ redact: (text) => this.redact(text) });

  constructor(options: IWorldOptions) {
    super(options);
  }

  get run(): RunContext {
    return run();
  }

  /** The platform name of a local name. */
  unique(local: string): string {
    return `${this.run.target.namePrefix}${this.run.runId}-${local}`;
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

  /** Text safe to show in a message, log or attachment: no device token, JWT, API key or secret field. */
  redact(text: string): string {
    return this.redactor.redact(text).replace(SECRET_FIELD, '$1"<redacted>"');
  }

  /** The start of a body for an assertion message, redacted. */
  shown(response: { status: number; text: string }): string {
    return `${response.status} ${this.redact(response.text.slice(0, 300)) || '(empty body)'}`;
  }

  /**
   * Creates an entity the staging-safe way: journal the intent, create, journal the id, and register its removal
   * (journaled too) for the After hook.
   */
  async track<T extends { id: string }>(
    kind: EntityKind,
    name: string,
    create: () => Promise<T>,
    remove: (created: T) => Promise<void>,
  ): Promise<T> {
    const { journal } = this.run;
    journal.intend(kind, name);
    const created = await creation(create());
    journal.created(kind, name, created.id);
    this.cleanups.push({
      what: `${kind} ${name}`,
      undo: async () => {
        await remove(created);
        journal.deleted(kind, name, created.id);
      },
    });
    return created;
  }

  async createDevice(
    local: string,
    options: { deviceProfileId?: string; type?: string } = {},
  ): Promise<ScenarioDevice> {
    const name = this.unique(local);
    const record = await this.track(
      'device',
      name,
      () => this.run.admin.createDevice(name, options),
      (device) => this.run.admin.deleteDevice(device.id),
    );
    return this.adoptDevice(local, record);
  }

  /** Registers a device that exists on the platform (created by provisioning, say) under a local name. */
  async adoptDevice(local: string, record: DeviceRecord, token?: string): Promise<ScenarioDevice> {
    const accessToken = token ?? (await this.run.admin.getDeviceCredentials(record.id));
    const device = { local, record, token: accessToken, driver: this.newDriver(accessToken) };
    this.devices.set(local, device);
    return device;
  }

  /**
   * The platform name of a device that the platform will create by itself (a gateway connects it or publishes for
   * it): journaled before it can exist, and deleted by name after the scenario. Local names already known map to
   * their device.
   */
  platformCreatedDevice(local: string): string {
    const known = this.devices.get(local);
    if (known) return known.record.name;
    return this.platformCreated('device', local, async (name) => {
      const record = await this.run.admin.findDeviceByName(name);
      if (record) await this.run.admin.deleteDevice(record.id);
    });
  }

  /** The platform name of a device profile the platform will create by itself (a gateway connect with a type). */
  platformCreatedProfile(local: string): string {
    return this.platformCreated('deviceProfile', local, async (name) => {
      const profile = await this.run.admin.findDeviceProfileByName(name);
      if (profile) await this.run.admin.deleteDeviceProfile(profile.id);
    });
  }

  private platformCreated(
    kind: EntityKind,
    local: string,
    remove: (name: string) => Promise<void>,
  ): string {
    const name = this.unique(local);
    const key = `platform-created:${kind}:${local}`;
    if (this.ids.has(key)) return name;
    this.ids.set(key, name);
    this.run.journal.intend(kind, name);
    this.cleanups.push({
      what: `${kind} ${name}`,
      undo: async () => {
        await remove(name);
        this.run.journal.deleted(kind, name);
      },
    });
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

  /** Retries `check` until it passes, for the target's eventuallyMs (plus `extraMs` when the effect is known to take longer). */
  eventually<T>(check: () => Promise<T> | T, extraMs = 0): Promise<T> {
    const { eventuallyMs, pollIntervalMs } = this.run.target.timeouts;
    return eventually(check, { timeoutMs: eventuallyMs + extraMs, intervalMs: pollIntervalMs });
  }

  lastResponse(): DeviceResponse {
    if (!this.response) throw new Error('no device API request was made in this scenario yet');
    return this.response;
  }
}

setWorldConstructor(IotcWorld);
