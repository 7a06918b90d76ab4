import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';

/**
 * `npx tsx src/dev/profile-summary.ts <bench results .json | .cpuprofile> [top]`: where V8 CPU
 * profiles' time went, by package (self, and total: time with the package anywhere on the stack)
 * and by function (self). Given a bench run's results, its `--profile` process's profiles are read,
 * and for the web only the single-item ingest is counted.
 */
const callFrameSchema = z.object({ functionName: z.string(), url: z.string(), lineNumber: z.number() });
const profileSchema = z.object({
  nodes: z.array(z.object({ id: z.number(), callFrame: callFrameSchema, children: z.array(z.number()).optional() })),
  startTime: z.number(),
  samples: z.array(z.number()),
  timeDeltas: z.array(z.number()),
});
const benchResultsSchema = z.object({
  profiling: z.object({ process: z.enum(['web', 'worker']), dir: z.string() }),
  ingestWindowsUs: z.array(z.object({ from: z.number(), to: z.number() })),
});

type CallFrame = z.infer<typeof callFrameSchema>;
type Window = { from: number; to: number };
const within = (at: number, windows: Window[]) => windows.some((window) => at >= window.from && at <= window.to);

/** Where a frame's code comes from: an npm package, a part of Node, a file of the app, or V8 itself. */
function moduleOf({ url, functionName }: CallFrame): string {
  const dependency = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1];
  if (dependency) return dependency;
  if (url.startsWith('node:')) return `node:${url.slice('node:'.length).split('/')[0]}`;
  const appFile = url.match(/\/dist\/(src\/.+)$/)?.[1];
  if (appFile) return appFile;
  return url === '' ? `(${functionName.replace(/^\((.*)\)$/, '$1') || 'native'})` : url;
}

/** Milliseconds per key over all the profiles, each sample counted once per distinct key on its stack. */
function summarize(profiles: z.infer<typeof profileSchema>[], windows: Window[] | undefined) {
  const selfByModule = new Map<string, number>();
  const totalByModule = new Map<string, number>();
  const selfByFunction = new Map<string, number>();
  const add = (map: Map<string, number>, key: string, ms: number) => map.set(key, (map.get(key) ?? 0) + ms);
  let counted = 0;
  for (const profile of profiles) {
    const byId = new Map(profile.nodes.map((node) => [node.id, node]));
    const parentOf = new Map<number, number>();
    for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
    let at = profile.startTime;
    profile.samples.forEach((id, index) => {
      at += profile.timeDeltas[index] ?? 0;
      const ms = (profile.timeDeltas[index + 1] ?? 0) / 1000;
      if (windows && !within(at, windows)) return;
      counted += ms;
      const frame = byId.get(id)!.callFrame;
      add(selfByModule, moduleOf(frame), ms);
      add(selfByFunction, `${frame.functionName || '(anonymous)'} ${moduleOf(frame)}:${frame.lineNumber + 1}`, ms);
      const onStack = new Set<string>();
      for (let node: number | undefined = id; node !== undefined; node = parentOf.get(node))
        onStack.add(moduleOf(byId.get(node)!.callFrame));
      for (const module of onStack) add(totalByModule, module, ms);
    });
  }
  return { counted, selfByModule, totalByModule, selfByFunction };
}

async function profilesIn(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((name) => name.endsWith('.cpuprofile')).map((name) => join(dir, name));
}

async function main(): Promise<void> {
  const [input, topArgument = '25'] = process.argv.slice(2);
  if (input === undefined) {
    console.error('Usage: npx tsx src/dev/profile-summary.ts <bench results .json | .cpuprofile> [top]');
    process.exitCode = 2;
    return;
  }
  const top = Number(topArgument);
  const document: unknown = JSON.parse(await readFile(input, 'utf8'));
  const bench = benchResultsSchema.safeParse(document);
  const profilePaths = bench.success ? await profilesIn(bench.data.profiling.dir) : [input];
  const windows = bench.success && bench.data.profiling.process === 'web' ? bench.data.ingestWindowsUs : undefined;
  const profiles = await Promise.all(profilePaths.map(async (path) => profileSchema.parse(JSON.parse(await readFile(path, 'utf8')))));
  const { counted, selfByModule, totalByModule, selfByFunction } = summarize(profiles, windows);
  const lines = (title: string, map: Map<string, number>) => [
    `\n${title}`,
    ...[...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([key, ms]) => `${ms.toFixed(0).padStart(7)} ms ${((100 * ms) / counted).toFixed(1).padStart(5)}%  ${key}`),
  ];
  console.log(`${profilePaths.join(', ')}: ${counted.toFixed(0)} ms sampled${windows ? ' during the single-item ingest' : ''}`);
  console.log(
    [
      ...lines('self, by package', selfByModule),
      ...lines('total, by package', totalByModule),
      ...lines('self, by function', selfByFunction),
    ].join('\n'),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
