// Trunk post-build step (run first by tools/post-build.sh): cuts the page's wasm into the module every visit loads
// and the modules loaded on demand. The page marks its split points with `#[wasm_split]` (the widgets in
// src/components/widgets/mod.rs, presentation mode in src/components/present/mod.rs); what only one split point
// reaches (its components, the model, plotters, serde_json…) leaves the page's wasm for a module of its own, and
// what several share for a chunk each of them loads. Leptos's `#[lazy]` is built on the same split points, and
// cargo-leptos runs the same steps; Trunk cannot, so this does them over Trunk's output:
//  1. wasm-split-cli (crates.io `wasm_split_cli_support`, installed by tools/ensure-tools.sh) over cargo's own
//     goodput.wasm, which keeps its relocations for it (build.rs links the page with --emit-relocs): the main
//     module, one .wasm per split point and shared chunk, and the loader module __wasm_split.js;
//  2. wasm-bindgen over the main module, as Trunk ran it, keeping the exports the split modules link against;
//  3. wasm-opt over each module (Trunk's own wasm-opt pass is off for the page: it would optimise what this
//     replaces);
//  4. the results under Trunk's names for the page's glue and wasm, with their integrity in index.html updated; the
//     loader and each on-demand module named after a hash of their bytes (`split-HASH.js`, `lazy-NAME-HASH.wasm`,
//     so a page of one build never loads another's, and fetched with their integrity), the loader preloaded beside
//     the glue with its integrity. The loader can also fetch a module before its split point runs (`prefetch`), and
//     the page's inline script does so for what the address opens on (a widget's `#anchor`, `?present=1`), while the
//     page's own wasm is still downloading. The service worker
//     (tools/service-worker.mjs) precaches the loader, and keeps each lazy module the first time it is fetched.
// Usage: node tools/split-page.mjs SITE_DIR   (TRUNK_PROFILE, CARGO_TARGET_DIR from the environment)
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { argv, env, exit } from 'node:process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
// wasm-opt for every module, as the page's link in index.html had it: -Os to convergence gives a larger file than -Oz
// but a smaller one after brotli (1.4 kB less on the whole page, measured), which is what a visit downloads; the
// features are those current rustc emits by default.
const WASM_OPT_RELEASE = ['-Os', '--converge', '--strip-producers', '--enable-bulk-memory',
  '--enable-nontrapping-float-to-int', '--enable-sign-ext', '--enable-mutable-globals', '--enable-reference-types',
  '--enable-multivalue',
  // GOODPUT_WASM_NAMES=1 keeps the functions' names in every module, for a profiler (DevTools names a function
  // `$func123` without them): half as large again, so never for a build that ships.
  ...(env.GOODPUT_WASM_NAMES === '1' ? ['--debuginfo'] : [])];

function fail(message) {
  console.error(`split-page: ${message}`);
  exit(1);
}

/**
 * The loader (wasm-split-cli's `__wasm_split.js`), changed so that a module can be fetched before its split point
 * runs: each load keeps its fetch (a failed load forgets it, so the next one fetches afresh) and gains `prefetch()`,
 * which starts the fetches of its module and of the chunks it needs (one a task), each compiled as it arrives;
 * `prefetchAddressed()` prefetches what the page's address opens on. Without it a `#knee-lab` link waits for the page's wasm to start before the lab's files are asked
 * for (33 files over HTTP/1.1 on a slow link: over a second).
 */
