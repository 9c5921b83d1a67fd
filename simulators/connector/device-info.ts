/**
 * deviceInfo: the device name and profile of a request, from its expressions and their sources
 * (request | constant).
 */
import { evaluateText } from '../../lib/expressions';
import type { DeviceInfo } from './config-types';
import { ConversionRefusedError } from './converted';

export function deviceOf(
  deviceInfo: DeviceInfo,
  data: unknown,
): { deviceName: string; deviceProfile: string } {
  const deviceName = resolve(
    deviceInfo.deviceNameExpression,
    deviceInfo.deviceNameExpressionSource,
    data,
  );
  if (!deviceName)
    throw new ConversionRefusedError(
      `the device name expression ${deviceInfo.deviceNameExpression} finds no value in the request`,
    );
  const deviceProfile =
    resolve(deviceInfo.deviceProfileExpression, deviceInfo.deviceProfileExpressionSource, data) ||
    'default';
  return { deviceName, deviceProfile };
}

function resolve(
  expression: string,
  source: 'request' | 'constant',
  data: unknown,
): string | undefined {
  // constant: the expression is the value itself, placeholders and all
  return source === 'constant' ? expression : evaluateText(expression, data);
}
