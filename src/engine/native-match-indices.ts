/**
 * Cucumber finds where a step's arguments stand through regexp-match-indices, a polyfill of the
 * match indices of the RegExp `d` flag. Its feature test runs a RegExp without that flag, which
 * never has indices, so it always chooses its own implementation: the first match of every step
 * definition parses that definition's regular expression with regexp-tree and builds a rewritten
 * one, in the coordinator and again in every worker. That was about 4 % of the CPU of a parallel
 * run (profiled: 1.7 s of regexp-tree and 0.8 s of the polyfill in 56 s of samples over the
 * coordinator and six workers), CPU that two cores do not have to spare.
 *
 * Node has the `d` flag itself (since 16). Installed before cucumber loads, this module puts the
 * native form in the module cache in the polyfill's place: the same results, indices included,
 * without the parsing. Where the polyfill cannot be found (another cucumber layout), nothing
 * changes and the polyfill runs as before.
 */
import Module from 'node:module';
import { dirname } from 'node:path';

/**
 * RegExp.prototype.exec with the match indices of the `d` flag, as regexp-match-indices'
 * exec(regexp, string).
 */
export function execWithIndices(regexp: RegExp, text: string): RegExpExecArray | null {
  const native = withIndices(regexp);
  native.lastIndex = regexp.lastIndex;
  const match = native.exec(text);
  regexp.lastIndex = native.lastIndex;
  return match;
}

const indexed = new WeakMap<RegExp, RegExp>();

function withIndices(regexp: RegExp): RegExp {
  if (regexp.hasIndices) return regexp;
  let native = indexed.get(regexp);
  if (!native) {
    native = new RegExp(regexp.source, `${regexp.flags}d`);
    indexed.set(regexp, native);
  }
  return native;
}

/**
 * The file cucumber-expressions loads as regexp-match-indices, or undefined when it is not where it
 * is expected.
 */
export function polyfillFile(): string | undefined {
  try {
    const cucumber = dirname(require.resolve('@cucumber/cucumber'));
    const expressions = dirname(
      require.resolve('@cucumber/cucumber-expressions', { paths: [cucumber] }),
    );
    return require.resolve('regexp-match-indices', { paths: [expressions] });
  } catch {
    return undefined;
  }
}

/**
 * Puts execWithIndices in the module cache as regexp-match-indices, unless something loaded the
 * polyfill already.
 */
function installNativeMatchIndices(): boolean {
  const file = polyfillFile();
  if (!file || require.cache[file]) return false;
  const replacement = new Module(file);
  replacement.filename = file;
  replacement.loaded = true;
  replacement.exports = execWithIndices;
  require.cache[file] = replacement;
  return true;
}

installNativeMatchIndices();