function prefetchable(loader) {
  const original = `function makeLoad(fetcher, deps) {
    const loader = async () => {
        const parallelStuff = deps.map(d => d());
        const instantiate = fetcher();
        await Promise.all(parallelStuff);
        const imports = getSharedImports();
        return instantiate(imports);
    };
    let loadingModule = undefined;
    return () => {
        if (loadingModule === undefined) {
            const thisLoad = loader();`;
  const replacement = `// The modules each split point loads, by its name, for prefetchAddressed().
const SPLIT_POINTS = {};
// Prefetches start one a task: each costs the main thread a fetch and a streaming compile's start (4-5 ms at 4x CPU),
// and a link to the lab starts 40, which in one task of 0.25-0.6 s held back the lab's first screen (its worker's
// answer waited behind it) on the slow profile. A message channel, as timeouts nested that deep wait 4 ms each.
const PREFETCHES = [];
const NEXT_PREFETCH = new MessageChannel();
NEXT_PREFETCH.port1.onmessage = () => {
    PREFETCHES.shift()();
    if (PREFETCHES.length) NEXT_PREFETCH.port2.postMessage(null);
};
function prefetchSoon(start) {
    PREFETCHES.push(start);
    if (PREFETCHES.length === 1) NEXT_PREFETCH.port2.postMessage(null);
}
function makeLoad(fetcher, deps) {
    // The module's fetch, started by its first load or earlier by prefetch(); forgotten when a load fails.
    let fetched = undefined;
    const fetchOnce = () => (fetched ??= fetcher());
    const loader = async () => {
        const parallelStuff = deps.map(d => d());
        const instantiate = fetchOnce();
        await Promise.all(parallelStuff);
        const imports = getSharedImports();
        return instantiate(imports);
    };
    let loadingModule = undefined;
    const load = () => {
        if (loadingModule === undefined) {
            const thisLoad = loader();
            thisLoad.catch(() => { fetched = undefined; });`;
  const ending = `        return loadingModule;
    }
}`;
  const endingReplacement = `        return loadingModule;
    };
    load.prefetch = () => {
        prefetchSoon(fetchOnce);
        deps.forEach(d => d.prefetch());
    };
    return load;
}`;
  if (!loader.includes(original)) fail('__wasm_split.js\'s makeLoad is not the one tools/split-page.mjs knows how to change');
  const start = loader.indexOf(original);
  const end = loader.indexOf(ending, start);
  if (end < 0) fail('__wasm_split.js\'s makeLoad does not end as expected');
  loader = loader.slice(0, start) + replacement + loader.slice(start + original.length, end) + endingReplacement
    + loader.slice(end + ending.length);
  // Each module compiles as it downloads, prefetched or not (compiling needs no imports); instantiating it needs the
  // page's wasm, so it waits for the load.
  const instantiateStreaming = '    return async (imports) => (WebAssembly.instantiateStreaming(src, imports));';
  if (!loader.includes(instantiateStreaming)) fail('__wasm_split.js no longer instantiates each module as it streams');
  loader = loader.replaceAll(instantiateStreaming, `    const compiled = WebAssembly.compileStreaming(src);
    compiled.catch(() => {});
    return async (imports) => (WebAssembly.instantiate(await compiled, imports));`);
  const exports = /export const __wasm_split_load_(\w+) = wrapAsyncCb\(makeLoad\(/g;
  if (!exports.test(loader)) fail('__wasm_split.js exports no __wasm_split_load_NAME = wrapAsyncCb(makeLoad(…))');
  loader = loader.replace(exports, 'export const __wasm_split_load_$1 = wrapAsyncCb(SPLIT_POINTS.$1 = makeLoad(');
  return `${loader}
/**
 * Starts fetching what the page's address opens on, so that it downloads beside the page's own wasm: presentation
 * mode's module on a presentation address (src/lab-start.js marks the page), and the module of the widget whose island the
 * fragment names or is in (its \`data-module\`, src/lesson/island_markup.rs), after that widget's pictures. Called by the
 * page's inline script.
 */
export function prefetchAddressed() {
    const wanted = [];
    if (document.documentElement.classList.contains("present-pending")) wanted.push("presentation");
    let target = null;
    try {
        target = location.hash.length > 1 ? document.getElementById(decodeURIComponent(location.hash.slice(1))) : null;
    } catch (malformed) {
        // A fragment that is not valid percent-encoding names no element.
    }
    const island = target?.closest("[data-module]") ?? target?.querySelector("[data-module]");
    if (island) {
        // Its pictures first: they stand in for it until its module runs, and asked for lazily (after layout) they
        // would queue behind its dozens of module files for every connection (the slow link: shown at 3.0 s, not 1.6 s).
        for (const picture of island.querySelectorAll('img[loading="lazy"]')) {
            picture.fetchPriority = "high";
            picture.loading = "eager";
        }
        wanted.push(island.getAttribute("data-module"));
    }
    for (const name of wanted) {
        if (SPLIT_POINTS[name]) SPLIT_POINTS[name].prefetch();
        else console.warn(\`goodput: no on-demand module "\${name}" to prefetch\`);
    }
}
`;
}

const site = argv[2] ?? fail('usage: node tools/split-page.mjs SITE_DIR');
const release = (env.TRUNK_PROFILE ?? 'release') === 'release';
const targetDir = env.CARGO_TARGET_DIR ?? join(ROOT, 'target');
const raw = join(targetDir, 'wasm32-unknown-unknown', release ? 'release' : 'debug', 'goodput.wasm');
const page = join(site, 'index.html');
let html = await readFile(page, 'utf8');

const glueLink = html.match(/<link rel="modulepreload" href="[^"]*?([^"/]+)\.js"[^>]*? integrity="([^"]+)"[^>]*>/)
  ?? fail(`${page} has no <link rel="modulepreload"> with integrity for the page's glue`);
const [glueTag, glueStem, glueIntegrity] = glueLink;
const wasmLink = html.match(/<link rel="preload" href="[^"]*?([^"/]+\.wasm)"[^>]*? integrity="([^"]+)"/)
  ?? fail(`${page} has no <link rel="preload"> with integrity for the page's wasm`);
const [, wasmName, wasmIntegrity] = wasmLink;
/**
 * The files cargo built the page from, as its dep-info (`goodput.d` beside the wasm) lists them: the page crate's and
 * the model's sources, the lessons, the build script's outputs. Not the other crates under src/ (the teacher,
 * calibration, the workers), which the page does not link.
 */
async function pageInputs() {
  const depInfo = raw.replace(/\.wasm$/, '.d');
  const text = await readFile(depInfo, 'utf8').catch(() => fail(`no ${depInfo} (cargo's list of the page's inputs)`));
  const target = resolve(raw);
  const line = text.split('\n').find((l) => l.startsWith(target + ':')) ?? fail(`${depInfo} does not list ${target}`);
  // Paths are separated by spaces; a space inside a path is escaped with a backslash.
  return line.slice(target.length + 1).trim().split(/(?<!\\) /).filter(Boolean).map((path) => path.replace(/\\ /g, ' '));
}

// Cargo relinks the page whenever one of its inputs is newer than its output, so a goodput.wasm older than an input,
// or built from another checkout's sources, is another build's (another CARGO_TARGET_DIR, or a build that failed). A
// change of style or script alone, or of a crate the page does not link, leaves it as it was, and rightly: Trunk ran
// wasm-bindgen over that same file.
const rawTime = (await stat(raw).catch(() => fail(`no ${raw} (cargo's build of the page)`))).mtimeMs;
const inputs = await pageInputs();
const sources = inputs.filter((path) => !resolve(path).startsWith(resolve(targetDir)));
const foreign = sources.find((path) => !resolve(path).startsWith(ROOT));
if (foreign) {
  fail(`${raw} was built from another checkout (${foreign}): not the wasm Trunk just built`);
}
/** A file's modification time; a directory's (the lessons) is its newest file's. */
async function modified(path) {
  const info = await stat(path).catch(() => null);
  if (!info?.isDirectory()) return info?.mtimeMs ?? 0;
  const entries = await readdir(path, { withFileTypes: true });
  return Math.max(info.mtimeMs, ...await Promise.all(entries.map((entry) => modified(join(path, entry.name)))));
}
const times = await Promise.all(sources.map(modified));
const newest = sources[times.indexOf(Math.max(...times))];
if (rawTime < Math.max(...times)) {
  fail(`${raw} is older than ${newest}, which it is built from: not the wasm Trunk just built`);
}

// Kept after the build: split/goodput.wasm is the page's main module before wasm-bindgen and wasm-opt, with its
// function names, for twiggy (make bench).
const work = join(targetDir, 'split-page');
await rm(work, { recursive: true, force: true });
await mkdir(work, { recursive: true });
{
  const run = (command, args) => new Promise((resolve) => {
    execFile(command, args, { cwd: ROOT, maxBuffer: 1 << 26 }, (error, _stdout, stderr) => {
      // The first line says what went wrong (wasm-split-cli follows it with a backtrace).
      if (error) fail(`${command} failed: ${String(stderr || error.message).trim().split('\n')[0]}`);
      resolve();
    });
  });
  const splitDir = join(work, 'split');
  await run('wasm-split-cli', [raw, splitDir, '--out-name', 'goodput']);
  const bindgenDir = join(work, 'bindgen');
  await run('wasm-bindgen', ['--target', 'web', '--keep-lld-exports', '--no-typescript', '--out-dir', bindgenDir,
    '--out-name', 'goodput', join(splitDir, 'goodput.wasm')]);
  const modules = (await readdir(splitDir)).filter((file) => file.endsWith('.wasm') && file !== 'goodput.wasm').sort();
  // wasm-opt over every module, as many at once as there are cores (the main module, the largest, first).
  const jobs = [[join(bindgenDir, 'goodput_bg.wasm'), join(site, wasmName)],
    ...modules.map((module) => [join(splitDir, module), join(work, module)])];
  const optimise = async () => {
    for (let job = jobs.shift(); job; job = jobs.shift()) {
      const [input, output] = job;
      await (release ? run('wasm-opt', [...WASM_OPT_RELEASE, input, '-o', output]) : run('cp', [input, output]));
    }
  };
  await Promise.all(Array.from({ length: availableParallelism() }, optimise));

  const digest = (bytes, algorithm = 'sha256') => createHash(algorithm).update(bytes).digest();
  const named = (stem, bytes, extension) => `${stem}-${digest(bytes).toString('hex').slice(0, 16)}${extension}`;
  const integrity = (bytes) => `sha384-${digest(bytes, 'sha384').toString('base64')}`;

  // The on-demand modules, named after their content; the loader fetches them by those names, with their integrity,
  // as every other file of the page is fetched.
  let loader = await readFile(join(splitDir, '__wasm_split.js'), 'utf8');
  for (const module of modules) {
    const fetchCall = `fetch(new URL("./${module}", import.meta.url))`;
    if (!loader.includes(fetchCall)) fail(`__wasm_split.js does not fetch ${module} as ${fetchCall}`);
    const bytes = await readFile(join(work, module));
    const name = named(`lazy-${module.replace(/\.wasm$/, '').replaceAll('_', '-')}`, bytes, '.wasm');
    await writeFile(join(site, name), bytes);
    loader = loader.replace(fetchCall, `fetch(new URL("./${name}", import.meta.url), { integrity: "${integrity(bytes)}" })`);
  }
  loader = prefetchable(loader);
  const mainImport = 'from "./goodput.js"';
  if (!loader.includes(mainImport)) fail(`__wasm_split.js no longer imports the page's glue ${mainImport}`);
  loader = loader.replace(mainImport, `from "./${glueStem}.js"`);
  const loaderName = named('split', loader, '.js');
  await writeFile(join(site, loaderName), loader);

  // The page's glue and wasm under Trunk's names, importing the loader by its name.
  let glue = await readFile(join(bindgenDir, 'goodput.js'), 'utf8');
  // Only the import statements: the import object's keys stay the module name the wasm asks for.
  const loaderImport = /from (['"])\.\/__wasm_split\.js\1/g;
  if (!loaderImport.test(glue)) fail('the page\'s glue does not import ./__wasm_split.js: were no split points found?');
  glue = glue.replace(loaderImport, `from "./${loaderName}"`);
  await writeFile(join(site, `${glueStem}.js`), glue);
  const wasm = await readFile(join(site, wasmName));

  // The loader is imported by the glue: preloaded beside it, it costs no extra round trip before the wasm starts.
  const loaderTag = glueTag.replace(`${glueStem}.js`, loaderName).replace(glueIntegrity, integrity(loader));
  html = html.replace(glueTag, `${glueTag.replace(glueIntegrity, integrity(glue))}\n    ${loaderTag}`)
    .replaceAll(wasmIntegrity, integrity(wasm));
  // First in Trunk's script that starts the page: what the address opens on is asked for once the page is parsed,
  // while the page's wasm downloads (a module script runs after parsing; the loader is already preloaded). On an
  // address that opens on the knee lab, both wait until the lab's worker has drawn its first screen (src/boot.js
  // holds them with `goodputHeld`), so that the worker has the link to itself.
  const startScript = '<script type="module">';
  if (!html.includes(startScript)) fail(`${page} has no <script type="module"> that starts the page`);
  html = html.replace(startScript,
    `${startScript}\nimport { prefetchAddressed } from './${loaderName}';\nawait window.goodputHeld;\nprefetchAddressed();`);
  await writeFile(page, html);
  console.error(`split-page: the page's wasm ${wasm.length} bytes, ${modules.length} modules on demand, loader ${loaderName}`);
}
