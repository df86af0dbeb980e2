import { promises as fs, realpathSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * The search bench's tree: `count` files in 101 top folders, generated once into the temp dir
 * (outside any repository) and reused by later runs; `TOOLBELT_BENCH_SEARCH_TREE` names another
 * place for it. What a real workspace has that changes the results is in it: a .gitignore at the
 * root and one in every top folder (nested rules), gitignored folders and files, a
 * `node_modules` (left out by VS Code's default search.exclude), and sensitive files (`.env`,
 * `*.pem`), some of them holding the rare word. `count` must be a multiple of 1,000.
 */
export const RARE = 'QuokkaZephyr42';
/** A word in every 5th file: a search with more matches than it shows. */
export const COMMON = 'gamma';
const WORDS = ['alpha', 'beta', COMMON, 'delta', 'search', 'tool', 'belt', 'async', 'await', 'value', 'index', 'return'];
const EXTENSIONS = ['md', 'ts', 'json', 'txt', 'js'];
const VERSION = 2;

/** The folder of the tree (created and filled on first use); every later call finds it complete. */
export async function searchTree(count: number): Promise<string> {
  const home = process.env.TOOLBELT_BENCH_SEARCH_TREE ?? path.join(os.tmpdir(), `toolbelt-bench-search-v${VERSION}-${count}`);
  const root = path.join(home, 'tree');
  const marker = path.join(home, 'complete');
  if (await fs.access(marker).then(() => true, () => false)) return realpathSync(root);
  await fs.rm(home, { recursive: true, force: true });
  await fs.mkdir(root, { recursive: true });
  await generate(root, count);
  await fs.writeFile(marker, `${count} files\n`);
  return realpathSync(root);
}

/** Every file: name → content, grouped by folder. */
function layout(count: number): Map<string, [string, string][]> {
  const dirs = new Map<string, [string, string][]>();
  const add = (dir: string, name: string, text: string) => {
    let files = dirs.get(dir);
    if (!files) dirs.set(dir, (files = []));
    files.push([name, text]);
  };
  add('', '.gitignore', '*.log\nbuild/\n');
  // node_modules: 1,000 files, the 101st top folder; 5 hold the rare word.
  for (let i = 0; i < 1000; i++) add(`node_modules/dep${i % 10}`, `index${i}.js`, i % 200 === 3 ? `module.exports = '${RARE}';\n` : `module.exports = ${i};\n`);
  let made = 1001;
  for (let top = 0; top < 100; top++) {
    const pkg = `pkg${top}`;
    add(pkg, '.gitignore', 'gen/\n!keep.log\n');
    add(`${pkg}/gen`, 'out.js', `// ${RARE} generated\n`);
    made += 2;
    if (top % 10 === 0) {
      add(`${pkg}/mod0`, '.env', `TOKEN=${top % 20 === 0 ? RARE : 'x'}\n`);
      add(`${pkg}/mod1`, 'server.pem', `-----BEGIN ${RARE}-----\n`);
      add(`${pkg}/mod2`, 'keep.log', `kept by the nested rule ${top}\n`);
      add(`${pkg}/build`, 'bundle.js', `${RARE}\n`);
      made += 4;
    }
  }
  const plain = count - made;
  for (let n = 0; n < plain; n++) {
    const dir = `pkg${n % 100}/mod${Math.floor(n / 100) % 10}`;
    let text = '';
    for (let line = 0; line < 8; line++) text += `${WORDS[(n + line) % WORDS.length]} ${WORDS[(n * 7 + line) % WORDS.length]} ${n}-${line}\n`;
    if (n % 20_011 === 17) text += `the ${RARE} is here\n`;
    // Every 50th file is a .log: left out by the root .gitignore.
    add(dir, n % 50 === 49 ? `file${n}.log` : `file${n}.${EXTENSIONS[(n + Math.floor(n / 100)) % 5]}`, text);
  }
  return dirs;
}

async function generate(root: string, count: number): Promise<void> {
  if (count % 1000 !== 0) throw new Error('the search tree holds a multiple of 1,000 files');
  const jobs = [...layout(count)].map(([dir, files]) => async () => {
    await fs.mkdir(path.join(root, dir), { recursive: true });
    for (const [name, text] of files) await fs.writeFile(path.join(root, dir, name), text);
  });
  for (let i = 0; i < jobs.length; i += 16) await Promise.all(jobs.slice(i, i + 16).map((job) => job()));
}
