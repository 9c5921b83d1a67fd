/**
 * The static import graph of the project's TypeScript sources, for
 * test/architecture/boundary.test.ts: every `import`, `export ... from`, `import()`, `require()`
 * and `import x = require()` between files of the repository (packages are left out), each marked
 * type-only when it is erased at compile time (`import type`, imports whose every name is a type,
 * `typeof import()`), read with the TypeScript compiler's parser (no type checking: the whole tree
 * takes about a second). Written here rather than taken from madge or dependency-cruiser: the
 * typescript package the project already has parses exactly what tsc compiles, and the rules are a
 * few lines.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import * as ts from 'typescript';

export interface ImportEdge {
  /** Repository-relative paths with `/`, e.g. `lib/kv/values.ts`. */
  from: string;
  to: string;
  /** Erased by the compiler: no module is loaded at run time. */
  typeOnly: boolean;
  line: number;
}

const SOURCE_FOLDERS = [
  'bench',
  'faults',
  'lib',
  'load',
  'schemas',
  'scripts',
  'simulators',
  'src',
  'steps',
  'test',
] as const;

function sourceFiles(root: string, folder: string): string[] {
  const path = join(root, folder);
  if (!existsSync(path)) return [];
  return readdirSync(path, { withFileTypes: true }).flatMap((entry) => {
    const child = join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(root, child);
    return /\.ts$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [child] : [];
  });
}

/**
 * The file a relative specifier names, as node and tsc resolve it; undefined for a package or a
 * data file.
 */
function resolve(root: string, from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = join(root, dirname(from), specifier);
  const candidates = [base, `${base}.ts`, join(base, 'index.ts'), base.replace(/\.js$/, '.ts')];
  const found = candidates.find(
    (candidate) =>
      existsSync(candidate) && statSync(candidate).isFile() && candidate.endsWith('.ts'),
  );
  return found && relative(root, found).split(sep).join('/');
}

function isTypeOnlyImport(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(node)) return node.isTypeOnly;
  const clause = node.importClause;
  if (!clause) return false; // import './side-effect'
  if (clause.isTypeOnly) return true;
  if (clause.name) return false;
  const bindings = clause.namedBindings;
  return (
    bindings !== undefined &&
    ts.isNamedImports(bindings) &&
    bindings.elements.length > 0 &&
    bindings.elements.every((element) => element.isTypeOnly)
  );
}

/** Every import between the repository's TypeScript files under SOURCE_FOLDERS. */
export function importGraph(root: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of SOURCE_FOLDERS.flatMap((folder) => sourceFiles(root, folder))) {
    const from = file.split(sep).join('/');
    const source = ts.createSourceFile(
      file,
      readFileSync(join(root, file), 'utf8'),
      ts.ScriptTarget.Latest,
      true,
    );
    const add = (specifier: ts.Node | undefined, typeOnly: boolean, at: ts.Node) => {
      if (!specifier || !ts.isStringLiteralLike(specifier)) return;
      const to = resolve(root, from, specifier.text);
      if (!to) return;
      const line = source.getLineAndCharacterOfPosition(at.getStart(source)).line + 1;
      edges.push({ from, to, typeOnly, line });
    };
    const visit = (node: ts.Node): void => {
      if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) {
        add(node.moduleSpecifier, isTypeOnlyImport(node), node);
      } else if (
        ts.isImportEqualsDeclaration(node) &&
        ts.isExternalModuleReference(node.moduleReference)
      ) {
        add(node.moduleReference.expression, node.isTypeOnly, node);
      } else if (ts.isImportTypeNode(node)) {
        add(ts.isLiteralTypeNode(node.argument) ? node.argument.literal : undefined, true, node);
      } else if (
        ts.isCallExpression(node) &&
        (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
          (ts.isIdentifier(node.expression) && node.expression.text === 'require'))
      ) {
        add(node.arguments[0], false, node);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return edges;
}

/**
 * The import cycles of the graph: each strongly connected component of more than one file (or a
 * file importing itself), as its sorted files. Type-only edges count: they load nothing at run
 * time, but two modules that need each other's declarations are one module in two files all the
 * same (madge counts them too).
 */
export function importCycles(edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, Set<string>>();
  for (const edge of edges) {
    if (!next.has(edge.from)) next.set(edge.from, new Set());
    next.get(edge.from)?.add(edge.to);
  }
  // Tarjan's strongly connected components, iteratively (the graph is deep enough to matter for
  // recursion)
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;
  for (const start of next.keys()) {
    if (index.has(start)) continue;
    const work: Array<{ node: string; children: string[]; at: number }> = [];
    const open = (node: string) => {
      index.set(node, counter);
      low.set(node, counter);
      counter += 1;
      stack.push(node);
      onStack.add(node);
      work.push({ node, children: [...(next.get(node) ?? [])], at: 0 });
    };
    open(start);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      if (frame.at < frame.children.length) {
        const child = frame.children[frame.at];
        frame.at += 1;
        if (!index.has(child)) open(child);
        else if (onStack.has(child))
          low.set(frame.node, Math.min(low.get(frame.node) ?? 0, index.get(child) ?? 0));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent)
        low.set(parent.node, Math.min(low.get(parent.node) ?? 0, low.get(frame.node) ?? 0));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string | undefined;
        do {
          member = stack.pop();
          if (member === undefined) break;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        const selfLoop = next.get(frame.node)?.has(frame.node) ?? false;
        if (component.length > 1 || selfLoop) components.push(component.sort());
      }
    }
  }
  return components.sort((a, b) => a[0].localeCompare(b[0]));
}
