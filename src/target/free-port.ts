/**
 * A port the OS gives as free on `host` now (for a server that must be told its port in a file
 * before it starts).
 */
import { createServer, type AddressInfo } from 'node:net';

export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
