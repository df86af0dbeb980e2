import { bundledRipgrep } from '../support/workspace';
import { callTool, panelRegistry, runRg, SPEED_CASES, timed } from './searchSpeed';

/**
 * One timed search in a process of its own (`node out/test/bench/searchFresh.js <root> <case> tool|raw`):
 * the first call a fresh process makes, nothing warmed (no JIT, no earlier spawn, no cache).
 * The registry is made first, as the extension host has it before the first call; only the call is
 * timed. Prints its wall and CPU milliseconds (searchSpeed.ts `timed`).
 */
async function main(): Promise<void> {
  const [root, index, side] = process.argv.slice(2);
  const c = SPEED_CASES[Number(index)];
  const rg = bundledRipgrep();
  const registry = panelRegistry(root, rg);
  const timing = await timed(() => (side === 'raw' ? runRg(rg, c.raw, root) : callTool(registry, c)));
  process.stdout.write(`${JSON.stringify(timing)}\n`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
