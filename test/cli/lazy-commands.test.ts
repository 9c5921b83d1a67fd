/**
 * The command line loads a command's implementation only when that command runs: parsing the
 * options of every command must not load the reference platform (a load run that carried it
 * measured a heavier generator: its heap made the garbage collector promote and compact far more
 * often).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { ROOT } from '../support/children';

test('iotc --version loads no module of the reference platform but the quirks table', async () => {
  const script = `
    process.argv = [process.argv[0], 'iotc', '--version'];
    require(${JSON.stringify(join(ROOT, 'src', 'cli', 'main.ts'))});
    process.on('exit', () => {
      const platform = Object.keys(require.cache).filter((file) => file.includes(${JSON.stringify(join('simulators', 'platform'))}));
      process.stderr.write(JSON.stringify(platform.map((file) => file.slice(${ROOT.length + 1}))));
    });`;
  const { stderr } = await promisify(execFile)(
    process.execPath,
    ['-r', 'ts-node/register/transpile-only', '-e', script],
    { cwd: ROOT, timeout: 120_000 },
  );
  assert.deepEqual(JSON.parse(stderr), [join('simulators', 'platform', 'quirks.ts')]);
});
