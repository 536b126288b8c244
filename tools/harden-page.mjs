// Trunk post-build step (run by tools/post-build.sh): make the built index.html safe to serve from a static host.
//  - Trunk's inline loader fetches the wasm itself, so the integrity of the wasm's <link rel="preload"> would not
//    apply to it: the loader gets the same integrity for its own fetch.
//  - That preload becomes a <meta name="goodput-page-wasm"> with the same address and integrity, from which
//    src/boot.js preloads the wasm, except on an address that opens on the knee lab, where the lab's worker draws
//    first (a <link> in the page would fetch it at once, sharing a slow link with that worker).
//  - A Content-Security-Policy <meta> (a static host sets no headers): no 'unsafe-inline', no 'unsafe-eval'; wasm by
//    'wasm-unsafe-eval'; every inline script (Trunk's loader, and under `trunk serve` its reload script) by the
//    sha256 of this build's text, which changes with every build's asset hashes.
// Usage: node tools/harden-page.mjs SITE_DIR   (rewrites SITE_DIR/index.html in place)
import { readFile, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { argv, exit } from 'node:process';

/** The policy, apart from the script hashes. Each line says why it is needed; see README.md, "Security". */
export const POLICY = [
  "default-src 'none'",
  // 'self': the wasm-bindgen glue module; 'wasm-unsafe-eval': compiling the wasm; hashes: the inline loader.
  "script-src 'self' 'wasm-unsafe-eval'",
  // Stylesheets from the site only; no inline style attributes or <style> (the lesson compiler writes classes).
  "style-src 'self'",
  // data: for the empty favicon (`<link rel="icon" href="data:,">`), which saves a request.
  "img-src 'self' data:",
  "font-src 'self'",
  // The wasm, fetched by the loader; and the learner's own model server, which the Ask box may ask: on this machine
  // over plain http (any port), or anywhere over https. Nothing else. (CSP cannot name an IPv6 address, so
  // http://[::1] is left out: localhost reaches the same server.)
  "connect-src 'self' http://localhost:* http://127.0.0.1:* https:",
  // The offline service worker (sw.js); blob: for the Ask box's worker, which the page starts from a blob: URL so
  // that it inherits this policy (a worker loaded from the site's own URL would run under none on a static host).
  "worker-src 'self' blob:",
  "manifest-src 'self'",
  "base-uri 'self'",
  "form-action 'none'",
  "object-src 'none'",
];

function fail(message) {
  console.error(`harden-page: ${message}`);
  exit(1);
}

const site = argv[2] ?? fail('usage: node tools/harden-page.mjs SITE_DIR');
const file = join(site, 'index.html');
let html = await readFile(file, 'utf8');

const preload = html.match(/<link rel="preload" href="([^"]+\.wasm)"[^>]*? integrity="([^"]+)"/);
if (!preload) fail(`${file} has no <link rel="preload"> with integrity for the wasm (is Trunk's data-integrity off?)`);
const [, wasmHref, wasmIntegrity] = preload;
const loaderArgument = `module_or_path: '${wasmHref}'`;
if (!html.includes(loaderArgument)) fail(`${file}: Trunk's loader no longer reads \`${loaderArgument}\``);
html = html.replace(loaderArgument, `module_or_path: fetch('${wasmHref}', { integrity: '${wasmIntegrity}' })`);
const preloadLink = html.match(/<link rel="preload" href="[^"]+\.wasm"[^>]*>/)[0];
html = html.replace(preloadLink, '');

// The browser hashes an inline script's text exactly as it stands between the tags.
const scriptHashes = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)]
  .filter(([, attributes]) => !/\bsrc\s*=/.test(attributes))
  .map(([, , text]) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`);
if (scriptHashes.length === 0) fail(`${file} has no inline loader script`);

const policy = POLICY.map((directive) =>
  directive.startsWith('script-src ') ? `${directive} ${scriptHashes.join(' ')}` : directive).join('; ');
const charset = '<meta charset="utf-8" />';
if (!html.includes(charset)) fail(`${file} lacks \`${charset}\`, after which the policy goes`);
if (html.includes('http-equiv="Content-Security-Policy"')) fail(`${file} already has a policy`);
// First in <head>: a policy only governs what comes after it.
html = html.replace(charset, `${charset}\n    <meta http-equiv="Content-Security-Policy" content="${policy}" />`
  + `\n    <meta name="goodput-page-wasm" content="${wasmHref}" data-integrity="${wasmIntegrity}" />`);
await writeFile(file, html);
