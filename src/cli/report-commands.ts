/**
 * `iotc report ...`: merging, signing and verifying conformance reports, each loaded when its
 * command runs.
 */
import type { Command } from 'commander';
import { EXIT_CODES_HELP } from './exit-codes-help';

/** Adds `report` and its subcommands to the program. */
export function registerReportCommands(program: Command): void {
  const report = program.command('report').description('work with conformance reports');
  report
    .command('merge')
    .description(
      'merge the conformance reports of runs split across machines (exit codes as iotc run)',
    )
    .addHelpText('after', EXIT_CODES_HELP)
    .argument('<parts...>', 'report folders or conformance.json files')
    .requiredOption('-o, --out <dir>', 'where the merged reports are written')
    .action((parts: string[], options: { out: string }) => {
      const { mergeCommand } = require('./report') as typeof import('./report');
      process.exitCode = mergeCommand(parts, options.out);
    });
  report
    .command('keygen')
    .description(
      'make an Ed25519 key pair for signing reports: <base>.key (keep it secret) and <base>.pub',
    )
    .argument('<base>', 'path and file name without extension')
    .action((base: string) => {
      const { generateSigningKey } =
        require('../report/signature') as typeof import('../report/signature');
      const files = generateSigningKey(base);
      console.log(`private key ${files.privateKey} (mode 600), public key ${files.publicKey}`);
    });
  report
    .command('sign')
    .description(
      'sign conformance.json of a report folder with an Ed25519 private key (writes conformance.json.sig)',
    )
    .argument('<dir>', 'the report folder')
    .requiredOption('-k, --key <file>', 'the Ed25519 private key (PEM)')
    .action((dir: string, options: { key: string }) => {
      const { signReport } = require('../report/signature') as typeof import('../report/signature');
      signReport(dir, options.key);
      console.log(`signed ${dir}/conformance.json: ${dir}/conformance.json.sig`);
    });
  report
    .command('verify')
    .description(
      'check that conformance.json is unchanged: its SHA-256 digest and, with a public key, its signature (exit 1 if not)',
    )
    .argument('<dir>', 'the report folder')
    .option('-p, --public-key <file>', 'the Ed25519 public key (PEM) of whoever signed it')
    .action((dir: string, options: { publicKey?: string }) => {
      const { verifyReport } =
        require('../report/signature') as typeof import('../report/signature');
      const result = verifyReport(dir, options.publicKey);
      console.log(`digest: ${result.digest}; signature: ${result.signature}`);
      const good = result.digest === 'match' && ['valid', 'not checked'].includes(result.signature);
      process.exitCode = good ? 0 : 1;
    });
}
