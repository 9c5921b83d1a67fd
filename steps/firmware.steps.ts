/**
 * Firmware: a package on the platform, the update start (fw_* shared attributes), the download by
 * the device.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { Given, Then, When } from './support/cucumber';
import { downloadFirmwareOverMqtt } from '../simulators/device/mqtt-firmware';
import { describeTypedValue } from '../lib/kv/values';
import {
  deviceProfileOfDeviceSchema,
  sharedAttributesAnswerSchema,
} from '../schemas/target-answers';
import type { IotcWorld } from './world';
import { answerOf, recordOf } from './support/answer-of';

const packageKey = (title: string, version: string) => `firmware:${title}@${version}`;
const ATTRIBUTES = 'GET /api/v1/{token}/attributes';

Given(
  'a firmware package {string} version {string} of {int} bytes for the profile of {string}',
  async function (this: IotcWorld, title: string, version: string, size: number, local: string) {
    const device = this.device(local);
    const profileId = recordOf(
      deviceProfileOfDeviceSchema,
      device.record.raw,
      `device ${device.record.name}`,
    ).deviceProfileId.id;
    const data = randomBytes(size);
    const created = await this.track(
      'otaPackage',
      `${this.unique(title)}@${version}`,
      () =>
        this.run.admin.createFirmware({
          title: this.unique(title),
          version,
          deviceProfileId: profileId,
          data,
          checksumAlgorithm: 'SHA256',
        }),
      (ota) => this.run.admin.deleteFirmware(ota.id),
    );
    this.ids.set('otaPackage', packageKey(title, version), created.id);
    this.blobs.set(packageKey(title, version), data);
  },
);

When(
  'the platform assigns the firmware {string} version {string} to {string}',
  async function (this: IotcWorld, title: string, version: string, local: string) {
    const device = this.device(local);
    const packageId = this.ids.get('otaPackage', packageKey(title, version));
    assert.ok(packageId, `no firmware package ${title} ${version} in this scenario`);
    const current = await this.run.admin.getDevice(device.record.id);
    await this.run.admin.saveDevice({
      ...current.raw,
      firmwareId: { entityType: 'OTA_PACKAGE', id: packageId },
    });
    this.cleanups.push({
      what: `firmware assignment of ${device.record.name}`,
      undo: async () => {
        const latest = await this.run.admin.getDevice(device.record.id);
        await this.run.admin.saveDevice({ ...latest.raw, firmwareId: null });
      },
    });
  },
);

Then(
  'the device {string} sees the shared attributes of the firmware {string} version {string}',
  async function (this: IotcWorld, local: string, title: string, version: string) {
    const device = this.device(local);
    const data = this.blobs.get(packageKey(title, version));
    assert.ok(data, `no firmware package ${title} ${version} in this scenario`);
    await this.eventually(async () => {
      const response = await device.driver.getAttributes({
        sharedKeys: ['fw_title', 'fw_version', 'fw_checksum', 'fw_checksum_algorithm'],
      });
      assert.equal(response.status, 200, `GET attributes answered ${this.shown(response)}`);
      const shared = answerOf(sharedAttributesAnswerSchema, response, ATTRIBUTES).shared ?? {};
      assert.equal(
        shared.fw_title,
        this.unique(title),
        `fw_title is ${JSON.stringify(shared.fw_title)}`,
      );
      assert.equal(
        shared.fw_version,
        version,
        `fw_version is ${JSON.stringify(shared.fw_version)}`,
      );
      assert.equal(
        typeof shared.fw_checksum_algorithm,
        'string',
        'fw_checksum_algorithm is not set',
      );
      assert.equal(
        String(shared.fw_checksum).toLowerCase(),
        checksumOf(data, String(shared.fw_checksum_algorithm)),
        'fw_checksum is not the checksum of the package',
      );
    });
  },
);

/**
 * The fw_* shared attributes as the admin API holds them: title, version, and a checksum of the
 * package's bytes.
 */
Then(
  'the platform holds the shared attributes of the firmware {string} version {string} for {string}',
  async function (this: IotcWorld, title: string, version: string, local: string) {
    const device = this.device(local);
    const data = this.blobs.get(packageKey(title, version));
    assert.ok(data, `no firmware package ${title} ${version} in this scenario`);
    await this.eventually(async () => {
      const stored = await this.run.admin.attributes(device.record.id, 'SHARED_SCOPE', [
        'fw_title',
        'fw_version',
        'fw_checksum',
        'fw_checksum_algorithm',
      ]);
      const text = (key: string) => {
        const value = stored.get(key)?.value;
        assert.ok(
          value?.type === 'STRING',
          `the shared attribute ${key} is ${value ? describeTypedValue(value) : 'not set'}, expected a string`,
        );
        return value.value;
      };
      assert.equal(text('fw_title'), this.unique(title), 'fw_title');
      assert.equal(text('fw_version'), version, 'fw_version');
      assert.equal(
        text('fw_checksum').toLowerCase(),
        checksumOf(data, text('fw_checksum_algorithm')),
        'fw_checksum is not the checksum of the package',
      );
    });
  },
);

