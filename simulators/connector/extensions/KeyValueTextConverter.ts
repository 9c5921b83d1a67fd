/**
 * A second shipped example custom converter: reads a text body of `key=value` pairs separated by
 * `;` or new lines and sends them as telemetry, numbers as doubles and the rest as text. It exists
 * so that a rest.json can name two converters of one folder and each endpoint gets the class its
 * converter.extension names. The device comes from the converter's deviceInfo (resolved by the
 * connector).
 */
import type { TypedValue } from '../../../lib/kv/values';
import type { RequestData } from '../converted';
import type { CustomConversion, CustomConverterModule } from '../custom-converter';

export class KeyValueTextConverter implements CustomConverterModule {
  convert(request: RequestData): CustomConversion {
    const values: Record<string, TypedValue> = {};
    for (const pair of request.body.toString('utf8').split(/[;\n]/)) {
      const separator = pair.indexOf('=');
      if (separator <= 0) continue;
      const key = pair.slice(0, separator).trim();
      const text = pair.slice(separator + 1).trim();
      const number = Number(text);
      values[key] =
        text !== '' && Number.isFinite(number)
          ? { type: 'DOUBLE', value: number }
          : { type: 'STRING', value: text };
    }
    return {
      attributes: {},
      telemetry: Object.keys(values).length ? [{ ts: request.receivedAt, values }] : [],
    };
  }
}
