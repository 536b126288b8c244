// Shared setup of the browser tests: a static server for dist/ under a sub-path, Debian's Chromium
// driven by playwright-core, and the checks every page must pass (console, origin, axe).
import { before, after } from 'node:test';
import { createServer } from 'node:http';
import { createHash } from 'node:crypto';
import { readFile, stat, mkdir } from 'node:fs/promises';
import { join, extname, normalize } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';

const root = fileURLToPath(new URL('../..', import.meta.url));
export const DIST = join(root, 'dist');
export const ARTIFACTS = join(root, 'tests/browser/artifacts');
/** The site is served under this sub-path, as on a static host with no rewrite rules. */
export const PREFIX = '/course/';

const MIME = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.wasm': 'application/wasm', '.css': 'text/css', '.json': 'application/json',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2', '.ico': 'image/x-icon', '.webmanifest': 'application/manifest+json',
};

/**
 * A plain static file server: a directory serves its index.html, anything else missing is a 404.
 * `compress`: gzip or brotli as the browser accepts, as a real static host does (the benchmark's load timings).
 * `transform(sitePath, body)`: may return other bytes for a file, e.g. a changed sw.js that stands for a new deploy.
 * `onServe(sitePath, bytes)`: told each file served and the bytes sent for it (compressed, if it was; none for a
 *   304, when the browser's copy, named by its ETag, is current).
 */
export async function startStaticServer({ compress = false, transform = undefined, onServe = undefined } = {}) {
  // Compressed once per file and encoding, as a host that precompresses its files: brotli at quality 11 takes
  // seconds for the wasm, which would otherwise count as load time.
  const compressed = new Map();
  const encode = (key, body, compressor) => {
    if (!compressed.has(key)) compressed.set(key, compressor(body));
    return compressed.get(key);
  };
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (!path.startsWith(PREFIX)) return notFound(res);
    let file = normalize(join(DIST, path.slice(PREFIX.length)));
    if (!file.startsWith(DIST)) return notFound(res);
    try {
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      let body = await readFile(file);
      body = transform?.(file.slice(DIST.length + 1), body) ?? body;
      // A validator, as every real static host sends: a page the service worker revalidates is not sent again.
      const etag = `"${createHash('sha256').update(body).digest('hex').slice(0, 20)}"`;
      const headers = { 'content-type': MIME[extname(file)] ?? 'application/octet-stream', etag };
      if (req.headers['if-none-match'] === etag) {
        res.writeHead(304, headers);
        res.end();
        onServe?.(file.slice(DIST.length + 1), 0);
        return;
      }
      const accepted = String(req.headers['accept-encoding'] ?? '');
      if (compress && /\bbr\b/.test(accepted)) {
        body = encode(`br:${file}:${body.length}`, body, brotliCompressSync);
        headers['content-encoding'] = 'br';
      } else if (compress && /\bgzip\b/.test(accepted)) {
        body = encode(`gzip:${file}:${body.length}`, body, gzipSync);
        headers['content-encoding'] = 'gzip';
      }
      res.writeHead(200, headers);
      res.end(body);
      onServe?.(file.slice(DIST.length + 1), body.length);
    } catch {
      notFound(res);
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  return {
    origin,
    url: (path = '') => origin + PREFIX + path,
    // Kept-alive connections too, so that a stopped server is as gone as a failed network.
    close: () => { server.close(); server.closeAllConnections(); },
  };
}

/** A missing file gets the site's 404.html with status 404, as GitHub Pages, Netlify and most static hosts do. */
async function notFound(res) {
  const page = await readFile(join(DIST, '404.html')).catch(() => null);
  res.writeHead(404, { 'content-type': page ? MIME['.html'] : 'text/plain' });
  res.end(page ?? 'not found');
}

/** Debian's Chromium, headless, with the flags this sandboxed machine needs. */
export function launchBrowser() {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--no-first-run', '--disable-sync', '--disable-quic'],
  });
}

/**
 * A new page that records what must never happen: console errors, uncaught exceptions and requests
 * to any origin but the site's own. Call `problems()` at the end of a test and expect an empty list.
 * `viewport: null` turns Playwright's viewport emulation off, for a test that sets the window's size and
 * devicePixelRatio itself over the DevTools protocol: only then does a change fire `resize` and media-query events.
 */
export async function openPage(browser, origin, viewport = { width: 1280, height: 720 }) {
  const context = await browser.newContext({ viewport });
  // Every Content-Security-Policy violation is a console error, with what was refused and where.
  await context.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (event) => {
      const text = `CSP violation: ${event.effectiveDirective} refused ${event.blockedURI || 'inline code'}`
        + ` (${event.sourceFile || 'page'}:${event.lineNumber}) ${event.sample}`;
      window.__cspViolations.push(text);
      console.error(text);
    });
  });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (msg) => { if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`); });
  page.on('pageerror', (err) => problems.push(`uncaught: ${err.message}`));
  page.on('request', (req) => {
    const url = req.url();
    if (!url.startsWith(origin) && !url.startsWith('data:') && !url.startsWith('blob:')) {
      problems.push(`request left the origin: ${url}`);
    }
  });
  return { page, context, problems: () => problems };
}

/** axe-core's WCAG 2 A/AA rules; returns a readable list of violations (empty when clean). */
export async function axeViolations(page) {
  const result = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .analyze();
  return result.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}

/** Save a screenshot to tests/browser/artifacts/ (ignored by git) for a person to look at. */
export async function screenshot(page, name, options = {}) {
  await mkdir(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), ...options });
}

/**
 * Wait until the wasm has brought the page to life: the page's HTML is complete from the build (src/pages/), and
 * src/islands/ marks <html data-islands="mounted"> once its islands are mounted (widgets follow as they near the
 * viewport).
 */
export async function waitForApp(page) {
  await page.locator('html[data-islands="mounted"]').waitFor({ state: 'attached', timeout: 15000 });
}

/**
 * The live widget `name` (e.g. `knee-lab`): scrolls its island into view, as a reader does, and waits until the wasm
 * has mounted the live widget in place of the pre-rendered one (widgets mount as they near the viewport).
 */
export async function liveWidget(page, name) {
  const island = page.locator(`[data-island="widget"][data-widget-name="${name}"]`);
  await island.scrollIntoViewIfNeeded({ timeout: 15000 });
  await island.and(page.locator('.island-mounted')).waitFor({ state: 'attached', timeout: 15000 });
  return page.locator(`section.lesson-widget[data-widget="${name}"]`);
}

/**
 * The site under test for one test file: registers `before`/`after` hooks that start the static server and
 * the browser and stop them. `site.open(path, viewport)` opens a recorded page (see `openPage`) at a site path.
 */
export function siteUnderTest() {
  let server;
  let browser;
  before(async () => {
    server = await startStaticServer();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    server?.close();
  });
  return {
    url: (path = '') => server.url(path),
    /** `before(page)`, if given, runs before the page is opened (to route or watch its requests). */
    async open(path = '', viewport = undefined, { before = undefined } = {}) {
      const opened = await openPage(browser, server.origin, viewport);
      await before?.(opened.page);
      await opened.page.goto(server.url(path));
      return opened;
    },
  };
}
