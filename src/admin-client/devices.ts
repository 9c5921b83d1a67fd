/**
 * Devices (docs/reference/platform-facts.md §8 "Devices"): create, find, read, save, credentials,
 * delete, list.
 */
import { errorOf, type AdminSession } from './auth';
import { deviceRecord, entityRef, type DeviceRecord } from './records';
import { toPlain } from '../../lib/kv/values';

export interface NewDevice {
  /** Device profile name; ThingsBoard finds or creates the profile. */
  type?: string;
  label?: string;
  additionalInfo?: Record<string, unknown>;
  deviceProfileId?: string;
  /** The access token to give the device; the platform makes a random one when absent. */
  accessToken?: string;
}

export interface DevicePage {
  data: DeviceRecord[];
  hasNext: boolean;
  totalElements: number;
}

export async function createDevice(
  session: AdminSession,
  name: string,
  options: NewDevice = {},
): Promise<DeviceRecord> {
  const body: Record<string, unknown> = { name };
  if (options.type) body.type = options.type;
  if (options.label) body.label = options.label;
  if (options.additionalInfo) body.additionalInfo = options.additionalInfo;
  if (options.deviceProfileId)
    body.deviceProfileId = entityRef('DEVICE_PROFILE', options.deviceProfileId);
  const query = options.accessToken
    ? `?accessToken=${encodeURIComponent(options.accessToken)}`
    : '';
  return deviceRecord((await session.call('POST', `/api/device${query}`, body)).json);
}

/** The device of that exact name, or undefined (404). */
export async function findDeviceByName(
  session: AdminSession,
  name: string,
): Promise<DeviceRecord | undefined> {
  const path = `/api/tenant/devices?deviceName=${encodeURIComponent(name)}`;
  const answer = await session.raw('GET', path);
  if (answer.status === 404) return undefined;
  if (answer.status !== 200) throw errorOf('GET', path, answer);
  return deviceRecord(answer.json);
}

export async function getDevice(session: AdminSession, id: string): Promise<DeviceRecord> {
  return deviceRecord((await session.call('GET', `/api/device/${id}`)).json);
}

/**
 * Saves a whole device record (with `firmwareId` set this starts a firmware update,
 * docs/reference/platform-facts.md §12).
 */
export async function saveDevice(
  session: AdminSession,
  raw: Record<string, unknown>,
): Promise<DeviceRecord> {
  return deviceRecord((await session.call('POST', '/api/device', raw)).json);
}

/** The device's access token (`credentialsId` of ACCESS_TOKEN credentials). */
export async function getDeviceCredentials(session: AdminSession, id: string): Promise<string> {
  const credentials = toPlain(
    (await session.call('GET', `/api/device/${id}/credentials`)).json,
  ) as { credentialsId?: unknown };
  return String(credentials.credentialsId);
}

export async function deleteDevice(session: AdminSession, id: string): Promise<void> {
  await session.call('DELETE', `/api/device/${id}`);
}

/** One page of the tenant's devices whose name matches `textSearch`. */
export async function listDevices(
  session: AdminSession,
  page: number,
  textSearch = '',
  pageSize = 100,
): Promise<DevicePage> {
  const query = `pageSize=${pageSize}&page=${page}${textSearch ? `&textSearch=${encodeURIComponent(textSearch)}` : ''}`;
  const body = (await session.call('GET', `/api/tenant/devices?${query}`)).json as {
    data?: unknown[];
    hasNext?: unknown;
    totalElements?: unknown;
  };
  return {
    data: (body.data ?? []).map(deviceRecord),
    hasNext: body.hasNext === true,
    totalElements: Number(String(body.totalElements ?? 0)),
  };
}
