/**
 * What the step definitions use of cucumber, from the modules that hold it rather than from
 * `@cucumber/cucumber` itself. Cucumber's index also loads its CLI, its API (configuration, with
 * yaml), every formatter and their helpers: some 210 modules, about 0.11 CPU-s in each worker of a
 * parallel run, none of which a worker uses (it runs the scenarios; the coordinator formats and
 * reports). The worker itself (lib/runtime/parallel/worker.js) has loaded the modules below before
 * it loads the steps, so they cost nothing more; they are the same instances the index exports
 * (`methods` of the one support code library builder), so the definitions land in the library the
 * worker and `loadSupport` read. Cucumber's package exports `./lib/*`; its version is pinned in
 * package.json.
 */
import supportCodeLibraryBuilder from '@cucumber/cucumber/lib/support_code_library_builder/index';

export const {
  After,
  AfterAll,
  Before,
  BeforeAll,
  defineParameterType,
  Given,
  setDefaultTimeout,
  setDefinitionFunctionWrapper,
  setParallelCanAssign,
  setWorldConstructor,
  Then,
  When,
} = supportCodeLibraryBuilder.methods;
export {
  default as World,
  type IWorldOptions,
} from '@cucumber/cucumber/lib/support_code_library_builder/world';
export type { ITestCaseHookParameter } from '@cucumber/cucumber/lib/support_code_library_builder/types';
export type { default as DataTable } from '@cucumber/cucumber/lib/models/data_table';
export { TestStepResultStatus as Status } from '@cucumber/messages';
