// The first script of every page, before the first paint. It marks a presentation address (`present-pending`:
// style/app.css hides the article until the presentation takes over, or for a few seconds should the wasm never
// arrive; the split loader fetches presentation mode at once), and starts the knee lab's worker
// (src/bin/lab-worker/) as the head is parsed, on an address that opens on the lab.
// Inlined into every page, minified, by tools/minify-js.mjs (in place of its placeholder in index.html, after the
// <meta>s it reads), so that it waits for no file: src/boot.js, a file that also waits for the stylesheet, ran 0.4 s
// after the lesson's HTML had arrived on the slow link, and the worker's wasm, the first screen's longest wait,
// started only then. boot.js takes the worker over (`window.goodputLabWorker`): it asks for the first screen and
// draws it; the events that come before it does are kept for it.
(function () {
  // A presentation draws the lab itself.
  if (/[?&]present=(1|true|yes|on)(&|$)/.test(window.location.search)) {
    document.documentElement.classList.add('present-pending');
    return;
  }
  var lab = document.querySelector('meta[name="goodput-lab-first"]');
  var name = document.querySelector('meta[name="goodput-lab-worker"]');
  // A browser without workers waits for the page's wasm.
  if (!lab || !name || !window.Worker || !window.Blob) return;
  try {
    if (decodeURIComponent(window.location.hash.slice(1)) !== lab.content) return;
  } catch (malformed) {
    return; // a fragment that is not valid percent-encoding names no element
  }
  var url = function (file) { return JSON.stringify(new URL(file, document.baseURI).href); };
  // The wasm is asked for before the glue is loaded (importScripts waits for it), so that the two share the link
  // instead of the wasm waiting for the glue. The worker says when its wasm has arrived ("fetched"): from then on it
  // needs the link no more. Questions that come before its wasm is running wait for it.
  var script = 'const waiting=[];self.onmessage=(e)=>waiting.push(e);' +
    'const wasm=fetch(' + url(name.content + '_bg.wasm') + ')' +
    '.then((r)=>r.ok?r.arrayBuffer():Promise.reject(r.statusText));' +
    'importScripts(' + url(name.content + '.js') + ');' +
    'wasm.then((bytes)=>{postMessage(["fetched"]);return wasm_bindgen({module_or_path:bytes});})' +
    '.then(()=>waiting.forEach((e)=>self.onmessage(e)),(e)=>postMessage(["failed",String(e)]));';
  try {
    var worker = new Worker(URL.createObjectURL(new Blob([script], { type: 'text/javascript' })));
  } catch (refused) {
    return;
  }
  var early = [];
  worker.onmessage = worker.onerror = function (event) { early.push(event); };
  window.goodputLabWorker = { worker: worker, early: early };
})();
