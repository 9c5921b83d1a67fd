/**
 * What a converter makes of one request: the device, its profile, client attributes and telemetry,
 * all typed.
 */
import type { TypedValue } from '../../lib/kv/values';
import { IotcError } from '../../lib/errors';

export interface ConvertedData {
  deviceName: string;
  deviceProfile: string;
  attributes: Record<string, TypedValue>;
  /** Telemetry grouped by timestamp (unix ms). */
  telemetry: Array<{ ts: number; values: Record<string, TypedValue> }>;
}

/** A request a converter cannot turn into data for a device (no device name, say): answered 400. */
export class ConversionRefusedError extends IotcError {
  readonly code = 'IOTC_CONVERSION_REFUSED';
}

/** The incoming request as converters see it. */
export interface RequestData {
  method: string;
  /**
   * The merged key-value object: body fields (JSON or multipart), query parameters on top (the
   * query wins).
   */
  data: Record<string, unknown>;
  /** The raw body (custom converters decode bytes). */
  body: Buffer;
  contentType?: string;
  /**
   * When the request arrived (unix ms): the timestamp of telemetry without tsField, ts or
   * timestamp.
   */
  receivedAt: number;
}

/** A converter of one endpoint: the json converter or a custom extension. */
export interface UplinkConverter {
  convert(request: RequestData): ConvertedData | Promise<ConvertedData>;
}
