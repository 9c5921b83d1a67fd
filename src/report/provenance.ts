/**
 * What a conformance report stands on, so a reader can tell exactly what was checked and with what:
 * the iotc version and commit, the requirement catalogue and the specification it was written from
 * (each with its SHA-256), Node and the operating system, and the selection of scenarios (full, or
 * partial by tags or paths).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { arch, platform, release } from 'node:os';
import { join, resolve } from 'node:path';
import { PACKAGE_ROOT } from '../../lib/package-root';

export interface Provenance {
  iotc: { version: string; commit?: string; modified?: boolean };
  catalogue: { file: string; sha256: string; requirements: number };
  specification: { file: string; sha256?: string; matchesCatalogue?: boolean };
  environment: { node: string; os: string };
  selection: { tags: string; paths: string[]; full: boolean };
}

const ROOT = PACKAGE_ROOT;

export function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * The commit iotc runs from: IOTC_COMMIT (set by a packaged build), else git when this is a
 * checkout.
 */
function commitOf(): { commit?: string; modified?: boolean } {
  if (process.env.IOTC_COMMIT) return { commit: process.env.IOTC_COMMIT };
  if (!existsSync(join(ROOT, '.git'))) return {};
  try {
    const git = (...args: string[]) =>
      execFileSync('git', args, {
        cwd: ROOT,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim();
    return { commit: git('rev-parse', 'HEAD'), modified: git('status', '--porcelain').length > 0 };
  } catch {
    return {};
  }
}

export function provenance(input: { version: string; tags: string; paths: string[] }): Provenance {
  const catalogueFile = join(ROOT, 'features', 'requirements.json');
  const catalogueText = readFileSync(catalogueFile, 'utf8');
  const catalogue = JSON.parse(catalogueText) as {
    source: string;
    sourceSha256?: string;
    requirements: unknown[];
  };
  const specFile = resolve(ROOT, catalogue.source);
  const specSha = existsSync(specFile) ? sha256(readFileSync(specFile)) : undefined;
  return {
    iotc: { version: input.version, ...commitOf() },
    catalogue: {
      file: 'features/requirements.json',
      sha256: sha256(catalogueText),
      requirements: catalogue.requirements.length,
    },
    specification: {
      file: catalogue.source,
      sha256: specSha ?? catalogue.sourceSha256,
      ...(specSha && catalogue.sourceSha256
        ? { matchesCatalogue: specSha === catalogue.sourceSha256 }
        : {}),
    },
    environment: { node: process.version, os: `${platform()} ${release()} ${arch()}` },
    selection: {
      tags: input.tags,
      paths: input.paths,
      full: input.tags.trim() === '' && input.paths.length === 0,
    },
  };
}
