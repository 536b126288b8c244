// Runs before the first paint (a classic script in <head>, loaded by Trunk with its integrity hash):
//  - marks the page as having JavaScript, so it says "starting…" rather than "needs JavaScript" while the wasm loads;
//  - applies the reader's stored theme at once (src/components/theme.rs keeps it under this key), so a reader who
//    picked dark never sees a light page flash first, and otherwise the system's, as the wasm will: a theme set once
//    the lesson is laid out changes the root's color-scheme, and so restyles all of it (70-90 ms at 4x CPU);
//  - tells the service worker which on-demand modules came before it took control (below);
//  - starts the page's wasm downloading (tools/harden-page.mjs names it in a <meta>), except on an address that opens
//    on the knee lab: there the lab's worker draws the lab's first screen first, and the page's wasm waits for that
//    (below).
(function () {
  var root = document.documentElement;
  root.classList.add('js');
  try {
    var theme = window.localStorage.getItem('goodput-theme');
    if (theme === 'light' || theme === 'dark' || theme === 'high-contrast') root.setAttribute('data-theme', theme);
  } catch (refused) {
    // Storage refused (private mode, blocked): the system's theme until the page can say more.
  }
  if (!root.hasAttribute('data-theme')) {
    root.setAttribute('data-theme', window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light');
  }
  // On a first visit, the on-demand modules (tools/split-page.mjs) load before the service worker controls the page:
  // it is told which once it does, and of each that finishes loading after that, and keeps them for offline use
  // (tools/sw.template.js), as it keeps those loaded through it. (A module requested before the worker took control
  // may finish after it did.) Workers' files are not in the page's resource timing: src/offline.rs names those.
  if ('serviceWorker' in navigator && window.PerformanceObserver) {
    var loaded = [];
    var tell = function (names) {
      var controller = navigator.serviceWorker.controller;
      if (names.length && controller) controller.postMessage({ keep: names });
    };
    try {
      new PerformanceObserver(function (list) {
        var names = list.getEntries().map(function (entry) { return entry.name; })
          .filter(function (name) { return /\/lazy-[^/?#]*\.wasm$/.test(name); });
        loaded = loaded.concat(names);
        tell(names);
      }).observe({ type: 'resource', buffered: true });
      navigator.serviceWorker.addEventListener('controllerchange', function () { tell(loaded); });
    } catch (unsupported) {
      // A browser without resource timing by type: what loads before the worker is fetched again when next needed.
    }
  }
  var pageWasm = document.querySelector('meta[name="goodput-page-wasm"]');
  var preloadPage = function () {
    if (!pageWasm) return;
    var link = document.createElement('link');
    link.rel = 'preload';
    link.as = 'fetch';
    link.type = 'application/wasm';
    link.crossOrigin = 'anonymous';
    link.integrity = pageWasm.getAttribute('data-integrity');
    link.href = pageWasm.content;
    document.head.appendChild(link);
  };
  // src/lab-start.js, inlined in the head, has started the lab's worker when the address opens on the lab.
  var started = window.goodputLabWorker;
  var lab = document.querySelector('meta[name="goodput-lab-first"]');
  if (started && lab) {
    window.goodputHeld = firstLabScreen(started, lab.content, lab.getAttribute('data-settings'));
  } else {
    preloadPage();
  }

  // The knee lab's first screen, drawn by `lab-worker` (src/bin/lab-worker/) from the lesson's settings and the
  // address's: on a slow link the page's wasm and the lab's module take seconds (half a megabyte), the worker a
  // third of that. Its pictures replace the lab's static ones, and a plain load slider (written by the page build,
  // hidden until now) moves them, writing the load into the address as the full lab does, which reads it when it
  // takes the island over. Resolves once the worker's wasm has arrived (or it failed, or after 5 s): the page's own
  // module waits for that before it fetches the page's wasm, so the two do not share the link.
  function firstLabScreen(started, id, settings) {
    var release;
    var held = new Promise(function (resolve) { release = resolve; });
    window.setTimeout(release, 5000);
    var worker = started.worker;
    var narrow = window.matchMedia('(max-width: 600px)').matches;
    var theme = root.getAttribute('data-theme');
    var asked = 0;
    // One question at a time: a drag's loads that come while the worker draws are folded into the last of them, so
    // the pictures follow the slider instead of a queue of every load it passed.
    var answered = true;
    var waiting = null;
    var ask = function (load) {
      if (!answered) { waiting = load; return; }
      answered = false;
      asked += 1;
      worker.postMessage(['draw', settings, window.location.search, load, narrow ? '360' : '720',
        narrow ? '330' : '360', theme === 'high-contrast' ? 'contrast' : theme, String(asked)]);
    };
    var askWaiting = function () {
      answered = true;
      if (waiting !== null) { var load = waiting; waiting = null; ask(load); }
    };
    // The slider is hidden again when the worker stops short (a crash): the pictures keep the last load it drew.
    var stop = function () {
      worker.terminate();
      release();
      var slider = document.getElementById(id + '-first-load');
      if (slider && slider.isConnected) slider.parentNode.hidden = true;
    };
    var latest = null;
    var wired = false;
    // Draws the latest answer into the island once it is parsed; false when the full lab has taken the island over.
    var show = function () {
      var slider = document.getElementById(id + '-first-load');
      if (!slider) return !wired;
      if (!latest) return true;
      var parts = latest;
      latest = null;
      var figures = slider.closest('section').querySelectorAll('.chart-static');
      for (var i = 0; i < 2 && i < figures.length; i += 1) {
        var img = figures[i].querySelector('img');
        var table = figures[i].querySelector('.chart-data table');
        figures[i].querySelectorAll('source').forEach(function (source) { source.remove(); });
        // A data: address, which the page's policy allows for images (it allows no blob: image).
        img.src = 'data:image/svg+xml;charset=utf-8,' + encodeURIComponent(parts[5 + 3 * i]);
        img.alt = parts[6 + 3 * i];
        if (table) table.outerHTML = parts[7 + 3 * i];
      }
      if (!wired) {
        wired = true;
        slider.value = parts[2];
        slider.parentNode.hidden = false;
        slider.addEventListener('input', function () { ask(slider.value); });
        new MutationObserver(function (changes, observer) {
          if (!slider.isConnected) { observer.disconnect(); stop(); }
        }).observe(slider.closest('[data-module]'), { childList: true, subtree: true });
        window.requestAnimationFrame(function () { window.performance.mark('lab:first-live'); });
        release();
      } else if (asked > 1 && parts[1] === String(asked)) {
        // The slider's load, in the address for the full lab to read (its other parameters as they were).
        var query = parts[3];
        window.history.replaceState(window.history.state, '',
          window.location.pathname + (query ? '?' + query : '') + window.location.hash);
      }
      slider.setAttribute('aria-valuetext', parts[2] + '% of saturation');
      slider.nextElementSibling.textContent = parts[2] + '%';
      return true;
    };
    worker.onerror = stop;
    var answer = function (event) {
      var parts = event.data;
      // Its wasm is in: the page's may come now, while the worker compiles it and runs its first pass.
      if (parts[0] === 'fetched') return release();
      if (parts[0] !== 'drawn') {
        // Refused (the learner's own server), unreadable, failed or crashed: the full lab will say what it can.
        stop();
        return;
      }
      // An answer to an older question than the slider's last is dropped.
      if (wired && parts[1] !== String(asked)) return;
      askWaiting();
      latest = parts;
      if (!show()) stop();
    };
    worker.onmessage = answer;
    started.early.forEach(function (event) { (event.type === 'error' ? stop : answer)(event); });
    document.addEventListener('DOMContentLoaded', function () { if (!show()) stop(); });
    ask('');
    return held;
  }
})();
