/**
 * The shipped example custom converter: decodes telemetry from the raw bytes of the request body.
 * extensionConfig is one decoding or a list of them: key, datatype (int | float | double | string), fromByte
 * (inclusive) and toByte (exclusive), byteorder (big | little), signed, multiplier. The converter section's own
 * member attributeKeys (optional) lists decoded keys sent as client attributes instead of telemetry. The device
 * comes from the converter's deviceInfo (resolved by the connector).
 */
import type { Logger } from 'pino';
import type { TypedValue } from '../../../lib/kv/values';
import type { RequestData } from '../converted';
import type { CustomConversion, CustomConverterModule } from '../custom-converter';

interface Decoding {
  key: string;
  datatype: 'int' | 'float' | 'double' | 'string';
  fromByte: number;
  toByte: number;
  byteorder: 'big' | 'little';
  signed: boolean;
  multiplier: number;
}

export class ByteDecodingConverter implements CustomConverterModule {
  private readonly decodings: Decoding[];
  private readonly attributeKeys: ReadonlySet<string>;

  constructor(
    section: Record<string, unknown>,
    private readonly logger: Logger,
  ) {
    this.attributeKeys = new Set(
      Array.isArray(section.attributeKeys) ? section.attributeKeys.map(String) : [],
    );
    const config = section.extensionConfig;
    const list = Array.isArray(config) ? config : config ? [config] : [];
    this.decodings = list.map((item: Record<string, unknown>) => ({
      key: String(item.key),
      datatype: (['int', 'float', 'double', 'string'].includes(String(item.datatype))
        ? item.datatype
        : 'int') as Decoding['datatype'],
      fromByte: Number(item.fromByte ?? 0),
      toByte: Number(item.toByte ?? 0),
      byteorder: item.byteorder === 'little' ? 'little' : 'big',
      signed: item.signed !== false,
      multiplier: typeof item.multiplier === 'number' ? item.multiplier : 1,
    }));
  }

  convert(request: RequestData): CustomConversion {
    const values: Record<string, TypedValue> = {};
    const attributes: Record<string, TypedValue> = {};
    for (const decoding of this.decodings) {
      const value = decode(request.body, decoding);
      if (value === undefined)
        this.logger.info(
          { key: decoding.key, bytes: request.body.length },
          'not enough bytes for the key',
        );
      else if (this.attributeKeys.has(decoding.key)) attributes[decoding.key] = value;
      else values[decoding.key] = value;
    }
    return {
      attributes,
      telemetry: Object.keys(values).length ? [{ ts: request.receivedAt, values }] : [],
    };
  }
}

function decode(body: Buffer, decoding: Decoding): TypedValue | undefined {
  const bytes = body.subarray(decoding.fromByte, decoding.toByte);
  const length = decoding.toByte - decoding.fromByte;
  if (length <= 0 || bytes.length !== length) return undefined;
  const big = decoding.byteorder === 'big';
  if (decoding.datatype === 'string') return { type: 'STRING', value: bytes.toString('utf8') };
  let number: number;
  if (decoding.datatype === 'float' || decoding.datatype === 'double') {
    if (length === 4) number = big ? bytes.readFloatBE(0) : bytes.readFloatLE(0);
    else if (length === 8) number = big ? bytes.readDoubleBE(0) : bytes.readDoubleLE(0);
    else return undefined;
    return { type: 'DOUBLE', value: Number((number * decoding.multiplier).toPrecision(7)) };
  }
  if (length > 6) return undefined;
  number = decoding.signed
    ? big
      ? bytes.readIntBE(0, length)
      : bytes.readIntLE(0, length)
    : big
      ? bytes.readUIntBE(0, length)
      : bytes.readUIntLE(0, length);
  const scaled = number * decoding.multiplier;
  return Number.isInteger(scaled) && decoding.multiplier === 1
    ? { type: 'LONG', value: BigInt(scaled) }
    : { type: 'DOUBLE', value: scaled };
}
