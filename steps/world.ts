/**
 * Per-scenario state. Names in scenarios are local ("thermo"); the world turns them into
 * `<namePrefix><runId>-<name>` so that a run never touches what it did not create, and remembers every entity it
 * creates so the After hook can delete it, also after a failure.
 */
import { World, setWorldConstructor, type IWorldOptions } from '@cucumber/cucumber';
import { HttpDevice, type DeviceResponse } from '../simulators/device/http-device';
import type { DeviceRecord } from '../src/admin-client';
import { run, type RunContext } from './support/run';
import type { EntityKind } from '../src/target/journal';
import { eventually } from './support/eventually';

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
  /** The last answer of the device API, for Then steps. */
  response?: DeviceResponse;
  /** Requests started in a When step and awaited in a Then step (long-polls, RPC calls). */
  readonly pending = new Map<string, Promise<unknown>>();

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
    return new HttpDevice(baseUrl, token, {
      requestTimeoutMs: target.timeouts.requestMs,
      dispatcher: options.https ? undefined : deviceDispatcher,
      tls: options.https ? { ca: target.tls.ca, insecureSkipVerify: target.tls.insecureSkipVerify } : undefined,
    });
  }

  /**
   * Creates an entity the staging-safe way: journal the intent, create, journal the id, and register its removal
   * (journaled too) for the After hook.
   */
  async track<T extends { id: string }>(kind: EntityKind, name: string, create: () => Promise<T>, remove: (created: T) => Promise<void>): Promise<T> {
    const { journal } = this.run;
    journal.intend(kind, name);
    const created = await create();
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

  async createDevice(local: string, options: { deviceProfileId?: string; type?: string } = {}): Promise<ScenarioDevice> {
    const name = this.unique(local);
    const record = await this.track('device', name, () => this.run.admin.createDevice(name, options), (device) => this.run.admin.deleteDevice(device.id));
    return this.adoptDevice(local, record);
  }

  /** Registers a device that exists on the platform (created by provisioning, say) under a local name. */
  async adoptDevice(local: string, record: DeviceRecord, token?: string): Promise<ScenarioDevice> {
    const accessToken = token ?? (await this.run.admin.deviceAccessToken(record.id));
    const device = { local, record, token: accessToken, driver: this.newDriver(accessToken) };
    this.devices.set(local, device);
    return device;
  }

  device(local: string): ScenarioDevice {
    const device = this.devices.get(local);
    if (!device) throw new Error(`no device "${local}" in this scenario: create it with a Given step first`);
    return device;
  }

  eventually<T>(check: () => Promise<T> | T): Promise<T> {
    const { eventuallyMs, pollIntervalMs } = this.run.target.timeouts;
    return eventually(check, { timeoutMs: eventuallyMs, intervalMs: pollIntervalMs });
  }

  lastResponse(): DeviceResponse {
    if (!this.response) throw new Error('no device API request was made in this scenario yet');
    return this.response;
  }
}

setWorldConstructor(IotcWorld);
