/** Every planted fault, one file per interface. */
import { ADMIN_AUTH_FAULTS } from './admin-auth';
import { ANALYTICS_FAULTS } from './analytics-report';
import { GATEWAY_FAULTS } from './mqtt-gateway-api';
import { HTTP_FAULTS } from './http-device-api';
import { KV_FAULTS } from './key-value-data';
import { MQTT_DEVICE_FAULTS } from './mqtt-device-api';
import { REST_CONNECTOR_FAULTS } from './rest-connector';
import { REST_CONNECTOR_REQUESTS_MAPPING_FAULTS } from './rest-connector-requests-mapping';
import { ROBUSTNESS_FAULTS } from './robustness';

export const FAULT_CATALOGUE = [
  ...HTTP_FAULTS,
  ...KV_FAULTS,
  ...GATEWAY_FAULTS,
  ...MQTT_DEVICE_FAULTS,
  ...REST_CONNECTOR_FAULTS,
  ...REST_CONNECTOR_REQUESTS_MAPPING_FAULTS,
  ...ADMIN_AUTH_FAULTS,
  ...ANALYTICS_FAULTS,
  ...ROBUSTNESS_FAULTS,
] as const;

export type FaultId = (typeof FAULT_CATALOGUE)[number]['id'];
