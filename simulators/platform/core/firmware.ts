/**
 * Firmware update start and stop (docs/reference/platform-facts.md §12): assigning a package sets
 * the shared attributes fw_title, fw_version, fw_size, fw_checksum_algorithm, fw_checksum (fw_url
 * for a URL package), which reach the device's sessions, and the telemetry fw_state=QUEUED,
 * target_fw_title, target_fw_version, target_fw_ts. Clearing the assignment removes those shared
 * attributes. The attributes an assignment sets are a named step (FIRMWARE_STEPS) that the planted
 * faults wrap (FIRMWARE_FAULTS, faults/steps.ts).
 */
import type { TypedValue } from '../../../lib/kv/values';
import type { Device, OtaPackage } from './model';
import type { DeviceStore } from './device-store';
import { type StepFaults, withFaults } from '../../../faults/steps';

const FIRMWARE_ATTRIBUTES = [
  'fw_title',
  'fw_version',
  'fw_tag',
  'fw_size',
  'fw_checksum_algorithm',
  'fw_checksum',
  'fw_url',
];

type Values = Array<[string, TypedValue]>;
const text = (value: string): TypedValue => ({ type: 'STRING', value });

/** The named step of an assignment: the shared attributes that announce the package. */
const FIRMWARE_STEPS = {
  attributes: (ota: OtaPackage): Values => {
    const values: Values = [
      ['fw_title', text(ota.title)],
      ['fw_version', text(ota.version)],
    ];
    if (ota.data) {
      values.push(['fw_size', { type: 'LONG', value: BigInt(ota.data.length) }]);
      values.push(['fw_checksum_algorithm', text(ota.checksumAlgorithm ?? 'SHA256')]);
      values.push(['fw_checksum', text(ota.checksum ?? '')]);
    } else if (ota.url) {
      values.push(['fw_url', text(ota.url)]);
    }
    return values;
  },
};

/** An attribute left out of the announcement. */
const without =
  (key: string) =>
  (step: (ota: OtaPackage) => Values) =>
  (ota: OtaPackage): Values =>
    step(ota).filter(([name]) => name !== key);

/**
 * The planted faults of an assignment (faults/catalogue/http-device-api.ts), wrappers of its step.
 */
const FIRMWARE_FAULTS: StepFaults<typeof FIRMWARE_STEPS> = {
  'HTTP-FW-02:checksum-missing': { attributes: without('fw_checksum') },
  'HTTP-FW-02:title-missing': { attributes: without('fw_title') },
};

export function startFirmwareUpdate(core: DeviceStore, device: Device, ota: OtaPackage): void {
  device.firmwareId = ota.id;
  const values = withFaults(FIRMWARE_STEPS, FIRMWARE_FAULTS).attributes(ota);
  core.saveAttributes(device, 'SHARED_SCOPE', values);
  const now = Date.now();
  core.saveTelemetry(device, [
    {
      ts: now,
      values: [
        ['target_fw_title', text(ota.title)],
        ['target_fw_version', text(ota.version)],
        ['target_fw_ts', { type: 'LONG', value: BigInt(now) }],
        ['fw_state', text('QUEUED')],
      ],
    },
  ]);
}

export function stopFirmwareUpdate(core: DeviceStore, device: Device): void {
  device.firmwareId = null;
  core.deleteAttributes(
    device,
    'SHARED_SCOPE',
    FIRMWARE_ATTRIBUTES.filter((key) => device.attributes.SHARED_SCOPE.has(key)),
  );
}

/**
 * Bytes [size*chunk, size*(chunk+1)) of a package; size 0 = the whole file; past the end an empty
 * buffer (as ThingsBoard's OTA package cache), for the HTTP download and the MQTT v2/fw topics
 * alike.
 */
export function firmwareChunk(data: Buffer, size: number, chunk: number): Buffer {
  if (size === 0) return data;
  return data.subarray(
    Math.min(size * chunk, data.length),
    Math.min(size * (chunk + 1), data.length),
  );
}