When(
  'the device {string} downloads the firmware {string} version {string}',
  async function (this: IotcWorld, local: string, title: string, version: string) {
    this.response = await this.device(local).driver.firmware(this.unique(title), version);
  },
);

Then(
  'the download is the whole firmware {string} version {string}',
  function (this: IotcWorld, title: string, version: string) {
    const response = this.lastResponse();
    assert.equal(response.status, 200, `the download answered ${this.shown(response)}`);
    const data = this.blobs.get(packageKey(title, version));
    assert.ok(data, `no firmware package ${title} ${version} in this scenario`);
    assert.equal(
      response.bytes.length,
      data.length,
      'the download has not the size of the package',
    );
    assert.ok(response.bytes.equals(data), 'the downloaded bytes are not the package');
  },
);

/**
 * The checksum the platform announced (fw_checksum with fw_checksum_algorithm) verifies the
 * downloaded bytes.
 */
Then(
  'the checksum announced to {string} verifies the download',
  async function (this: IotcWorld, local: string) {
    const downloaded = this.lastResponse().bytes;
    const response = await this.device(local).driver.getAttributes({
      sharedKeys: ['fw_checksum', 'fw_checksum_algorithm'],
    });
    assert.equal(response.status, 200, `GET attributes answered ${this.shown(response)}`);
    const shared = answerOf(sharedAttributesAnswerSchema, response, ATTRIBUTES).shared ?? {};
    assert.equal(typeof shared.fw_checksum_algorithm, 'string', 'fw_checksum_algorithm is not set');
    assert.equal(
      String(shared.fw_checksum).toLowerCase(),
      checksumOf(downloaded, String(shared.fw_checksum_algorithm)),
      'fw_checksum does not verify the downloaded bytes',
    );
  },
);

/**
 * The hex checksum of `data` with a platform algorithm name (SHA256, MD5, ...; the ones node:crypto
 * has).
 */
function checksumOf(data: Buffer, algorithm: string): string {
  const name = algorithm.toLowerCase().replace(/^sha-?/, 'sha');
  try {
    return createHash(name).update(data).digest('hex');
  } catch {
    throw new Error(
      `the checksum algorithm ${algorithm} cannot be verified here (node:crypto has no ${name})`,
    );
  }
}

Then(
  'the device {string} downloads the firmware {string} version {string} in chunks of {int} bytes and gets the whole package',
  async function (this: IotcWorld, local: string, title: string, version: string, size: number) {
    const device = this.device(local);
    const data = this.blobs.get(packageKey(title, version))!;
    const parts: Buffer[] = [];
    const maxChunks = Math.ceil(data.length / size) + 1;
    for (let chunk = 0; chunk <= maxChunks; chunk++) {
      const response = await device.driver.firmware(this.unique(title), version, { size, chunk });
      assert.equal(response.status, 200, `chunk ${chunk} answered ${this.shown(response)}`);
      if (response.bytes.length === 0) break;
      assert.ok(
        response.bytes.length <= size,
        `chunk ${chunk} has ${response.bytes.length} bytes, more than ${size}`,
      );
      parts.push(response.bytes);
    }
    assert.equal(parts.length, Math.ceil(data.length / size), 'the number of chunks');
    assert.ok(Buffer.concat(parts).equals(data), 'the chunks put together are not the package');
  },
);

Then(
  'the MQTT device {string} downloads the firmware {string} version {string} over MQTT in chunks of {int} bytes and gets the whole package',
  async function (this: IotcWorld, local: string, title: string, version: string, size: number) {
    const data = this.blobs.get(packageKey(title, version));
    assert.ok(data, `no firmware package ${title} ${version} in this scenario`);
    const chunks = await downloadFirmwareOverMqtt(this.gateway(local).driver.device.connection, {
      requestId: 1,
      size: data.length,
      chunkSize: size,
      chunkTimeoutMs: this.run.target.timeouts.eventuallyMs,
    });
    for (const [index, chunk] of chunks.entries())
      assert.ok(
        chunk.length <= size,
        `chunk ${index} has ${chunk.length} bytes, more than ${size}`,
      );
    assert.equal(chunks.length, Math.ceil(data.length / size), 'the number of chunks');
    assert.ok(Buffer.concat(chunks).equals(data), 'the chunks put together are not the package');
  },
);
