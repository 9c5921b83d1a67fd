/**
 * JSON Schema of the reference analytics' saved table views file. A view names the devices it
 * covers, its columns, its named filters with saved values, its saved range and how rows are
 * formed. simulators/analytics/README.md documents every member with an example.
 */
import type { FromSchema } from 'json-schema-to-ts';

const ATTRIBUTE_SCOPES = ['CLIENT_SCOPE', 'SHARED_SCOPE', 'SERVER_SCOPE'] as const;

const dateSourceSchema = {
  type: 'object',
  required: ['type'],
  additionalProperties: false,
  properties: { type: { const: 'date' } },
} as const;

const deviceNameSourceSchema = {
  type: 'object',
  required: ['type'],
  additionalProperties: false,
  properties: { type: { const: 'deviceName' } },
} as const;

const telemetrySourceSchema = {
  type: 'object',
  required: ['type', 'key'],
  additionalProperties: false,
  properties: { type: { const: 'telemetry' }, key: { type: 'string', minLength: 1 } },
} as const;

const attributeSourceSchema = {
  type: 'object',
  required: ['type', 'key', 'scope'],
  additionalProperties: false,
  properties: {
    type: { const: 'attribute' },
    key: { type: 'string', minLength: 1 },
    scope: { enum: ATTRIBUTE_SCOPES },
  },
} as const;

const columnSchema = {
  type: 'object',
  required: ['label', 'source'],
  additionalProperties: false,
  properties: {
    label: { type: 'string', minLength: 1 },
    source: {
      oneOf: [
        dateSourceSchema,
        deviceNameSourceSchema,
        telemetrySourceSchema,
        attributeSourceSchema,
      ],
    },
  },
} as const;

const filterSchema = {
  type: 'object',
  required: ['source', 'values'],
  additionalProperties: false,
  properties: {
    source: { oneOf: [deviceNameSourceSchema, telemetrySourceSchema, attributeSourceSchema] },
    /**
     * Saved values; a row passes when its value, as a string, is one of them. Empty = no
     * restriction.
     */
    values: { type: 'array', items: { type: 'string' } },
  },
} as const;

const devicesSchema = {
  oneOf: [
    {
      type: 'object',
      required: ['names'],
      additionalProperties: false,
      properties: {
        names: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
      },
    },
    {
      type: 'object',
      required: ['nameContains'],
      additionalProperties: false,
      properties: { nameContains: { type: 'string' } },
    },
  ],
} as const;

const rangeSchema = {
  oneOf: [
    {
      type: 'object',
      required: ['startTs', 'endTs'],
      additionalProperties: false,
      properties: {
        startTs: { type: 'integer', minimum: 0 },
        endTs: { type: 'integer', minimum: 0 },
      },
    },
    {
      type: 'object',
      required: ['lastMs'],
      additionalProperties: false,
      properties: { lastMs: { type: 'integer', minimum: 1 } },
    },
  ],
} as const;

const tableViewSchema = {
  type: 'object',
  required: ['id', 'name', 'devices', 'columns'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', format: 'uuid' },
    name: { type: 'string', minLength: 1 },
    devices: devicesSchema,
    /**
     * perTimestamp (default): one row per device and telemetry timestamp; latest: one row per
     * device.
     */
    rows: { enum: ['perTimestamp', 'latest'] },
    columns: { type: 'array', minItems: 1, items: columnSchema },
    filters: { type: 'object', additionalProperties: filterSchema },
    /** Default: the last 24 hours. */
    range: rangeSchema,
    /** Most telemetry values read per device and key (default 1000). */
    limit: { type: 'integer', minimum: 1, maximum: 100000 },
  },
} as const;

export const viewsFileSchema = {
  $id: 'iotc:analytics/views-file',
  type: 'object',
  required: ['views'],
  additionalProperties: false,
  properties: {
    $schema: { type: 'string' },
    views: { type: 'array', items: tableViewSchema },
  },
} as const;

export type ColumnSource = FromSchema<typeof columnSchema>['source'];
export type FilterSource = FromSchema<typeof filterSchema>['source'];
export type TableViewFile = FromSchema<typeof tableViewSchema>;
export type AttributeScope = (typeof ATTRIBUTE_SCOPES)[number];
