/**
 * conformance.html in a real browser: headless Chromium (Debian's `chromium` package) renders the
 * page of a real short run that has all five verdicts, takes a screenshot (kept as
 * reports/conformance-chromium.png for people to look at) and dumps the DOM after the page's script
 * ran: the summary per interface, the requirement matrix, the evidence, and the verdict filter (its
 * default state, and a filtered view selected by the URL, #verdict=FAIL).
 *
 * Without chromium on PATH the test is skipped, except in CI (CI=true), where .ci/run installs it
 * and its absence fails.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { inflateSync } from 'node:zlib';
import type { ConformanceReport } from '../../src/report/conformance';
import { iotc, ROOT } from '../support/iotc';
import { findChromium, skipWithoutChromium } from '../support/chromium';

const FEATURES = join(ROOT, 'features', 'http-device-api');

const chromium = findChromium();
const skip = skipWithoutChromium('chromium poppler-utils');

/**
 * Runs headless Chromium with its own profile directory (so runs in parallel do not share one);
 * resolves stdout.
 */
function headless(args: string[]): Promise<string> {
  const profile = mkdtempSync(join(tmpdir(), 'iotc-chromium-'));
  const common = [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    `--user-data-dir=${profile}`,
    '--window-size=1280,2000',
  ];
  return new Promise((resolve, reject) => {
    execFile(
      chromium!,
      [...common, ...args],
      { maxBuffer: 64 * 1024 * 1024, timeout: 600_000 },
      (error, stdout, stderr) => {
        if (error)
          reject(
            new Error(
              `chromium ${args.join(' ')} failed: ${error.message}\n${stderr.slice(-2000)}`,
            ),
          );
        else resolve(stdout);
      },
    );
  });
}

/**
 * A short real run with every verdict: the reference in ThingsBoard 4.3 quirks mode, with a profile
 * that declares only the HTTP-ERR-01 deviation (DEVIATION), not KV-02's (FAIL), and lacks the
 * claiming capability (NOT APPLICABLE).
 */
async function shortRun(
  dir: string,
): Promise<{ report: ConformanceReport; html: string; output: string }> {
  const profile = JSON.parse(
    readFileSync(join(ROOT, 'src', 'target', 'profiles', 'embedded-thingsboard-4.3.json'), 'utf8'),
  ) as Record<string, unknown> & {
    capabilities: string[];
    timeouts: Record<string, number>;
  };
  delete profile.deviationsFrom;
  const declared = JSON.parse(
    readFileSync(join(ROOT, 'src', 'target', 'profiles', 'thingsboard-4.3.json'), 'utf8'),
  ) as { deviations: Record<string, unknown> };
  const profilePath = join(dir, 'one-deviation.json');
  writeFileSync(
    profilePath,
    JSON.stringify({
      ...profile,
      name: 'quirks-declaring-one-deviation',
      deviations: { 'HTTP-ERR-01': declared.deviations['HTTP-ERR-01'] },
      capabilities: profile.capabilities.filter((capability) => capability !== 'claiming'),
      timeouts: { ...profile.timeouts, eventuallyMs: 300 }, // the failing read-back waits this long
    }),
  );
  const reports = join(dir, 'reports');
  const features = [
    'errors.feature',
    'deviations.feature',
    'key-value-data.feature:20',
    'claim.feature',
  ].map((file) => join(FEATURES, file));
  const { code, output } = await iotc(
    ['run', '--target', profilePath, '--reports', reports, ...features],
    join(dir, 'state'),
  );
  assert.equal(code, 1, `the run has a FAIL, so it exits 1:\n${output.slice(-3000)}`);
  // what `npm start` (iotc run) promises in the README: all five report files
  for (const file of [
    'conformance.json',
    'conformance.html',
    'junit.xml',
    'cucumber.json',
    'cucumber.html',
  ]) {
    assert.ok(statSync(join(reports, file)).size > 0, `iotc run wrote ${file}`);
  }
  const report = JSON.parse(
    readFileSync(join(reports, 'conformance.json'), 'utf8'),
  ) as ConformanceReport;
  return { report, html: join(reports, 'conformance.html'), output };
}

