// goodput's service worker: after one visit the course works with the network off.
// Generated at build time by tools/service-worker.mjs from tools/sw.template.js; BUILD lists this build's files.
//  - install: precache every page and asset of the build in a cache named after a hash of the build, except the
//    on-demand modules (web workers of rarely used tools, the page's widgets and presentation mode), cached the first
//    time a page loads one;
//  - activate: delete the caches of older builds, and take control of open pages;
//  - fetch: the build's assets (hashed names, never changed) cache-first; page loads network-first, falling back to
//    the cache when the network fails or hangs.
const BUILD = /* BUILD */ { version: 'dev', pages: [], assets: [], onDemand: [] };

const CACHE_PREFIX = 'goodput-';
const CACHE = `${CACHE_PREFIX}${BUILD.version}`;
/** A slow network is treated as none after this long, if the page is cached. */
const NAVIGATION_TIMEOUT_MS = 4000;

const absolute = (path) => new URL(path, self.location).href;
const PAGE_URLS = BUILD.pages.map(absolute);
const ASSET_URLS = new Set(BUILD.assets.map(absolute));
const ON_DEMAND_URLS = new Set(BUILD.onDemand.map(absolute));

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    // Pages keep their names across builds, so they are revalidated; hashed assets may come from the HTTP cache.
    await cache.addAll(PAGE_URLS.map((url) => new Request(url, { cache: 'no-cache' })));
    // The page has just loaded its assets; their names change with their content, so the browser's copy is taken
    // whatever its age, and a first visit downloads each once, on any host.
    await cache.addAll([...ASSET_URLS].map((url) => new Request(url, { cache: 'force-cache' })));
    // Every asset a page needs is loaded at start-up, so an open page never asks for a file the new build dropped.
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    const names = await caches.keys();
    await Promise.all(names
      .filter((name) => name.startsWith(CACHE_PREFIX) && name !== CACHE)
      .map((name) => caches.delete(name)));
    await self.clients.claim();
  })());
});

// A page that loaded on-demand modules before this worker controlled it (a first visit: a presenter's rehearsal,
// say) names them once it does (src/boot.js); they are kept as if loaded through the worker. Only this build's
// on-demand files are taken.
self.addEventListener('message', (event) => {
  const keep = Array.isArray(event.data?.keep) ? event.data.keep.filter((url) => typeof url === 'string') : [];
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    for (const url of new Set(keep.map(absolute).map(withoutQuery))) {
      if (ON_DEMAND_URLS.has(url) && !(await cache.match(url))) {
        await cache.add(new Request(url, { cache: 'force-cache' })).catch(() => {});
      }
    }
  })());
});

self.addEventListener('fetch', (event) => {
  const { request } = event;
  if (request.method !== 'GET' || new URL(request.url).origin !== self.location.origin) return;
  if (request.mode === 'navigate') {
    event.respondWith(networkFirst(request));
  } else if (ASSET_URLS.has(withoutQuery(request.url))) {
    event.respondWith(cacheFirst(request));
  } else if (ON_DEMAND_URLS.has(withoutQuery(request.url))) {
    event.respondWith(cachedOnUse(request));
  }
});

async function cacheFirst(request) {
  const cached = await caches.match(request, { cacheName: CACHE, ignoreSearch: true });
  return cached ?? fetch(request);
}

/** An on-demand module: from the cache if it was loaded before, else from the network, kept for next time. */
async function cachedOnUse(request) {
  const cached = await caches.match(request, { cacheName: CACHE, ignoreSearch: true });
  if (cached) return cached;
  const response = await fetch(request);
  if (response.ok) {
    const cache = await caches.open(CACHE);
    await cache.put(withoutQuery(request.url), response.clone());
  }
  return response;
}

async function networkFirst(request) {
  const network = fetch(request);
  try {
    return await Promise.race([network, timeout(NAVIGATION_TIMEOUT_MS)]);
  } catch (error) {
    const cached = await cachedPage(request.url);
    if (cached) return cached;
    return network; // nothing cached for this address: the browser's own offline or error page
  }
}

/** The precached copy of a page, also for `.../index.html`, a missing trailing slash, or a `?query`. */
async function cachedPage(address) {
  const url = new URL(withoutQuery(address));
  if (url.pathname.endsWith('/index.html')) url.pathname = url.pathname.slice(0, -'index.html'.length);
  else if (!url.pathname.endsWith('/')) url.pathname += '/';
  return caches.match(url.href, { cacheName: CACHE });
}

function withoutQuery(address) {
  const url = new URL(address);
  url.search = '';
  url.hash = '';
  return url.href;
}

function timeout(ms) {
  return new Promise((_, reject) => setTimeout(() => reject(new Error('network timeout')), ms));
}
