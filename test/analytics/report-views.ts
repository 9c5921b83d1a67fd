/** The views buildReport is tested with (report.test.ts): one per shape of report. */
export const ENERGY_VIEW = '0b6e7f1a-3c2d-4e5f-8a9b-0c1d2e3f4a5b';
export const LATEST_VIEW = '1c7f8a2b-4d3e-4f60-9bac-1d2e3f4a5b6c';
export const PLAIN_VIEW = '2d8a9b3c-5e4f-4071-8cbd-2e3f4a5b6c7d';

export const views = {
  views: [
    {
      id: ENERGY_VIEW,
      name: 'Energy per building',
      devices: { nameContains: 'meter' },
      columns: [
        { label: 'Date', source: { type: 'date' } },
        { label: 'Device', source: { type: 'deviceName' } },
        {
          label: 'Building',
          source: { type: 'attribute', key: 'building', scope: 'SERVER_SCOPE' },
        },
        { label: 'Energy', source: { type: 'telemetry', key: 'energy' } },
        { label: 'Status', source: { type: 'telemetry', key: 'status' } },
      ],
      filters: {
        building: {
          source: { type: 'attribute', key: 'building', scope: 'SERVER_SCOPE' },
          values: ['Building ABC'],
        },
      },
      range: { startTs: 0, endTs: 2200 },
    },
    {
      id: LATEST_VIEW,
      name: 'Latest energy',
      devices: { names: ['Meter A', 'Meter B', 'Ghost'] },
      rows: 'latest',
      columns: [
        { label: 'Device', source: { type: 'deviceName' } },
        { label: 'Last energy', source: { type: 'telemetry', key: 'energy' } },
        { label: 'At', source: { type: 'date' } },
        { label: 'Config', source: { type: 'attribute', key: 'config', scope: 'SHARED_SCOPE' } },
      ],
      filters: { online: { source: { type: 'telemetry', key: 'online' }, values: [] } },
      range: { lastMs: 3_600_000 },
    },
    {
      id: PLAIN_VIEW,
      name: 'Buildings',
      devices: { names: ['Meter B', 'Meter A'] },
      columns: [
        { label: 'Device', source: { type: 'deviceName' } },
        {
          label: 'Building',
          source: { type: 'attribute', key: 'building', scope: 'SERVER_SCOPE' },
        },
      ],
      range: { startTs: 0, endTs: 1 },
    },
  ],
};