/**
 * Width, height and the share of non-zero bytes in the unfiltered image data (0 for a page of one
 * colour).
 */
function pngFacts(png: Buffer): { width: number; height: number; busy: number } {
  assert.deepEqual(
    [...png.subarray(0, 8)],
    [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
    'a PNG signature',
  );
  assert.equal(png.toString('latin1', 12, 16), 'IHDR');
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  const idat: Buffer[] = [];
  for (let offset = 8; offset < png.length; ) {
    const length = png.readUInt32BE(offset);
    if (png.toString('latin1', offset + 4, offset + 8) === 'IDAT')
      idat.push(png.subarray(offset + 8, offset + 8 + length));
    offset += 12 + length;
  }
  const pixels = inflateSync(Buffer.concat(idat));
  let nonZero = 0;
  for (const byte of pixels) if (byte !== 0) nonZero += 1;
  // each scanline starts with its filter type byte; with Sub/Up filters a uniform page is all zeros
  // after it
  return { width, height, busy: (nonZero - height) / pixels.length };
}

interface RenderedRow {
  id: string;
  verdict: string;
  hidden: boolean;
}

function rows(dom: string): RenderedRow[] {
  return [
    ...dom.matchAll(
      /<tr class="requirement" data-verdict="([^"]+)"( hidden="")?><td><code>([^<]+)<\/code>/g,
    ),
  ].map((match) => ({
    verdict: match[1],
    hidden: match[2] !== undefined,
    id: match[3],
  }));
}

