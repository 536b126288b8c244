// Trunk post-build step (run by tools/post-build.sh, before the pages are written from index.html): gives each web
// worker's files a name that changes with their content. Trunk names a worker's build `NAME.js` and `NAME_bg.wasm`
// in every build, so an open page of one build (or one the service worker serves from its cache) could load the worker
// of the next build under the same name, and post it messages it does not understand. This renames them
// `NAME-HASH.js` and `NAME-HASH_bg.wasm`, HASH from both files' bytes, and tells the page the name in
// `<meta name="goodput-NAME" content="NAME-HASH">` (read by src/components/worker.rs): a page only ever asks for the
// worker built with it.
// Usage: node tools/version-workers.mjs SITE_DIR   (renames the files, rewrites SITE_DIR/index.html in place)
import { readFile, readdir, rename, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { argv, exit } from 'node:process';

function fail(message) {
  console.error(`version-workers: ${message}`);
  exit(1);
}

const site = argv[2] ?? fail('usage: node tools/version-workers.mjs SITE_DIR');
const page = join(site, 'index.html');
let html = await readFile(page, 'utf8');
const names = (await readdir(site))
  .map((file) => /^([a-z0-9-]+-worker)\.js$/.exec(file)?.[1])
  .filter(Boolean)
  .sort();
if (names.length === 0) fail(`${site} holds no NAME-worker.js (did Trunk build the workers of index.html?)`);

const metas = [];
for (const name of names) {
  const files = [`${name}.js`, `${name}_bg.wasm`];
  const hash = createHash('sha256');
  for (const file of files) hash.update(await readFile(join(site, file)).catch(() => fail(`${file} is missing`)));
  const stem = `${name}-${hash.digest('hex').slice(0, 16)}`;
  if (html.includes(files[0]) || html.includes(files[1])) fail(`${page} names ${name}'s files, which this renames`);
  await rename(join(site, files[0]), join(site, `${stem}.js`));
  await rename(join(site, files[1]), join(site, `${stem}_bg.wasm`));
  metas.push(`<meta name="goodput-${name}" content="${stem}" />`);
}
const charset = '<meta charset="utf-8" />';
if (!html.includes(charset)) fail(`${page} lacks \`${charset}\`, after which the workers' names go`);
html = html.replace(charset, [charset, ...metas].join('\n    '));
await writeFile(page, html);
