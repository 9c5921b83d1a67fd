/**
 * The folder of iotc's package.json: where its data files are (built-in profiles, the conformance
 * rest.json and views, the requirement catalogue, the features), the same whether the code runs
 * from its TypeScript sources (a checkout, through lib/ts-register.js) or compiled into dist/ (an
 * installed package).
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

function findPackageRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'features'))) return dir;
    if (dirname(dir) === dir) throw new Error(`iotc's package.json not found above ${start}`);
  }
}

export const PACKAGE_ROOT = findPackageRoot(__dirname);

/** True when this code was compiled to JavaScript (dist/), false when it runs from .ts sources. */
export const COMPILED = __filename.endsWith('.js');
