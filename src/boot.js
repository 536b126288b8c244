// Runs before the first paint (a classic script in <head>, loaded by Trunk with its integrity hash):
//  - marks the page as having JavaScript, so it says "starting…" rather than "needs JavaScript" while the wasm loads;
//  - applies the reader's stored theme at once (src/components/theme.rs keeps it under this key), so a reader who
//    picked dark never sees a light page flash first;
//  - hides the article of a presentation address until the presentation takes over (style/present.css shows it
//    anyway after a few seconds, should the wasm never arrive);
//  - tells the service worker which on-demand modules came before it took control (below).
(function () {
  var root = document.documentElement;
  root.classList.add('js');
  try {
    var theme = window.localStorage.getItem('goodput-theme');
    if (theme === 'light' || theme === 'dark' || theme === 'high-contrast') root.setAttribute('data-theme', theme);
  } catch (refused) {
    // Storage refused (private mode, blocked): the system's theme until the page can say more.
  }
  if (/[?&]present=(1|true|yes|on)(&|$)/.test(window.location.search)) root.classList.add('present-pending');
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
})();
