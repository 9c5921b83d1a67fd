/**
 * A thresholds file for `iotc load <profile> --thresholds <file.json>` (load/thresholds-file.ts):
 * the same expressions as `--threshold`, as a list, or k6's way, grouped by metric ({"p99":
 * ["<50"], "lost": ["==0"]}).
 */
export const loadThresholdsFileSchema = {
  $id: 'iotc:load-thresholds-file',
  type: 'object',
  required: ['thresholds'],
  properties: {
    $schema: { type: 'string' },
    description: { description: 'What the thresholds are for (not read).', type: 'string' },
    thresholds: {
      oneOf: [
        {
          description: "Expressions as --threshold takes them, e.g. 'p99<50'.",
          type: 'array',
          items: { type: 'string', minLength: 1 },
        },
        {
          description: 'By metric: each a list of \'<operator><number>\', e.g. {"p99": ["<50"]}.',
          type: 'object',
          additionalProperties: {
            type: 'array',
            items: { type: 'string', pattern: '^\\s*(<=|>=|==|!=|<|>)' },
          },
        },
      ],
    },
  },
  additionalProperties: false,
} as const;
