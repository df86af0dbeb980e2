// The search part of `npm run bench`: runs test/bench/search.js in a process of its own and
// turns its JSON into the table's rows. `--only=search` runs it all (speed and hostile patterns),
// `--only=search-speed` the speed cases alone (a few minutes; the tree is made once and reused).
'use strict';

const { spawnSync } = require('node:child_process');
const path = require('node:path');

/** Runs test/bench/search.js; `part` is 'speed', 'hostile' or undefined for both. */
function searchBench(out, part) {
  const args = [path.join(out, 'test', 'bench', 'search.js'), '100000', '7', '5', ...(part ? [part] : [])];
  const result = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.status !== 0) throw new Error(`the search bench failed:\n${result.stderr}`);
  return JSON.parse(result.stdout);
}

const pair = (p) =>
  `${p.toolbeltMs.toFixed(0)} vs ${p.rawMs.toFixed(0)} ms, ratio ${p.ratio.toFixed(2)}; CPU ${p.toolbeltCpuMs.toFixed(0)} vs ${p.rawCpuMs.toFixed(0)} ms, ratio ${p.cpuRatio.toFixed(2)} (load ${p.loadAverage.toFixed(1)})`;

/** The table's rows: [name, value, target, ok]. */
function searchRows(search, targets) {
  const rows = [];
  if (search.speed) {
    const { files, pairs, freshPairs } = search.speed;
    for (const c of search.speed.cases) {
      rows.push([`${c.name} vs raw rg, warm (one process after a first call; median of ${pairs} alternated pairs, ${files} files)`, pair(c.warm), `≤ ${targets.searchRatio}`, c.warm.ratio <= targets.searchRatio]);
      rows.push([`${c.name} vs raw rg, fresh (each side's first call in a new process; median of ${freshPairs} pairs)`, pair(c.fresh), `≤ ${targets.searchRatio}`, c.fresh.ratio <= targets.searchRatio]);
      if (c.typed) rows.push(['  the same, warm, vs rg given --glob instead of the file type (what one types; it lets a git-ignored match through)', pair(c.typed), '', undefined]);
    }
  }
  if (search.hostile) {
    for (const side of ['withRg', 'withoutRg']) {
      const stall = search.hostile[side].maxStallMs;
      rows.push([`hostile patterns: longest event-loop stall ${side === 'withRg' ? 'with' : 'without'} ripgrep`, `${stall.toFixed(0)} ms`, `≤ ${targets.hostileStallMs} ms`, stall <= targets.hostileStallMs]);
    }
  }
  return rows;
}

module.exports = { searchBench, searchRows };
