// Trunk post-build step (run by tools/post-build.sh): the page's wasm-bindgen glue and its boot script (src/boot.js,
// whose comments are most of it), minified; the scripts inlined into the page's head (src/lab-start.js); and the page's
// HTML comments dropped. The glue is on every first visit, and wasm-bindgen writes it readable: esbuild's minifier
// takes it from 10.5 to 8.5 kB after brotli (measured on the release build), bytes the first visit's budget spends on
// the course instead. It renames only local names, so the glue's exports and the import object the wasm is linked
// against stay as they are. Trunk links the glue with an integrity hash (`<link rel="modulepreload">`), which is
// recomputed here. The file keeps Trunk's name: that hash is of the unminified glue, and the same glue always minifies
// to the same text.
// Usage: node tools/minify-js.mjs SITE_DIR   (rewrites the glue and SITE_DIR/index.html in place)
import { readFile, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { argv, exit } from 'node:process';
import { transform } from 'esbuild';

function fail(message) {
  console.error(`minify-js: ${message}`);
  exit(1);
}

const site = argv[2] ?? fail('usage: node tools/minify-js.mjs SITE_DIR');
const file = join(site, 'index.html');
let html = await readFile(file, 'utf8');

const preload = html.match(/<link rel="modulepreload" href="([^"]*\/)?([^"/]+\.js)"[^>]*? integrity="([^"]+)"/);
if (!preload) fail(`${file} has no <link rel="modulepreload"> with integrity for the glue (is Trunk's data-integrity off?)`);
const [, , glue, integrity] = preload;
const source = await readFile(join(site, glue), 'utf8');
const { code } = await transform(source, { minify: true, format: 'esm', legalComments: 'none' });
await writeFile(join(site, glue), code);
const minified = `sha384-${createHash('sha384').update(code).digest('base64')}`;
html = html.replaceAll(integrity, minified);

// The boot script, a classic script: minified as one (its IIFE keeps its names off the page's global scope).
const bootTag = html.match(/<script src="([^"]*\/)?(boot-[^"/]+\.js)" integrity="([^"]+)"/);
if (!bootTag) fail(`${file} has no <script src="boot-….js"> with integrity (src/boot.js, index.html)`);
const [, , boot, bootIntegrity] = bootTag;
const bootCode = (await transform(await readFile(join(site, boot), 'utf8'), { minify: true, legalComments: 'none' })).code;
await writeFile(join(site, boot), bootCode);
html = html.replaceAll(bootIntegrity, `sha384-${createHash('sha384').update(bootCode).digest('base64')}`);

// index.html's comments are for whoever edits it: every page is written from it, and they were 0.7 kB of brotli on
// each (the lesson's and the home page's both on a first visit).
html = html.replace(/[ \t]*<!--[\s\S]*?-->[ \t]*\n?/g, '');

// Scripts that must run as the head is parsed, waiting for no file (src/lab-start.js): minified into the page in
// place of their placeholder, `<script data-goodput-inline="PATH"></script>`. tools/harden-page.mjs then allows each
// by its hash.
for (const [placeholder, path] of [...html.matchAll(/<script data-goodput-inline="([^"]+)"><\/script>/g)]) {
  const inlined = (await transform(await readFile(path, 'utf8'), { minify: true, legalComments: 'none' })).code.trim();
  if (inlined.includes('</script')) fail(`${path} would end its <script> early`);
  html = html.replace(placeholder, () => `<script>${inlined}</script>`);
}
await writeFile(file, html);
