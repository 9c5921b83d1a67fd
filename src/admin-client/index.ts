/**
 * Client of the administration REST API, with ThingsBoard's paths and shapes (platform-facts.md §6–§8, §12), so the
 * same steps read and drive the embedded reference and a real platform. Reads come back typed (src/kv/values.ts).
 */
import { FormData } from 'undici';
import { typedValueOf, type TypedValue } from '../kv/values';
import { AdminApiError } from './errors';
import { AdminSession, type AdminCredentials, type AdminResponse, type SessionOptions } from './session';

export { AdminApiError } from './errors';
export { adminRequest } from './session';
export type { AdminCredentials, AdminResponse, SessionOptions, Method } from './session';

export interface DeviceRecord {
  id: string;
  name: string;
  type: string;
  /** The device JSON as the platform sent it (for saving it back). */
  raw: Record<string, unknown>;
}

export interface StoredValue {
  ts: number;
  /** undefined when the platform holds no value for the key. */
  value: TypedValue | undefined;
}

export interface StoredAttribute {
  value: TypedValue | undefined;
  lastUpdateTs: number;
}

export type AttributeScope = 'CLIENT_SCOPE' | 'SHARED_SCOPE' | 'SERVER_SCOPE';
export type ProvisionStrategy = 'DISABLED' | 'ALLOW_CREATE_NEW_DEVICES' | 'CHECK_PRE_PROVISIONED_DEVICES';

const TELEMETRY = '/api/plugins/telemetry/DEVICE';

export class AdminClient {
  private constructor(readonly session: AdminSession) {}

  static async login(baseUrl: string, credentials: AdminCredentials, options: SessionOptions = {}): Promise<AdminClient> {
    return new AdminClient(await AdminSession.login(baseUrl, credentials, options));
  }

  close(): Promise<void> {
    return this.session.close();
  }

  async currentUser(): Promise<Record<string, unknown>> {
    return (await this.session.call('GET', '/api/auth/user')).json as Record<string, unknown>;
  }

  // ---- devices ----

  async createDevice(
    name: string,
    options: { type?: string; label?: string; deviceProfileId?: string; additionalInfo?: Record<string, unknown>; accessToken?: string } = {},
  ): Promise<DeviceRecord> {
    const body: Record<string, unknown> = { name };
    if (options.type) body.type = options.type;
    if (options.label) body.label = options.label;
    if (options.additionalInfo) body.additionalInfo = options.additionalInfo;
    if (options.deviceProfileId) body.deviceProfileId = { entityType: 'DEVICE_PROFILE', id: options.deviceProfileId };
    const query = options.accessToken ? `?accessToken=${encodeURIComponent(options.accessToken)}` : '';
    return deviceRecord((await this.session.call('POST', `/api/device${query}`, body)).json);
  }

  async findDeviceByName(name: string): Promise<DeviceRecord | undefined> {
    const answer = await this.session.raw('GET', `/api/tenant/devices?deviceName=${encodeURIComponent(name)}`);
    if (answer.status === 404) return undefined;
    if (answer.status !== 200) throw new AdminApiError('GET', '/api/tenant/devices', answer.status, undefined, answer.text.slice(0, 200));
    return deviceRecord(answer.json);
  }

  async getDevice(id: string): Promise<DeviceRecord> {
    return deviceRecord((await this.session.call('GET', `/api/device/${id}`)).json);
  }

  /** Saves a device record (e.g. with firmwareId set, which starts a firmware update). */
  async saveDevice(raw: Record<string, unknown>): Promise<DeviceRecord> {
    return deviceRecord((await this.session.call('POST', '/api/device', plain(raw))).json);
  }

  async deviceAccessToken(id: string): Promise<string> {
    const credentials = (await this.session.call('GET', `/api/device/${id}/credentials`)).json as { credentialsId: string };
    return credentials.credentialsId;
  }

  async deleteDevice(id: string): Promise<void> {
    await this.session.call('DELETE', `/api/device/${id}`);
  }

  /** Every device whose name starts with `textSearch`, all pages. */
  async listDevices(textSearch = ''): Promise<DeviceRecord[]> {
    const devices: DeviceRecord[] = [];
    for (let page = 0; page < 1000; page++) {
      const answer = await this.session.call('GET', `/api/tenant/devices?pageSize=100&page=${page}&textSearch=${encodeURIComponent(textSearch)}`);
      const body = plain(answer.json) as { data: unknown[]; hasNext: boolean };
      devices.push(...body.data.map(deviceRecord));
      if (!body.hasNext) break;
    }
    return devices;
  }

  // ---- telemetry and attributes ----

  /** Latest values of the keys (all keys when none are named), typed. */
  async latestTelemetry(deviceId: string, keys?: string[]): Promise<Map<string, StoredValue>> {
    const query = keys?.length ? `keys=${keys.map(encodeURIComponent).join(',')}&` : '';
    const answer = await this.session.call('GET', `${TELEMETRY}/${deviceId}/values/timeseries?${query}useStrictDataTypes=true`);
    const out = new Map<string, StoredValue>();
    for (const [key, series] of Object.entries((answer.json ?? {}) as Record<string, Array<{ ts: unknown; value: unknown }>>)) {
      const latest = series[0];
      if (latest) out.set(key, { ts: Number(String(latest.ts)), value: typedValueOf(latest.value) });
    }
    return out;
  }

