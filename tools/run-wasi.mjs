// Run a wasm32-wasip1 build of a command (e.g. `goodput-sim bench`) under Node's WASI, in V8 — the
// engine Chromium runs the page's wasm in — to compare the model's speed in wasm with native.
// Usage: node --no-warnings tools/run-wasi.mjs target/wasm32-wasip1/release/goodput-sim.wasm bench
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { WASI } from 'node:wasi';
import { argv, env, exit } from 'node:process';

const [file, ...args] = argv.slice(2);
if (!file) {
  console.error('usage: node tools/run-wasi.mjs FILE.wasm [ARGS...]');
  exit(2);
}
// /proc lets the bench read its own thread's CPU time (/proc/thread-self/schedstat), as the native bench does, so
// wasm and native rows are timed alike on a shared machine. WASI runs file calls on this (the wasm's) thread.
const preopens = existsSync('/proc/thread-self/schedstat') ? { '/proc': '/proc' } : {};
const wasi = new WASI({ version: 'preview1', args: [file, ...args], env, preopens });
const module = await WebAssembly.compile(await readFile(file));
const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
exit(wasi.start(instance) ?? 0);
