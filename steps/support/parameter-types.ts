/**
 * Cucumber parameter types of the step texts (`{mqttVersion}`: 3.1.1 or 5). They are global to
 * every step file.
 */
import { defineParameterType } from './cucumber';
import type { MqttVersion } from '../../simulators/device/mqtt-connection';

defineParameterType({
  name: 'mqttVersion',
  regexp: /3\.1\.1|5/,
  transformer: (text: string): MqttVersion => (text === '5' ? 5 : 4),
});
