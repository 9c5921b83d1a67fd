// Cucumber profiles. The target comes from IOTC_TARGET (`embedded` by default, or a target profile path);
// `iotc run` sets it and adds the report formats. Type checking is `npm run typecheck`, not ts-node's job.
const common = {
  requireModule: ['ts-node/register/transpile-only'],
  paths: ['features/**/*.feature'],
  require: ['steps/**/*.ts'],
};

module.exports = {
  default: { ...common, format: ['progress'] },
};
