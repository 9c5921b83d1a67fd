/**
 * The admin API's JSON shapes of platform records, as ThingsBoard writes them
 * (docs/reference/platform-facts.md §6, §8, §12).
 */
import type { ApiKey, Device, DeviceProfile, OtaPackage, PersistentRpc, User } from '../core/model';
import type { PlatformCore } from '../core/platform-core';
import { NULL_UUID } from '../core/demo-users';

const ref = (entityType: string, id: string | null) => (id ? { entityType, id } : null);

export function userView(user: User) {
  return {
    id: ref('USER', user.id),
    tenantId: ref('TENANT', user.tenantId),
    customerId: ref('CUSTOMER', user.customerId),
    email: user.email,
    name: user.email,
    authority: user.authority,
    firstName: user.firstName,
    lastName: user.lastName,
  };
}

export function deviceView(core: PlatformCore, device: Device) {
  return {
    id: ref('DEVICE', device.id),
    createdTime: device.createdTime,
    tenantId: ref('TENANT', device.tenantId),
    customerId: ref('CUSTOMER', device.customerId ?? NULL_UUID),
    name: device.name,
    type: core.profileOf(device).name,
    label: device.label,
    deviceProfileId: ref('DEVICE_PROFILE', device.profileId),
    firmwareId: ref('OTA_PACKAGE', device.firmwareId),
    softwareId: null,
    additionalInfo: device.additionalInfo,
  };
}

export function credentialsView(device: Device) {
  return {
    id: ref('DEVICE_CREDENTIALS', device.id),
    deviceId: ref('DEVICE', device.id),
    credentialsType: 'ACCESS_TOKEN',
    credentialsId: device.token,
    credentialsValue: null,
  };
}

export function profileView(profile: DeviceProfile) {
  return {
    id: ref('DEVICE_PROFILE', profile.id),
    createdTime: profile.createdTime,
    name: profile.name,
    type: 'DEFAULT',
    transportType: 'DEFAULT',
    provisionType: profile.provisionType,
    provisionDeviceKey: profile.provisionDeviceKey,
    default: profile.isDefault,
    firmwareId: ref('OTA_PACKAGE', profile.firmwareId),
    profileData: {
      configuration: { type: 'DEFAULT' },
      transportConfiguration: { type: 'DEFAULT' },
      provisionConfiguration: {
        type: profile.provisionType,
        provisionDeviceSecret: profile.provisionDeviceSecret,
      },
    },
  };
}

export function otaPackageView(ota: OtaPackage) {
  return {
    id: ref('OTA_PACKAGE', ota.id),
    createdTime: ota.createdTime,
    deviceProfileId: ref('DEVICE_PROFILE', ota.deviceProfileId),
    type: ota.type,
    title: ota.title,
    version: ota.version,
    tag: null,
    url: ota.url,
    hasData: ota.data !== null,
    fileName: ota.fileName,
    contentType: ota.contentType,
    checksumAlgorithm: ota.checksumAlgorithm,
    checksum: ota.checksum,
    dataSize: ota.data?.length ?? null,
  };
}

/** An API key; `value` only when it is shown the one time, at creation. */
export function apiKeyView(key: ApiKey, withValue: boolean) {
  return {
    id: ref('API_KEY', key.id),
    createdTime: key.createdTime,
    userId: ref('USER', key.userId),
    description: key.description,
    expirationTime: key.expirationTime,
    enabled: key.enabled,
    ...(withValue ? { value: key.value } : {}),
  };
}

/**
 * A persistent RPC as ThingsBoard's Rpc entity: `request` is its ToDeviceRpcRequest (`body.params`
 * a string of JSON), `response` the device's reply. Values are lossless: render with
 * stringifyLossless.
 */
export function persistentRpcView(rpc: PersistentRpc) {
  return {
    id: ref('RPC', rpc.id),
    createdTime: rpc.createdTime,
    tenantId: ref('TENANT', rpc.tenantId),
    deviceId: ref('DEVICE', rpc.deviceId),
    expirationTime: rpc.expirationTime,
    request: {
      id: rpc.id,
      tenantId: ref('TENANT', rpc.tenantId),
      deviceId: ref('DEVICE', rpc.deviceId),
      oneway: rpc.oneway,
      expirationTime: rpc.expirationTime,
      body: { method: rpc.method, params: rpc.paramsText },
      persisted: true,
      retries: rpc.retries,
    },
    response: rpc.response,
    status: rpc.status,
    additionalInfo: rpc.additionalInfo,
  };
}

export function page<T>(items: T[], query: URLSearchParams) {
  const pageSize = Math.max(1, Number(query.get('pageSize') ?? items.length) || 1);
  const pageIndex = Math.max(0, Number(query.get('page') ?? 0) || 0);
  const data = items.slice(pageIndex * pageSize, (pageIndex + 1) * pageSize);
  const totalPages = Math.ceil(items.length / pageSize);
  return { data, totalPages, totalElements: items.length, hasNext: pageIndex + 1 < totalPages };
}