  /** Values of the keys stored between startTs and endTs (inclusive), newest first. */
  async telemetryHistory(deviceId: string, keys: string[], startTs: number, endTs: number, limit = 1000): Promise<Map<string, StoredValue[]>> {
    const path = `${TELEMETRY}/${deviceId}/values/timeseries?keys=${keys.map(encodeURIComponent).join(',')}&startTs=${startTs}&endTs=${endTs}&limit=${limit}&useStrictDataTypes=true`;
    const answer = await this.session.call('GET', path);
    const out = new Map<string, StoredValue[]>();
    for (const [key, series] of Object.entries((answer.json ?? {}) as Record<string, Array<{ ts: unknown; value: unknown }>>)) {
      out.set(key, series.map((entry) => ({ ts: Number(String(entry.ts)), value: typedValueOf(entry.value) })));
    }
    return out;
  }

  async telemetryKeys(deviceId: string): Promise<string[]> {
    return (await this.session.call('GET', `${TELEMETRY}/${deviceId}/keys/timeseries`)).json as string[];
  }

  async attributes(deviceId: string, scope: AttributeScope, keys?: string[]): Promise<Map<string, StoredAttribute>> {
    const query = keys?.length ? `?keys=${keys.map(encodeURIComponent).join(',')}` : '';
    const answer = await this.session.call('GET', `${TELEMETRY}/${deviceId}/values/attributes/${scope}${query}`);
    const out = new Map<string, StoredAttribute>();
    for (const item of (answer.json ?? []) as Array<{ key: string; value: unknown; lastUpdateTs: unknown }>) {
      out.set(item.key, { value: typedValueOf(item.value), lastUpdateTs: Number(String(item.lastUpdateTs)) });
    }
    return out;
  }

  /** Saves SHARED_SCOPE or SERVER_SCOPE attributes: an object, or JSON text sent as is (to keep number lexemes). */
  async saveAttributes(deviceId: string, scope: 'SHARED_SCOPE' | 'SERVER_SCOPE', attributes: Record<string, unknown> | string): Promise<void> {
    await this.session.call('POST', `${TELEMETRY}/${deviceId}/${scope}`, attributes);
  }

  async deleteAttributes(deviceId: string, scope: AttributeScope, keys: string[]): Promise<void> {
    await this.session.call('DELETE', `${TELEMETRY}/${deviceId}/${scope}?keys=${keys.map(encodeURIComponent).join(',')}`);
  }

  // ---- RPC ----

  /** Sends a server-side RPC (v1 endpoints) and returns the raw answer: 200 with the reply, 408, 409, ... */
  rpc(deviceId: string, kind: 'oneway' | 'twoway', call: { method: string; params?: unknown; timeout?: number }): Promise<AdminResponse> {
    return this.session.raw('POST', `/api/plugins/rpc/${kind}/${deviceId}`, call);
  }

  // ---- device profiles ----

  async createDeviceProfile(profile: { name: string; provisionType: ProvisionStrategy; provisionDeviceKey?: string; provisionDeviceSecret?: string }) {
    const body = {
      name: profile.name,
      type: 'DEFAULT',
      transportType: 'DEFAULT',
      provisionType: profile.provisionType,
      provisionDeviceKey: profile.provisionDeviceKey ?? null,
      profileData: {
        configuration: { type: 'DEFAULT' },
        transportConfiguration: { type: 'DEFAULT' },
        provisionConfiguration: { type: profile.provisionType, provisionDeviceSecret: profile.provisionDeviceSecret ?? null },
      },
    };
    const saved = plain((await this.session.call('POST', '/api/deviceProfile', body)).json) as { id: { id: string }; name: string };
    return { id: saved.id.id, name: saved.name };
  }

  async deleteDeviceProfile(id: string): Promise<void> {
    await this.session.call('DELETE', `/api/deviceProfile/${id}`);
  }

  // ---- claiming (as a customer user) ----

  claimDevice(deviceName: string, secretKey: string): Promise<AdminResponse> {
    return this.session.raw('POST', `/api/customer/device/${encodeURIComponent(deviceName)}/claim`, { secretKey });
  }

  reclaimDevice(deviceName: string): Promise<AdminResponse> {
    return this.session.raw('DELETE', `/api/customer/device/${encodeURIComponent(deviceName)}/claim`);
  }

  // ---- firmware ----

  async createFirmware(input: { title: string; version: string; deviceProfileId: string; data: Buffer; fileName: string; checksumAlgorithm?: string }) {
    const info = plain(
      (
        await this.session.call('POST', '/api/otaPackage', {
          title: input.title,
          version: input.version,
          type: 'FIRMWARE',
          deviceProfileId: { entityType: 'DEVICE_PROFILE', id: input.deviceProfileId },
        })
      ).json,
    ) as { id: { id: string } };
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(input.data)], { type: 'application/octet-stream' }), input.fileName);
    const algorithm = input.checksumAlgorithm ?? 'SHA256';
    const uploaded = plain((await this.session.upload(`/api/otaPackage/${info.id.id}?checksumAlgorithm=${algorithm}`, form)).json) as {
      id: { id: string };
      checksum: string;
      checksumAlgorithm: string;
    };
    return { id: uploaded.id.id, checksum: uploaded.checksum, checksumAlgorithm: uploaded.checksumAlgorithm };
  }

  async deleteFirmware(id: string): Promise<void> {
    await this.session.call('DELETE', `/api/otaPackage/${id}`);
  }
}

/** A lossless tree back to plain JS (numbers as numbers): for records whose numbers are ids and times. */
function plain(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (_key, inner: unknown) => (isLossless(inner) ? Number(inner.value) : inner)));
}

function isLossless(value: unknown): value is { value: string; isLosslessNumber: true } {
  return typeof value === 'object' && value !== null && (value as { isLosslessNumber?: unknown }).isLosslessNumber === true;
}

function deviceRecord(json: unknown): DeviceRecord {
  const raw = plain(json) as Record<string, unknown> & { id: { id: string }; name: string; type: string };
  return { id: raw.id.id, name: raw.name, type: raw.type, raw };
}
