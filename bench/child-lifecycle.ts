/**
 * How a bench child ends: on SIGTERM/SIGINT, or when its parent goes away (stdin closes), so it
 * never outlives the bench.
 */
export function stopWithParent(stop: () => void): void {
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.stdin.on('end', stop);
  process.stdin.on('error', stop);
  process.stdin.resume();
}
