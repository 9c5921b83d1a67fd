/**
 * The reference platform for the memory bench: started as `iotc simulate` starts it (startPlatform,
 * HTTP and MQTT on free loopback ports), in a process run with --expose-gc. Prints one JSON ready
 * line with httpUrl and mqttUrl. Each line `memory` on stdin is answered by one JSON line with
 * process.memoryUsage() taken after full garbage collections, so two readings differ by what the
 * platform holds, not by garbage; `snapshot <file>` writes a heap snapshot there and answers
 * `{"snapshot": file}`. Stops on SIGTERM/SIGINT or when stdin closes.
 */
import { createInterface } from 'node:readline';
import { writeHeapSnapshot } from 'node:v8';
import { startPlatform } from '../simulators/platform';
import { stopWithParent } from './child-lifecycle';

async function main(): Promise<void> {
  const platform = await startPlatform({ host: '127.0.0.1', httpPort: 0, mqttPort: 0 });
  process.stdout.write(
    `${JSON.stringify({ httpUrl: platform.httpUrl, mqttUrl: platform.mqttUrl })}\n`,
  );
  const collect = (globalThis as { gc?: () => void }).gc;
  if (!collect) throw new Error('run with --expose-gc');
  const stop = () => {
    void platform.close().finally(() => process.exit(0));
  };
  const lines = createInterface({ input: process.stdin });
  lines.on('line', async (line) => {
    // `snapshot <file>`: a heap snapshot (v8.writeHeapSnapshot, after a full GC), answered when written
    const snapshot = /^snapshot (.+)$/.exec(line.trim());
    if (snapshot) {
      collect();
      writeHeapSnapshot(snapshot[1]);
      process.stdout.write(`${JSON.stringify({ snapshot: snapshot[1] })}\n`);
      return;
    }
    if (line.trim() !== 'memory') return;
    // a few full collections with turns of the event loop between them: finalizers and weak maps
    // settle
    for (let i = 0; i < 3; i++) {
      collect();
      await new Promise((resolveTurn) => setImmediate(resolveTurn));
    }
    const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
    process.stdout.write(
      `${JSON.stringify({ memory: { rss, heapUsed, heapTotal, external, arrayBuffers } })}\n`,
    );
  });
  stopWithParent(stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`platform-memory-child: ${(error as Error).message}\n`);
  process.exit(1);
});
