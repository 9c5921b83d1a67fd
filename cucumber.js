// Cucumber profiles. The target comes from IOTC_TARGET (`embedded` by default, or a target profile path);
// `iotc run` sets it and adds the report formats. The steps are TypeScript, run through lib/ts-register.js
// (transpiled on load and cached; type checking is `npm run typecheck`).
const common = {
  requireModule: [require('node:path').join(__dirname, 'lib', 'ts-register.js')],
  paths: ['features/**/*.feature'],
  require: ['steps/**/*.ts'],
  // a failed scenario gets a second attempt, which steps/hooks.ts lets run only after a transport error (the
  // network failed, not the target): the second attempt decides, src/report/verdicts.ts judges by it
  retry: 1,
};

module.exports = {
  default: { ...common, format: ['progress'] },
};
