/**
 * What a unit (a sub-device, a connection) retains, from two heap snapshots taken with N units
 * between them: the self sizes and counts of the second minus the first, by node type and
 * constructor (strings and code by type alone), divided by N; largest first.
 *
 *   node -r ./lib/ts-register.js bench/heap-diff.ts first.heapsnapshot last.heapsnapshot 7500 [rows]
 *
 * (bench/sub-device-memory.ts writes such a pair with BENCH_HEAP_SNAPSHOTS=<folder>: 7,500
 * sub-devices apart by default.)
 */
import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
  nodes: number[];
  strings: string[];
}

/** Self size and count per group of one snapshot. */
function groups(file: string): Map<string, { size: number; count: number }> {
  const heap = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const fields = heap.snapshot.meta.node_fields;
  const types = heap.snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const result = new Map<string, { size: number; count: number }>();
  for (let node = 0; node < heap.nodes.length; node += width) {
    const type = types[heap.nodes[node + typeAt]];
    const byName = type === 'object' || type === 'closure' || type === 'native';
    const key = byName ? `${type} ${heap.strings[heap.nodes[node + nameAt]]}` : `(${type})`;
    const group = result.get(key) ?? { size: 0, count: 0 };
    group.size += heap.nodes[node + sizeAt];
    group.count++;
    result.set(key, group);
  }
  return result;
}

function main(): void {
  const [firstFile, lastFile, unitsText, rowsText = '25'] = process.argv.slice(2);
  const units = Number(unitsText);
  if (!firstFile || !lastFile || !(units > 0)) {
    console.error(
      'usage: heap-diff.ts <first.heapsnapshot> <last.heapsnapshot> <units between> [rows]',
    );
    process.exit(2);
  }
  const first = groups(firstFile);
  const last = groups(lastFile);
  const rows = [...last].map(([key, { size, count }]) => ({
    key,
    size: (size - (first.get(key)?.size ?? 0)) / units,
    count: (count - (first.get(key)?.count ?? 0)) / units,
  }));
  const total = rows.reduce((sum, row) => sum + row.size, 0);
  rows.sort((a, b) => b.size - a.size);
  console.log(`retained per unit: ${total.toFixed(0)} bytes (self sizes, ${units} units apart)`);
  console.log('bytes/unit  count/unit  group');
  for (const row of rows.slice(0, Number(rowsText)))
    console.log(
      `${row.size.toFixed(1).padStart(10)}  ${row.count.toFixed(2).padStart(10)}  ${row.key}`,
    );
}

main();