test('conformance.html renders in headless Chromium: a screenshot that is not blank, and the summary, matrix, evidence and filter in the DOM', {
  skip,
  timeout: 900_000, // a hang guard only
}, async () => {
  assert.ok(
    chromium,
    'CI=true but chromium is not on PATH: .ci/run installs it with apt-get install -y chromium',
  );
  const dir = mkdtempSync(join(tmpdir(), 'iotc-html-'));
  const { report, html } = await shortRun(dir);
  const verdicts = new Set(report.requirements.map((requirement) => requirement.verdict));
  // on a starved machine a timed verdict may be INCONCLUSIVE besides (it renders like the others);
  // the five the page must show are always there
  assert.deepEqual(
    [...verdicts].filter((verdict) => verdict !== 'INCONCLUSIVE').sort(),
    ['DEVIATION', 'FAIL', 'NOT APPLICABLE', 'NOT TESTED', 'PASS'],
    'the short run has all five verdicts',
  );

  mkdirSync(join(ROOT, 'reports'), { recursive: true });
  const screenshot = join(ROOT, 'reports', 'conformance-chromium.png');
  const page = pathToFileURL(html).href;
  // one browser takes the screenshot and dumps the DOM of the default view, another the view
  // filtered by the URL
  const [dom, failOnly] = await Promise.all([
    headless([`--screenshot=${screenshot}`, '--dump-dom', page]),
    headless(['--dump-dom', `${page}#verdict=FAIL`]),
  ]);

  const png = readFileSync(screenshot);
  const { width, height, busy } = pngFacts(png);
  assert.deepEqual(
    { width, height },
    { width: 1280, height: 2000 },
    'the screenshot has the window size',
  );
  assert.ok(
    png.length > 60_000,
    `the screenshot is ${png.length} bytes; a blank page of this size is about 12 kB`,
  );
  assert.ok(
    busy > 0.01,
    `the screenshot is nearly uniform (${(busy * 100).toFixed(2)}% of the image data differs from its neighbour)`,
  );

  // the summary per interface, with the report's counts
  for (const summary of report.summary) {
    const cells =
      [summary.requirements, summary.testable, summary.tested]
        .map((count) => `<td>${count}</td>`)
        .join('') +
      `<td class="pass">${summary.verdicts.PASS}</td><td class="fail">${summary.verdicts.FAIL}</td><td class="deviation">${summary.verdicts.DEVIATION}</td>`;
    assert.ok(
      dom.includes(`<tr><th>${summary.interface}</th>${cells}`),
      `the summary row of ${summary.interface} with ${cells}`,
    );
  }
  // the requirement matrix: every requirement, in order, with its verdict, all shown by default
  const all = rows(dom);
  assert.deepEqual(
    all.map(({ id, verdict }) => ({ id, verdict })),
    report.requirements.map(({ id, verdict }) => ({ id, verdict })),
  );
  assert.deepEqual(
    all.filter((row) => row.hidden),
    [],
    'nothing is hidden by default',
  );
  assert.match(
    dom,
    /<div id="filters" data-active="ALL">/,
    "the page's script ran and applied the default filter",
  );
  assert.ok(
    dom.includes(
      `${report.requirements.length} of ${report.requirements.length} requirements shown`,
    ),
  );
  // evidence: one collapsed list per scenario that recorded exchanges, the failing one among them
  const withEvidence = report.requirements
    .flatMap((requirement) => requirement.scenarios)
    .filter((scenario) => scenario.exchanges?.length).length;
  assert.ok(withEvidence > 0);
  assert.equal(dom.match(/<details class="evidence"( open="")?>/g)?.length, withEvidence);
  assert.match(
    dom,
    /<code>POST \/api\/v1\/&lt;redacted&gt;\/telemetry → 200<\/code>/,
    'the failing scenario shows the request that decided it, token redacted',
  );

  // the filter, selected by the URL: only FAIL rows shown
  const filtered = rows(failOnly);
  const failing = report.requirements
    .filter((requirement) => requirement.verdict === 'FAIL')
    .map((requirement) => requirement.id);
  assert.deepEqual(
    filtered.filter((row) => !row.hidden).map((row) => row.id),
    failing,
  );
  assert.ok(filtered.filter((row) => row.hidden).every((row) => row.verdict !== 'FAIL'));
  assert.match(failOnly, /<div id="filters" data-active="FAIL">/);
  assert.match(failOnly, /<button type="button" data-filter="FAIL" class="active">/);
  assert.ok(
    failOnly.includes(`${failing.length} of ${report.requirements.length} requirements shown`),
  );

  // the certificate on paper: printed to PDF by the same browser, A4 pages, no filter buttons, the
  // overall verdict and provenance on the first page, the failing requirement's evidence expanded
  // and passing ones' collapsed
  const pdf = join(ROOT, 'reports', 'conformance-print.pdf');
  await headless([`--print-to-pdf=${pdf}`, '--no-pdf-header-footer', `${page}#verdict=FAIL`]);
  const info = await run('pdfinfo', [pdf]);
  assert.match(info, /Page size:\s+59\d(\.\d+)? x 84\d(\.\d+)? pts \(A4\)/, info);
  const pages = Number(/Pages:\s+(\d+)/.exec(info)?.[1]);
  assert.ok(pages >= 2 && pages < 40, `a readable number of A4 pages (${pages})`);
  const text = await run('pdftotext', ['-layout', pdf, '-']);
  const firstPage = text.split('\f')[0] ?? '';
  assert.match(firstPage, /NOT CONFORMANT/, 'the overall verdict on the first page');
  assert.match(
    firstPage,
    /catalogue\s+features\/requirements\.json · \d+ requirements · sha256\s+[0-9a-f]{64}/,
  );
  assert.doesNotMatch(text, /ALL \(\d+\)|requirements shown/, 'no filter buttons on paper');
  // narrow print columns break long lines anywhere: compare without white space
  assert.match(
    text.replace(/\s+/g, ''),
    /POST\/api\/v1\/<redacted>\/telemetry→200/,
    "the FAIL's evidence is printed",
  );
  assert.ok(!text.includes(ROOT), 'no local absolute path on paper');
  // every requirement is on paper, whatever the screen filter was
  for (const requirement of report.requirements.slice(0, 20))
    assert.ok(text.includes(requirement.id), requirement.id);
  await run('pdftoppm', [
    '-png',
    '-r',
    '50',
    '-f',
    '1',
    '-l',
    '1',
    pdf,
    join(ROOT, 'reports', 'conformance-print'),
  ]);
});

/**
 * A poppler tool's standard output (pdfinfo, pdftotext, pdftoppm; Debian's poppler-utils, installed
 * by .ci/run).
 */
function run(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(command, args, { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${command} failed: ${error.message}\n${stderr}`)) : resolve(stdout),
    ),
  );
}
