// Trunk post-build step (run by tools/post-build.sh): writes SITE_DIR/sw.js from tools/sw.template.js, listing every
// file of the build — each page (index.html and each lesson's) and each hashed wasm, js and css file — under a
// version that is a hash of all their contents, so every new build gets a new cache and deletes the old one. The
// widgets' pictures (pictures/) are left out: they stand in for the live widgets where JavaScript is off, and
// without JavaScript there is no service worker to use them. On-demand modules (a file name containing `-worker`:
// the web workers behind rarely used tools) are listed apart: not precached, so a first visit does not download
// them, but cached the first time a page asks for one; so are the page's modules loaded on demand (each widget,
// presentation mode: tools/split-page.mjs).
// Usage: node tools/service-worker.mjs SITE_DIR
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join, relative, sep } from 'node:path';
import { argv, exit } from 'node:process';

const site = argv[2];
if (!site) {
  console.error('usage: node tools/service-worker.mjs SITE_DIR');
  exit(1);
}
const WORKER = 'sw.js';

const files = (await readdir(site, { recursive: true, withFileTypes: true }))
  .filter((entry) => entry.isFile())
  .map((entry) => relative(site, join(entry.parentPath ?? entry.path, entry.name)).split(sep).join('/'))
  .filter((path) => path !== WORKER)
  .sort();

const build = createHash('sha256');
for (const path of files) {
  build.update(`${path}\0`);
  build.update(await readFile(join(site, path)));
}
const pages = files.filter((path) => path === 'index.html' || path.endsWith('/index.html'))
  .map((path) => `./${path.slice(0, -'index.html'.length)}`);
// The web workers, and the page's own modules fetched on demand (tools/split-page.mjs names them lazy-NAME-HASH.wasm).
const ON_DEMAND = /-worker[^/]*$|(^|\/)lazy-[^/]*\.wasm$/;
const servedFiles = files.filter((path) => !path.endsWith('.html') && !path.startsWith('pictures/'));
const assets = servedFiles.filter((path) => !ON_DEMAND.test(path)).map((path) => `./${path}`);
const onDemand = servedFiles.filter((path) => ON_DEMAND.test(path)).map((path) => `./${path}`);
const BUILD = { version: build.digest('hex').slice(0, 16), pages, assets, onDemand };

const template = await readFile(new URL('sw.template.js', import.meta.url), 'utf8');
const placeholder = /\/\* BUILD \*\/ \{[^\n]*\};/;
if (!placeholder.test(template)) {
  console.error('service-worker: tools/sw.template.js lost its `/* BUILD */ {...};` line');
  exit(1);
}
await writeFile(join(site, WORKER), template.replace(placeholder, `/* BUILD */ ${JSON.stringify(BUILD)};`));
