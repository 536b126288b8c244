// Trunk post-build step (run by tools/post-build.sh, first): the page's stylesheets as one file. style/ keeps one
// file per concern, and Trunk links each with its own hashed URL; on a slow link each is a request of its own that
// holds up the first paint and, with HTTP/1.1's six connections, the wasm's download behind it. This joins them, in
// the order the page links them (the cascade is the same), into `style-<hash>.css`, links that one with its
// integrity hash, and removes the parts from the build. Comments and indentation are left out of the bundle.
// Usage: node tools/bundle-css.mjs SITE_DIR   (rewrites SITE_DIR/index.html in place)
import { readFile, writeFile, rm } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { argv, exit } from 'node:process';

/**
 * The stylesheet as the browser needs it: comments (written for whoever edits style/, a quarter of its compressed
 * size) and indentation go; nothing else changes. The style sheets put no comment marker inside a string.
 */
function withoutComments(css) {
  return css
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join('\n');
}

function fail(message) {
  console.error(`bundle-css: ${message}`);
  exit(1);
}

const site = argv[2] ?? fail('usage: node tools/bundle-css.mjs SITE_DIR');
const file = join(site, 'index.html');
let html = await readFile(file, 'utf8');

// Trunk links its files under the public URL: `./` by default (Trunk.toml), or an absolute one such as `/course/`
// (`trunk build --public-url /course/`). Either way the files sit at the top of the site folder.
const links = [...html.matchAll(/<link rel="stylesheet" href="([^"]*\/)([^"/]+\.css)"[^>]*\/?>\n?/g)];
if (links.length === 0) fail(`${file} links no stylesheet`);
const publicUrl = links[0][1];
if (links.some(([, prefix]) => prefix !== publicUrl)) fail(`${file} links stylesheets under more than one path`);
const parts = await Promise.all(links.map(([, , href]) => readFile(join(site, href), 'utf8')));
const css = parts.map(withoutComments).join('\n');
const name = `style-${createHash('sha256').update(css).digest('hex').slice(0, 16)}.css`;
const integrity = `sha384-${createHash('sha384').update(css).digest('base64')}`;
await writeFile(join(site, name), css);
await Promise.all(links.map(([, , href]) => rm(join(site, href))));

// The bundle takes the first stylesheet's place; the others go.
const [first, ...rest] = links;
html = html.replace(first[0], `<link rel="stylesheet" href="${publicUrl}${name}" integrity="${integrity}"/>\n`);
for (const [tag] of rest) html = html.replace(tag, '');
await writeFile(file, html);
