/**
 * The top frames of a V8 CPU profile (`node --cpu-prof` writes one .cpuprofile per process on exit), by self time
 * and by inclusive time, as markdown tables: what bench/results/profile.md records of gateway and worker.
 *
 *   node /tmp/dist-bench/bench/cpuprofile-top.js /tmp/prof/CPU.….cpuprofile [top, default 10]
 *
 * Frames are functions (name, file, line), merged over every place in the call tree they appear. Inclusive time
 * counts a sample once per distinct function on its stack, so recursion does not count twice. Percentages are of
 * the busy samples: all but `(idle)`, which is the process waiting for I/O.
 *
 * Node's own frames (`node:` files and natives such as `writev`) say little on their own: a socket write's syscall
 * is sampled inside `writeUtf8String` whichever client wrote. So two more tables charge them to their nearest
 * caller in a package or in apps/ and libs/ ("by caller"), and sum that by package; the inclusive table leaves
 * them out, and a last one keeps only our own functions (apps/, libs/): the handles a change would take hold of.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  /** Microseconds since the previous sample; sample i lasted until sample i + 1, approximately timeDeltas[i + 1]. */
  timeDeltas: number[];
}

/** Node's internals and natives: frames with no file, or a `node:` one. */
const isRuntime = ({ url }: ProfileNode['callFrame']) => !url || url.startsWith('node:');

/** The package a file belongs to (`@scope/name` or `name`), or `apps/x` / `libs/x` for ours. */
function packageOf({ url }: ProfileNode['callFrame']): string {
  const inModules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (inModules) return inModules[1];
  const ours = /\/((?:apps|libs)\/[^/]+)\//.exec(url);
  return ours ? ours[1] : url;
}

/** `fn (package/file.js:line)`: node_modules and build paths shortened to what names the code. */
function frameName({ functionName, url, lineNumber }: ProfileNode['callFrame']): string {
  if (!url) return functionName || '(anonymous)';
  const file = url
    .replace(/^file:\/\//, '')
    .replace(/^.*\/node_modules\//, '')
    .replace(/^.*\/(apps|libs)\//, '$1/');
  return `${functionName || '(anonymous)'} (${file}:${lineNumber + 1})`;
}

function summarise(profile: CpuProfile, top: number): string {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, index) => {
    const duration = profile.timeDeltas[index + 1] ?? 0;
    selfUs.set(id, (selfUs.get(id) ?? 0) + duration);
  });

  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const byCaller = new Map<string, number>();
  const byPackage = new Map<string, number>();
  const add = (map: Map<string, number>, key: string, us: number) => map.set(key, (map.get(key) ?? 0) + us);
  // Depth-first from the root, with the non-runtime functions on the current stack (a node's own samples count for
  // each) and the innermost of them with its package, which a runtime frame's samples are charged to.
  const walk = (node: ProfileNode, stack: Map<string, number>, caller?: { name: string; pkg: string }) => {
    const name = frameName(node.callFrame);
    const runtime = isRuntime(node.callFrame);
    const owner = runtime ? caller : { name, pkg: packageOf(node.callFrame) };
    if (!runtime) stack.set(name, (stack.get(name) ?? 0) + 1);
    const us = selfUs.get(node.id) ?? 0;
    add(self, name, us);
    add(byCaller, owner?.name ?? name, us);
    // Samples with no package on their stack: `(garbage collector)`, `(program)`, `(idle)` stand for themselves.
    add(byPackage, owner?.pkg ?? (name.startsWith('(') ? name : '(node itself)'), us);
    for (const frame of stack.keys()) add(inclusive, frame, us);
    for (const child of node.children ?? []) walk(byId.get(child) as ProfileNode, stack, owner);
    if (runtime) return;
    const depth = (stack.get(name) ?? 1) - 1;
    if (depth === 0) stack.delete(name);
    else stack.set(name, depth);
  };
  const root = profile.nodes[0];
  walk(root, new Map());

  const idle = self.get('(idle)') ?? 0;
  const total = [...self.values()].reduce((sum, us) => sum + us, 0);
  const busy = total - idle;
  const ours = new Map([...inclusive].filter(([name]) => / \((apps|libs)\//.test(name)));
  const table = (title: string, map: Map<string, number>) => [
    `| ${title} | ms | % of busy |`,
    '|---|---|---|',
    ...[...map]
      .filter(([name]) => name !== '(idle)' && name !== '(root)')
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(
        ([name, us]) =>
          `| \`${name.replace(/\|/g, '\\|')}\` | ${(us / 1000).toFixed(0)} | ${((100 * us) / busy).toFixed(1)} |`,
      ),
  ];
  return [
    `Sampled ${(total / 1e6).toFixed(1)} s, busy ${(busy / 1e6).toFixed(1)} s (idle ${(idle / 1e6).toFixed(1)} s).`,
    '',
    ...table('self time', self),
    '',
    ...table('inclusive time (packages and ours only)', inclusive),
    '',
    ...table('inclusive time, apps/ and libs/ only', ours),
    '',
    ...table("self time, Node's internals charged to their caller", byCaller),
    '',
    ...table("self time by package, Node's internals charged to their caller", byPackage),
  ].join('\n');
}

const [file, top = '10'] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: cpuprofile-top.js <file.cpuprofile> [top]\n');
  process.exit(2);
}
process.stdout.write(`${summarise(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, Number(top))}\n`);
