/**
 * `iotc validate rest.json`: once as a user runs it (a process, its exit code and output), then the
 * messages through validateRestFile, which the command prints line by line (a process start costs
 * seconds here).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkRestFile, validateCommand, validateRestFile } from '../../src/cli/validate';

const root = join(__dirname, '..', '..');
const folder = mkdtempSync(join(tmpdir(), 'iotc-validate-'));

function write(config: unknown): string {
  const file = join(folder, `rest-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, typeof config === 'string' ? config : JSON.stringify(config));
  return file;
}

function validate(config: unknown): { status: number; out: string } {
  const problems = validateRestFile(write(config));
  return {
    status: problems.length ? 1 : 0,
    out: problems.length ? problems.join('\n') : 'valid REST connector configuration',
  };
}

describe('iotc validate', () => {
  it('exits 1 and names the JSON path of each problem; exits 0 on a valid file', () => {
    const bad = write({ server: { SSL: 'yes' }, mapping: [] });
    const result = spawnSync(process.execPath, [join(root, 'bin', 'iotc.js'), 'validate', bad], {
      encoding: 'utf8',
      cwd: root,
    });
    assert.equal(result.status, 1, result.stdout + result.stderr);
    assert.match(result.stdout, /1 problem\n {2}\$\.server\.SSL: must be of type boolean/);
  });

  it('accepts the conformance rest.json (with its certificate files beside it, as the embedded target puts them)', () => {
    for (const file of ['connector-cert.pem', 'connector-key.pem'])
      writeFileSync(join(folder, file), 'PEM');
    const result = validate(require('../../src/target/embedded-rest.json'));
    assert.equal(result.status, 0, result.out);
    assert.match(result.out, /valid REST connector configuration/);
    // the second conformance file: every optional section left out
    const sparse = validate(require('../../src/target/embedded-rest-sparse.json'));
    assert.equal(sparse.status, 0, sparse.out);
  });

  it('names unknown members, wrong types and missing required members by JSON path', () => {
    const result = validate({
      server: { host: '127.0.0.1', SSL: 'yes', extra: 1 },
      mapping: [
        {
          endpoint: '/a',
          HTTPMethods: 'POST',
          converter: { timeseries: [{ key: 'k', value: '${v}' }] },
        },
      ],
    });
    assert.equal(result.status, 1);
    assert.match(result.out, /\$\.server\.extra: unknown member/);
    assert.match(result.out, /\$\.server\.SSL: must be of type boolean/);
    assert.match(result.out, /\$\.mapping\[0\]\.HTTPMethods: must be of type array/);
    assert.match(
      result.out,
      /\$\.mapping\[0\]\.converter\.timeseries\[0\]\.type: required member is missing/,
    );
  });

  it('names bad regular expressions and malformed expressions', () => {
    const result = validate({
      server: {},
      mapping: [
        {
          converter: {
            deviceInfo: { deviceNameExpression: 'Device ${name' },
            attributes: [{ key: 'k', type: 'string', value: '${}' }],
          },
        },
      ],
      requestsMapping: {
        attributeUpdates: [
          { deviceNameFilter: '([a-z', requestUrlExpression: 'http://x/${deviceName' },
        ],
        serverSideRpc: [{ methodFilter: '*bad' }],
      },
    });
    assert.equal(result.status, 1);
    assert.match(
      result.out,
      /\$\.mapping\[0\]\.converter\.deviceInfo\.deviceNameExpression: malformed expression/,
    );
    assert.match(
      result.out,
      /\$\.mapping\[0\]\.converter\.attributes\[0\]\.value: malformed expression .* empty/,
    );
    assert.match(
      result.out,
      /\$\.requestsMapping\.attributeUpdates\[0\]\.deviceNameFilter: not a valid regular expression/,
    );
    assert.match(
      result.out,
      /\$\.requestsMapping\.attributeUpdates\[0\]\.requestUrlExpression: malformed expression/,
    );
    assert.match(
      result.out,
      /\$\.requestsMapping\.serverSideRpc\[0\]\.methodFilter: not a valid regular expression/,
    );
  });

  it('names a custom converter that does not exist and an endpoint served twice', () => {
    const result = validate({
      server: {},
      mapping: [
        { endpoint: '/x', converter: { type: 'custom', extension: 'NoSuchConverter' } },
        { endpoint: '/x' },
      ],
    });
    assert.equal(result.status, 1);
    assert.match(
      result.out,
      /\$\.mapping\[0\]\.converter\.extension: no custom converter NoSuchConverter/,
    );
    assert.match(
      result.out,
      /\$\.mapping\[1\]\.endpoint: the endpoint \/x is already served by \$\.mapping\[0\]\.endpoint/,
    );
  });

  it('every bound from both sides: ports 0..65535 (number or digits), timeouts above 0, tries from 1, whole', () => {
    const server = (port: unknown) => ({ server: { port }, mapping: [] });
    for (const port of [0, 65535, '0', '65535'])
      assert.equal(validate(server(port)).status, 0, `${port}`);
    for (const port of [-1, 65536, '65536', 1.5])
      assert.match(validate(server(port)).out, /\$\.server\.port: /, `${port}`);
    const rule = (section: string, member: Record<string, unknown>) => ({
      server: {},
      mapping: [{ response: section === 'response' ? member : undefined }],
      requestsMapping: section === 'response' ? {} : { [section]: [member] },
    });
    const timeouts: Array<[string, string]> = [
      ['attributeRequests', 'timeout'],
      ['attributeUpdates', 'timeout'],
      ['serverSideRpc', 'timeout'],
      ['serverSideRpc', 'responseTimeout'],
      ['response', 'timeout'],
    ];
    for (const [section, member] of timeouts) {
      assert.equal(validate(rule(section, { [member]: 0.001 })).status, 0, `${section}.${member}`);
      assert.match(
        validate(rule(section, { [member]: 0 })).out,
        /must be > 0/,
        `${section}.${member}`,
      );
    }
    for (const section of ['attributeUpdates', 'serverSideRpc']) {
      assert.equal(validate(rule(section, { tries: 1 })).status, 0, section);
      assert.match(validate(rule(section, { tries: 0 })).out, /tries: must be >= 1/, section);
      assert.match(validate(rule(section, { tries: 1.5 })).out, /tries: must be of type integer/);
    }
  });

  it('every required member sent missing: server, mapping, an entry key, type or value, a custom extension', () => {
    assert.match(validate({ mapping: [] }).out, /\$\.server: required member is missing/);
    assert.match(validate({ server: {} }).out, /\$\.mapping: required member is missing/);
    const entry = { key: 'k', type: 'double', value: '${v}' };
    for (const member of ['key', 'type', 'value'] as const)
      for (const list of ['attributes', 'timeseries']) {
        const { [member]: _left, ...rest } = entry;
        const out = validate({ server: {}, mapping: [{ converter: { [list]: [rest] } }] }).out;
        assert.match(
          out,
          new RegExp(
            `\\$\\.mapping\\[0\\]\\.converter\\.${list}\\[0\\]\\.${member}: required member is missing`,
          ),
        );
      }
    assert.match(
      validate({ server: {}, mapping: [{ converter: { type: 'custom' } }] }).out,
      /\$\.mapping\[0\]\.converter\.extension: required member is missing/,
    );
  });

  it('takes a port written as digits and explains an old-format file', () => {
    assert.equal(validate({ server: { port: '5000' }, mapping: [] }).status, 0);
    const old = validate({ host: '127.0.0.1', port: '5000', mapping: [] });
    assert.equal(old.status, 1);
    assert.match(old.out, /\$: an old-format file .* puts host, port, SSL and security in server/);
  });

  it('reports the line and column of malformed JSON', () => {
    const result = validate('{\n  "server": {,\n}');
    assert.equal(result.status, 1);
    assert.match(result.out, /\$: not JSON: .*line 2/);
  });

  it('names what fails only at run time: basic without credentials, a missing certificate, timeouts that look like ms', () => {
    const result = validate({
      server: { SSL: true, security: { cert: '/nonexistent/cert.pem', key: 'key.pem' } },
      mapping: [
        {
          endpoint: '/a',
          HTTPMethods: ['POST'],
          security: { type: 'basic', username: 'u' },
          converter: { type: 'json', deviceInfo: {} },
          response: { timeout: 120 },
        },
      ],
      requestsMapping: {
        attributeRequests: [{ endpoint: '/r', timeout: 5000 }],
      },
    });
    assert.equal(result.status, 1);
    assert.doesNotMatch(result.out, /does not exist/, 'a missing certificate is a warning');
    assert.match(
      result.out,
      /\$\.mapping\[0\]\.security\.password: basic security without a password/,
    );
    assert.doesNotMatch(result.out, /security\.username/);
    assert.match(
      result.out,
      /\$\.requestsMapping\.attributeRequests\[0\]\.timeout: 5000 seconds \(83 minutes\).*did you mean 5\?/,
    );
    assert.doesNotMatch(result.out, /response\.timeout/, '120 s is a plausible timeout');
  });

  it("a certificate file missing on this machine is a warning, not a problem: the project's own embedded-rest.json is valid", () => {
    const { problems, warnings } = checkRestFile(
      write({
        server: { SSL: true, security: { cert: '/nonexistent/cert.pem', key: 'key.pem' } },
        mapping: [],
      }),
    );
    assert.deepEqual(problems, []);
    assert.match(
      warnings.join('\n'),
      /\$\.server\.security\.cert: \/nonexistent\/cert\.pem does not exist/,
    );
    assert.match(warnings.join('\n'), /\$\.server\.security\.key: key\.pem does not exist/);
    const lines: string[] = [];
    const code = validateCommand([join(root, 'src', 'target', 'embedded-rest.json')], {}, (line) =>
      lines.push(line),
    );
    assert.equal(code, 0, lines.join('\n'));
    assert.match(
      lines[0],
      /embedded-rest\.json: valid REST connector configuration \(2 warnings\)/,
    );
    assert.match(
      lines.join('\n'),
      /warning: \$\.server\.security\.cert: connector-cert\.pem does not exist/,
    );
  });

  it('a JSON syntax error names its line and column, also at an unexpected end', () => {
    assert.match(validate('{\n  "server": {\n').out, /\$: not JSON: .*\(line 3, column 1\)/);
  });

  it('suggests the member a typo meant, and words a bad port without pointing at the source', () => {
    const result = validate({
      server: { port: 70000 },
      mapping: [{ endpont: '/x', converter: { type: 'json', deviceInfo: {} } }],
    });
    assert.match(
      result.out,
      /\$\.mapping\[0\]\.endpont: unknown member \(did you mean endpoint\?\)/,
    );
    assert.match(result.out, /\$\.server\.port: must be <= 65535.*\(70000 given\)/);
    assert.doesNotMatch(result.out, /schemas\//);
  });

  it('checks several files at once and prints JSON on request', () => {
    const good = write({ server: {}, mapping: [] });
    const bad = write({ server: { SSL: 'yes' } });
    const lines: string[] = [];
    const code = validateCommand([good, bad], { json: true }, (line) => lines.push(line));
    assert.equal(code, 1);
    const results = JSON.parse(lines.join('\n')) as Array<{
      file: string;
      valid: boolean;
      problems: string[];
    }>;
    assert.deepEqual(
      results.map((result) => [result.file, result.valid]),
      [
        [good, true],
        [bad, false],
      ],
    );
    assert.match(results[1]!.problems.join('\n'), /\$\.server\.SSL: must be of type boolean/);
  });
});
