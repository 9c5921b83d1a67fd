/**
 * Custom converters (docs/reference/interfaces.md "custom converter parameters"):
 * converter.extension names a class, loaded from a module of that name in the connector's
 * extensions folder (`<folder>/<extension>.ts` or `.js`, exporting the class by that name or as
 * default). The whole converter section is passed to its constructor, so extensionConfig and any
 * other member reach it. Its convert() gets the request (raw body and merged data) and returns data
 * for the platform; deviceInfo is resolved by the connector unless the converter names the device
 * itself.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { ConverterConfig } from './config-types';
import type { ConvertedData, RequestData, UplinkConverter } from './converted';
import { deviceOf } from './device-info';
import { IotcError } from '../../lib/errors';

/**
 * What a custom converter returns: data for the platform, with the device when it chooses it
 * itself.
 */
export type CustomConversion = Omit<ConvertedData, 'deviceName' | 'deviceProfile'> & {
  deviceName?: string;
  deviceProfile?: string;
};

export interface CustomConverterModule {
  convert(request: RequestData): CustomConversion | Promise<CustomConversion>;
}

type CustomConverterClass = new (
  section: Record<string, unknown>,
  logger: Logger,
) => CustomConverterModule;

/** The custom converter a rest.json names (converter.extension) cannot be loaded. */
export class CustomConverterLoadError extends IotcError {
  readonly code = 'IOTC_CUSTOM_CONVERTER';
}

/** The custom converter's steps (steps.ts); step-faults.ts wraps them. */
export interface CustomConverterSteps {
  /** The module name converter.extension names in the folder. */
  moduleOf(extension: string, folder: string): string;
  /** What the converter's convert() is given. */
  requestGiven(request: RequestData): RequestData;
}

export const CUSTOM_CONVERTER_STEPS: CustomConverterSteps = {
  moduleOf: (extension) => extension,
  requestGiven: (request) => request,
};

export function loadCustomConverter(
  config: Extract<ConverterConfig, { type: 'custom' }>,
  folder: string,
  logger: Logger,
  steps: CustomConverterSteps = CUSTOM_CONVERTER_STEPS,
): UplinkConverter {
  const extension = steps.moduleOf(config.extension, folder);
  const file = ['.ts', '.js']
    .map((suffix) => join(folder, `${extension}${suffix}`))
    .find((path) => existsSync(path));
  if (!file)
    throw new CustomConverterLoadError(`no custom converter ${config.extension} in ${folder}`);
  // extensions are found at run time by name, so a static import cannot load them
  const loaded = require(file) as Record<string, unknown>;
  const Class = (loaded[extension] ?? loaded.default) as CustomConverterClass | undefined;
  if (typeof Class !== 'function')
    throw new CustomConverterLoadError(`${file} exports no class ${config.extension}`);
  const instance = new Class(
    structuredClone(config.section),
    logger.child({ converter: config.extension }),
  );
  const deviceInfo = config.deviceInfo;
  return {
    async convert(request) {
      const result = await instance.convert(steps.requestGiven(request));
      const device = result.deviceName
        ? { deviceName: result.deviceName, deviceProfile: result.deviceProfile ?? 'default' }
        : deviceOf(deviceInfo, request.data);
      return { ...result, ...device };
    },
  };
}

/**
 * The first converter module of the folder by name (the fault that ignores converter.extension).
 */
export function firstModule(folder: string): string {
  const first = readdirSync(folder)
    .filter((name) => /\.(ts|js)$/.test(name) && !name.endsWith('.d.ts'))
    .sort()[0];
  return first ? first.replace(/\.(ts|js)$/, '') : '';
}
