//! "Your server": the knee lab calibrated from the learner's own benchmark. Files are pasted, picked or dropped; the
//! `server-worker` fits them (`goodput_calibrate::page`, the code `goodput-sim calibrate` runs), and the lab then
//! runs the fitted server as its [`Preset::Yours`], with the measured runs drawn over its curves. Nothing leaves the
//! browser: the server is kept in local storage (in the short form of `crate::model::handoff`), and its scenario
//! file can be downloaded for `goodput-sim run --scenario`.
//!
//! This is the panel's code, behind the page's `your_server` split point: the lab shows the panel's summary
//! (`your_server_slot.rs`) and this fills it in when it is first opened. The panel is fixed markup wired with plain
//! DOM listeners, as the Ask box is: a Leptos view of these fields cost the page's wasm 8 kB more (brotli, measured),
//! and only the status, the report and two buttons ever change.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use gloo_timers::callback::Timeout;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::js_sys::{Array, Reflect};
use web_sys::{DragEvent, Element, Event, File, FileList, HtmlElement, HtmlInputElement, Worker};

use super::your_server_slot::{
    forget_stored, storage, stored, REPORT_KEY, SCENARIO_KEY, SERVER_KEY,
};
use super::YourServerArgs;
use crate::components::download::save_text;
use crate::components::widgets::HeldServerLink;
use crate::components::worker;
use crate::lab::{LabSettings, Preset};
use crate::model::handoff;
use crate::model::hardware::{gpus, models};
use crate::model::your_server::HeldServer;
use crate::server_files::{
    check_sizes, limits, named_in, pasted_files, InputFile, MAX_INPUT_BYTES, MAX_TOTAL_INPUT_BYTES,
};
use crate::server_protocol::{FlagFields, FromWorker, HardwareFigures, ToWorker, OTHER};

/// A calibration still running after this long is stopped: a file of the largest size the panel takes fits in a few
/// seconds, so a worker still busy is stuck on something it cannot finish.
const TIME_LIMIT_MS: u32 = 30_000;

/// The panel's markup under its summary; `{id}` becomes the lab's id, and `data-yours` names the parts the code
/// reaches.
const PANEL_HTML: &str = r#"<p>Give the lab what you measured: <code>vllm bench serve --save-result</code> files (one per rate; light loads are best), a request trace, or two <code>/metrics</code> scrapes of the same server. Paste, pick or drop them here. {limits} Nothing leaves your browser.</p>
<form data-yours="form">
<div class="lab-field"><label for="{id}-yours-files">Files</label><input id="{id}-yours-files" data-yours="files" type="file" multiple accept=".json,.jsonl,.csv,.prom,.txt"></div>
<div class="lab-field"><label for="{id}-yours-paste">Or paste (several: a line of --- between them)</label><textarea id="{id}-yours-paste" data-yours="paste" rows="3" spellcheck="false"></textarea></div>
<fieldset class="lab-your-flags"><legend>Your server's flags (blank: vLLM's defaults)</legend>
<div class="lab-field"><label for="{id}-yours-seqs">Your --max-num-seqs</label><input id="{id}-yours-seqs" data-yours="seqs" type="number" min="1" step="1" inputmode="numeric" placeholder="256"></div>
<div class="lab-field"><label for="{id}-yours-budget">Your --max-num-batched-tokens</label><input id="{id}-yours-budget" data-yours="budget" type="number" min="1" step="1" inputmode="numeric" placeholder="8192"></div>
<div class="lab-field"><label for="{id}-yours-kv">Your KV cache tokens (start-up log)</label><input id="{id}-yours-kv" data-yours="kv" type="number" min="1" step="1" inputmode="numeric" placeholder="no limit"></div>
<div class="lab-field"><label for="{id}-yours-replicas">Your replicas</label><input id="{id}-yours-replicas" data-yours="replicas" type="number" min="1" step="1" inputmode="numeric" placeholder="1"></div>
<div class="lab-field"><label for="{id}-yours-engine">Your vLLM engine</label><select id="{id}-yours-engine" data-yours="engine"><option value="v1">V1 (vLLM 0.8 and later)</option><option value="v0">V0 (VLLM_USE_V1=0, or before 0.8)</option></select></div>
<label class="lab-check"><input data-yours="chunked" type="checkbox" checked> Chunked prefill</label>
</fieldset>
<fieldset class="lab-your-flags lab-your-hardware"><legend>Your model and GPU: the step time physics gives them is what the fit adjusts</legend>
<div class="lab-field"><label for="{id}-yours-model">Your model</label><select id="{id}-yours-model" data-yours="model"><option value="">As the files say (model_id)</option>{models}<option value="other">Other: its figures</option></select></div>
<div class="lab-field"><label for="{id}-yours-gpu">Your GPU</label><select id="{id}-yours-gpu" data-yours="gpu"><option value="">As the files say (gpu_name)</option>{gpus}<option value="other">Other: its figures</option></select></div>
<div class="lab-field"><label for="{id}-yours-tp">Your GPUs per replica (tensor parallel)</label><input id="{id}-yours-tp" data-yours="tp" type="number" min="1" step="1" inputmode="numeric" max="64" placeholder="1"></div>
</fieldset>
<fieldset class="lab-your-flags" data-yours="other-model" hidden><legend>Your model's figures (its config.json)</legend>
<div class="lab-field"><label for="{id}-yours-params">Parameters (billions)</label><input id="{id}-yours-params" data-yours="params" type="number" min="0" step="any" inputmode="decimal" placeholder="8.03"></div>
<div class="lab-field"><label for="{id}-yours-layers">Layers</label><input id="{id}-yours-layers" data-yours="layers" type="number" min="1" step="1" inputmode="numeric" placeholder="32"></div>
<div class="lab-field"><label for="{id}-yours-hidden">Hidden size</label><input id="{id}-yours-hidden" data-yours="hidden" type="number" min="1" step="1" inputmode="numeric" placeholder="4096"></div>
<div class="lab-field"><label for="{id}-yours-kvheads">KV heads</label><input id="{id}-yours-kvheads" data-yours="kvheads" type="number" min="1" step="1" inputmode="numeric" placeholder="8"></div>
<div class="lab-field"><label for="{id}-yours-headsize">Head size</label><input id="{id}-yours-headsize" data-yours="headsize" type="number" min="1" step="1" inputmode="numeric" placeholder="128"></div>
<div class="lab-field"><label for="{id}-yours-dtype">Bytes per weight (2: BF16, 1: FP8)</label><input id="{id}-yours-dtype" data-yours="dtype" type="number" min="1" step="1" inputmode="numeric" max="4" placeholder="2"></div>
</fieldset>
<fieldset class="lab-your-flags" data-yours="other-gpu" hidden><legend>Your GPU's figures (its datasheet)</legend>
<div class="lab-field"><label for="{id}-yours-bandwidth">Memory bandwidth (TB/s)</label><input id="{id}-yours-bandwidth" data-yours="bandwidth" type="number" min="0" step="any" inputmode="decimal" placeholder="1.0"></div>
<div class="lab-field"><label for="{id}-yours-peak">Dense peak at the weights' bytes (TFLOP/s)</label><input id="{id}-yours-peak" data-yours="peak" type="number" min="0" step="any" inputmode="decimal" placeholder="165"></div>
<div class="lab-field"><label for="{id}-yours-memory">Memory (GB)</label><input id="{id}-yours-memory" data-yours="memory" type="number" min="0" step="any" inputmode="decimal" placeholder="24"></div>
</fieldset>
<button type="submit" data-yours="calibrate">Calibrate</button>
<button type="button" data-yours="stop" hidden>Stop</button>
<button type="button" data-yours="download" hidden>Download scenario file</button>
<button type="button" data-yours="forget" hidden>Forget my server</button>
</form>
<p class="lab-your-status" role="status" data-yours="status"></p>
<pre class="lab-your-report" tabindex="0" aria-label="Fit report" data-yours="report" hidden></pre>"#;

/// The lists of the models and GPUs of `crate::model::hardware`, as `<option>`s written by the build (`build.rs`):
/// the page holds their names, the worker the tables.
const MODEL_OPTIONS: &str = include_str!(concat!(env!("OUT_DIR"), "/model-options.html"));
const GPU_OPTIONS: &str = include_str!(concat!(env!("OUT_DIR"), "/gpu-options.html"));

/// How a table folds a name for comparison (`models::match_key`, `gpus::match_key`).
type MatchKey = fn(&str) -> String;

/// The engine list's value for vLLM's V0 engine.
const V0: &str = "v0";

/// The attribute of a list the files' names set (rather than the learner).
const FILLED: &str = "data-filled";

/// Fills in the panel under its summary in `args.host` and wires it: it sets the server `args.held` and switches
/// `args.settings` to it.
pub(super) fn fill_panel(args: YourServerArgs) {
    let YourServerArgs {
        host,
        settings,
        held,
        id,
    } = args;
    let Some(summary) = host
        .query_selector("[data-yours=panel] > summary")
        .ok()
        .flatten()
    else {
        return;
    };
    let html = PANEL_HTML
        .replace("{id}", &id)
        .replace("{models}", MODEL_OPTIONS)
        .replace("{gpus}", GPU_OPTIONS)
        .replace("{limits}", &limits());
    let _ = summary.insert_adjacent_html("afterend", &html);
    let panel = Rc::new(Panel {
        root: host,
        settings,
        held,
        worker: Default::default(),
        workers_started: Default::default(),
        runs: Default::default(),
        running: Default::default(),
        banding: Default::default(),
    });
    panel.wire();
    panel.show_server(stored(REPORT_KEY).unwrap_or_default());
}

/// The files of a picked or dropped list.
fn listed(files: Option<FileList>) -> Vec<File> {
    files
        .map(|list| (0..list.length()).filter_map(|i| list.get(i)).collect())
        .unwrap_or_default()
}

/// A file's text, `None` when the browser cannot read it as text.
async fn text_of(file: &File) -> Option<String> {
    JsFuture::from(file.text())
        .await
        .ok()
        .and_then(|t| t.as_string())
}

struct Panel {
    root: Element,
    settings: RwSignal<LabSettings>,
    held: HeldServerLink,
    /// The worker, numbered by `workers_started`, so that a word from one already ended is not taken for an answer.
    worker: RefCell<Option<(u32, Worker)>>,
    workers_started: Cell<u32>,
    /// The calibration under way, numbered by `runs`, so that its time limit does not end a later one.
    runs: Cell<u32>,
    running: Cell<Option<u32>>,
    /// The server just calibrated waits for its band (the worker's next answer).
    banding: Cell<bool>,
}

impl Panel {
    fn part(&self, name: &str) -> Option<Element> {
        self.root
            .query_selector(&format!("[data-yours={name}]"))
            .ok()
            .flatten()
    }

    fn checkbox(&self, name: &str) -> Option<HtmlInputElement> {
        self.part(name).and_then(|input| input.dyn_into().ok())
    }

    fn value(&self, name: &str) -> String {
        self.part(name)
            .and_then(|part| Reflect::get(&part, &"value".into()).ok())
            .and_then(|value| value.as_string())
            .unwrap_or_default()
    }

    /// The pasted text's files, or why none are read: a text longer than a calibration takes in all is refused
    /// by its length before it is copied out of the page.
    fn pasted(&self) -> Result<Vec<InputFile>, String> {
        let value = self
            .part("paste")
            .and_then(|part| Reflect::get(&part, &"value".into()).ok())
            .unwrap_or_default();
        let Some(text) = value.dyn_ref::<web_sys::js_sys::JsString>() else {
            return Ok(Vec::new());
        };
        // UTF-16 units: at most the bytes the text takes as UTF-8.
        let units = f64::from(text.length());
        if units > MAX_TOTAL_INPUT_BYTES as f64 {
            return Err(format!(
                "The pasted text is {:.0} MB; the limit is {} MB in all. Nothing was read.",
                units / 1e6,
                MAX_TOTAL_INPUT_BYTES >> 20
            ));
        }
        Ok(pasted_files(&String::from(text)))
    }

    fn say(&self, text: &str) {
        if let Some(status) = self.part("status") {
            status.set_text_content(Some(text));
        }
    }

    fn set_hidden(&self, name: &str, hidden: bool) {
        if let Some(part) = self.part(name) {
            let _ = Reflect::set(&part, &"hidden".into(), &hidden.into());
        }
    }

    /// While a calibration runs, Calibrate is off and Stop is there (keeping the keyboard's place between them).
    fn set_busy(&self, busy: bool) {
        let focused = |name: &str| {
            let active = leptos::prelude::document().active_element();
            active.is_some() && active == self.part(name)
        };
        let (from, to) = if busy {
            ("calibrate", "stop")
        } else {
            ("stop", "calibrate")
        };
        let move_focus = focused(from);
        if let Some(button) = self.part("calibrate") {
            let _ = Reflect::set(&button, &"disabled".into(), &busy.into());
        }
        self.set_hidden("stop", !busy);
        if move_focus {
            if let Some(button) = self.part(to).and_then(|b| b.dyn_into::<HtmlElement>().ok()) {
                let _ = button.focus();
            }
        }
    }

    /// Shows whether a server is held: its report, and the buttons that act on it.
    fn show_server(&self, report: String) {
        let held = self.held.0.with_untracked(Option::is_some);
        for name in ["download", "forget"] {
            self.set_hidden(name, !held);
        }
        self.set_hidden("report", report.is_empty());
        if let Some(pre) = self.part("report") {
            pre.set_text_content(Some(&report));
        }
        if held {
            if let Some(panel) = self.part("panel") {
                let _ = panel.set_attribute("open", "");
            }
        }
    }

    fn on(self: &Rc<Self>, name: &str, kind: &str, handler: impl Fn(&Rc<Panel>, Event) + 'static) {
        let Some(part) = self.part(name) else {
            return;
        };
        let this = self.clone();
        let closure = Closure::<dyn Fn(Event)>::new(move |event: Event| handler(&this, event));
        let _ = part.add_event_listener_with_callback(kind, closure.as_ref().unchecked_ref());
        // The panel lives as long as the page.
        closure.forget();
    }

    fn wire(self: &Rc<Self>) {
        self.on("form", "submit", |panel, event| {
            event.prevent_default();
            let picked = panel
                .part("files")
                .and_then(|input| input.dyn_into::<HtmlInputElement>().ok())
                .and_then(|input| input.files());
            panel.calibrate(picked);
        });
        self.on("panel", "dragover", |_, event| event.prevent_default());
        self.on("panel", "drop", |panel, event| {
            event.prevent_default();
            let dropped = event
                .dyn_into::<DragEvent>()
                .ok()
                .and_then(|drag| drag.data_transfer())
                .and_then(|data| data.files());
            panel.calibrate(dropped);
        });
        // Each engine has its own default: V1 chunks prompts, V0 runs them whole, in steps of their own.
        self.on("engine", "change", |panel, _| {
            if let Some(chunked) = panel.checkbox("chunked") {
                chunked.set_checked(panel.value("engine") != V0);
            }
        });
        for list in ["model", "gpu"] {
            self.on(list, "change", move |panel, _| {
                if let Some(select) = panel.part(list) {
                    let _ = select.remove_attribute(FILLED);
                }
                panel.show_other_fields();
            });
        }
        self.on("files", "change", |panel, _| {
            let picked = panel
                .part("files")
                .and_then(|input| input.dyn_into::<HtmlInputElement>().ok())
                .and_then(|input| input.files());
            let files = listed(picked);
            // Read for the names they give only when a calibration would take them all.
            let sizes: Vec<(String, f64)> = files.iter().map(|f| (f.name(), f.size())).collect();
            if let Err(too_much) =
                check_sizes(sizes.iter().map(|(name, bytes)| (name.as_str(), *bytes)))
            {
                return panel.say(&format!("{too_much}. Nothing was read."));
            }
            let panel = panel.clone();
            leptos::task::spawn_local(async move {
                let mut read = Vec::new();
                for file in files.iter().filter(|f| f.size() <= MAX_INPUT_BYTES as f64) {
                    if let Some(text) = text_of(file).await {
                        read.push(InputFile {
                            name: file.name(),
                            text,
                        });
                    }
                }
                panel.fill_from(&read);
            });
        });
        self.on("paste", "change", |panel, _| match panel.pasted() {
            Ok(given) => panel.fill_from(&given),
            Err(too_long) => panel.say(&too_long),
        });
        self.on("forget", "click", |panel, _| panel.forget());
        self.on("stop", "click", |panel, _| {
            panel.end_worker();
            panel.say("Stopped. Nothing changed: the lab keeps what it had.");
        });
        self.on("download", "click", |panel, _| {
            let saved = stored(SCENARIO_KEY)
                .ok_or_else(|| "this browser kept no scenario file".to_owned())
                .and_then(|json| save_text(&json, "application/json", "your-server.scenario.json"));
            if let Err(error) = saved {
                panel.say(&format!("The download failed: {error}."));
            }
        });
    }

    /// Shows the fields of an "other" model or GPU while its list says "other".
    fn show_other_fields(&self) {
        for (list, fields) in [("model", "other-model"), ("gpu", "other-gpu")] {
            self.set_hidden(fields, self.value(list) != OTHER);
        }
    }

    /// Sets the model's and the GPU's lists to what `files` name (their `model_id`, `gpu_name`) where the learner
    /// picked none: a list left at "as the files say", or one the files set before. A name the lists lack leaves
    /// the list at "as the files say", and the report says that the prior is missing and why.
    fn fill_from(&self, files: &[InputFile]) {
        let named = named_in(files);
        let keyed: [(&str, Option<String>, MatchKey); 2] = [
            ("model", named.model, models::match_key),
            ("gpu", named.gpu, gpus::match_key),
        ];
        for (list, name, key) in keyed {
            let Some(select) = self.part(list) else {
                continue;
            };
            let filled = select.has_attribute(FILLED);
            if !(filled || self.value(list).is_empty()) {
                continue;
            }
            // Keys are letters and digits only, so they go in a selector as they are.
            let value = name
                .map(|name| key(&name))
                .filter(|key| !key.is_empty())
                .and_then(|key| {
                    select
                        .query_selector(&format!("option[data-match~={key}]"))
                        .ok()
                        .flatten()
                })
                .and_then(|option| option.get_attribute("value"));
            match value {
                Some(value) => {
                    let _ = Reflect::set(&select, &"value".into(), &value.into());
                    let _ = select.set_attribute(FILLED, "");
                }
                None if filled => {
                    let _ = Reflect::set(&select, &"value".into(), &"".into());
                    let _ = select.remove_attribute(FILLED);
                }
                None => {}
            }
        }
        self.show_other_fields();
    }

    /// The fields as the worker takes them. A list the files set is sent as "as the files say", so that the report
    /// names the files as where the model and the GPU came from.
    fn flag_fields(&self) -> FlagFields {
        let list = |name: &str| match self.part(name) {
            Some(select) if select.has_attribute(FILLED) => String::new(),
            _ => self.value(name),
        };
        FlagFields {
            max_num_seqs: self.value("seqs"),
            max_num_batched_tokens: self.value("budget"),
            chunked_prefill: self.checkbox("chunked").is_none_or(|input| input.checked()),
            v0_engine: self.value("engine") == V0,
            kv_cache_tokens: self.value("kv"),
            replicas: self.value("replicas"),
            model: list("model"),
            gpu: list("gpu"),
            tensor_parallel: self.value("tp"),
            figures: Box::new(HardwareFigures {
                parameters_billions: self.value("params"),
                layers: self.value("layers"),
                hidden_size: self.value("hidden"),
                kv_heads: self.value("kvheads"),
                head_size: self.value("headsize"),
                dtype_bytes: self.value("dtype"),
                bandwidth_tb_s: self.value("bandwidth"),
                peak_tflops: self.value("peak"),
                memory_gb: self.value("memory"),
            }),
        }
    }

    /// Reads the picked or dropped files and the pasted text, sets the lists the files name, then posts them with
    /// the fields to the worker.
    fn calibrate(self: &Rc<Self>, files: Option<FileList>) {
        let mut given = match self.pasted() {
            Ok(given) => given,
            Err(too_long) => return self.say(&too_long),
        };
        let files = listed(files);
        if let Some(big) = files.iter().find(|f| f.size() > MAX_INPUT_BYTES as f64) {
            return self.say(&format!(
                "{} is {:.1} MB; the limit is {:.0} MB. Nothing was read.",
                big.name(),
                big.size() / 1e6,
                MAX_INPUT_BYTES as f64 / 1e6
            ));
        }
        let sizes = given
            .iter()
            .map(|f| (f.name.clone(), f.text.len() as f64))
            .chain(files.iter().map(|f| (f.name(), f.size())))
            .collect::<Vec<_>>();
        if let Err(too_much) =
            check_sizes(sizes.iter().map(|(name, bytes)| (name.as_str(), *bytes)))
        {
            return self.say(&format!("{too_much}. Nothing was read."));
        }
        if files.is_empty() && given.is_empty() {
            return self.say("Give a file first: paste one, pick one or drop one here.");
        }
        let run = self.runs.get().wrapping_add(1);
        self.runs.set(run);
        self.banding.set(false);
        self.running.set(Some(run));
        self.set_busy(true);
        self.say(&format!(
            "Calibrating… (Stop ends it; it stops by itself after {} s.)",
            TIME_LIMIT_MS / 1000
        ));
        let this = self.clone();
        leptos::task::spawn_local(async move {
            for file in files {
                let text = text_of(&file).await;
                if this.running.get() != Some(run) {
                    return; // stopped while the files were read
                }
                let Some(text) = text else {
                    this.end_run();
                    return this.say(&format!(
                        "The browser could not read {} as text.",
                        file.name()
                    ));
                };
                given.push(InputFile {
                    name: file.name(),
                    text,
                });
            }
            this.fill_from(&given);
            let flags = this.flag_fields();
            let Some(ready) = this.ready_worker() else {
                this.end_run();
                return this
                    .say("The calibration could not start in this browser: it needs web workers.");
            };
            worker::post(
                &ready,
                ToWorker::Calibrate {
                    flags,
                    files: given,
                }
                .encode(),
            );
            let limit = this.clone();
            Timeout::new(TIME_LIMIT_MS, move || limit.time_out(run)).forget();
        });
    }

    /// The worker, started on first use (and again after one was ended).
    fn ready_worker(self: &Rc<Self>) -> Option<Worker> {
        if let Some((_, running)) = self.worker.borrow().as_ref() {
            return Some(running.clone());
        }
        let number = self.workers_started.get().wrapping_add(1);
        self.workers_started.set(number);
        let replies = self.clone();
        let started = worker::start("server-worker", move |reply| {
            replies.on_reply(number, reply)
        })?;
        *self.worker.borrow_mut() = Some((number, started.clone()));
        Some(started)
    }

    /// The calibration under way is over: the panel takes the next.
    fn end_run(&self) {
        self.running.set(None);
        self.set_busy(false);
    }

    /// Ends the worker, whatever it is doing (a new one starts for the next calibration), and the calibration with
    /// it.
    fn end_worker(&self) {
        if let Some((_, running)) = self.worker.borrow_mut().take() {
            running.terminate();
        }
        self.end_run();
    }

    /// The time limit of calibration `run`, if it is still the one under way.
    fn time_out(&self, run: u32) {
        if self.running.get() != Some(run) {
            return;
        }
        self.end_worker();
        self.say(&format!(
            "The calibration was still running after {} s, so it was stopped; nothing changed. Give it less (a few \
             result files, or a trace of some thousands of requests), or run goodput-sim calibrate with the same \
             files on your own machine, which has no time limit.",
            TIME_LIMIT_MS / 1000
        ));
    }

    /// Worker `number`'s answer: the server to run, or the one line saying why not (the server held before is kept).
    fn on_reply(&self, number: u32, message: Array) {
        let current = self.worker.borrow().as_ref().map(|(n, _)| *n);
        if current != Some(number) {
            return;
        }
        let reply = FromWorker::decode(&worker::strings(&message));
        if let Ok(FromWorker::Banded { handoff, report }) = reply {
            return self.take_band(&handoff, report);
        }
        if self.running.get().is_none() {
            // Between calibrations: a worker that failed is ended, and the next calibration starts another.
            if matches!(reply, Ok(FromWorker::Failed(_) | FromWorker::Crashed(_))) {
                self.end_worker();
            }
            return;
        }
        let (handoff_text, report, scenario_json, milliseconds) = match reply {
            Ok(FromWorker::Calibrated {
                handoff,
                report,
                scenario_json,
                milliseconds,
            }) => {
                self.end_run();
                (handoff, report, scenario_json, milliseconds)
            }
            Ok(FromWorker::Refused(line)) => {
                self.end_run();
                return self.say(&line);
            }
            Ok(FromWorker::Failed(_)) => {
                self.end_worker();
                return self.say(
                    "The calibration could not load: it is downloaded on first use, so it needs the network once. \
                     If the course was updated since this page opened, reload the page.",
                );
            }
            Ok(FromWorker::Crashed(said)) => {
                self.end_worker();
                return self.say(&format!(
                    "The calibration failed inside the browser, so it was stopped; nothing changed. Try again \
                     without the file that did it, or run goodput-sim calibrate on your machine, which names what \
                     is wrong in a file. (Details for a bug report: {said})"
                ));
            }
            Ok(FromWorker::Unreadable(why)) => {
                self.end_run();
                return self.say(&format!(
                    "The calibration could not read the page's request ({why}); reload the page."
                ));
            }
            Err(why) => {
                self.end_run();
                return self.say(&format!("The calibration came back unreadable: {why}."));
            }
            Ok(_) => return,
        };
        let server = match handoff::decode(&handoff_text) {
            Ok(server) => server,
            Err(error) => {
                return self.say(&format!("The calibration came back unreadable: {error}."))
            }
        };
        let kept = storage().is_some_and(|storage| {
            [
                (SERVER_KEY, &handoff_text),
                (REPORT_KEY, &report),
                (SCENARIO_KEY, &scenario_json),
            ]
            .iter()
            .all(|(key, value)| storage.set_item(key, value).is_ok())
        });
        let runs = server.measured.len();
        let server = HeldServer::new(server);
        self.held.0.set(Some(server.clone()));
        self.settings.update(|s| *s = s.for_your_server(&server));
        self.banding.set(true);
        self.show_server(report);
        let mut said = format!("Calibrated in {milliseconds} ms. The lab now runs your server");
        if runs > 0 {
            said += ": the rings on its charts are your measured runs, each with the model's error";
        }
        said += ".";
        if !kept {
            said += " This browser would not keep it (private mode or full storage), so it lasts until you leave the page.";
        }
        self.say(&said);
    }

    /// The band of the server just calibrated: the same server, now knowing how sure it is. Dropped when another
    /// calibration started since, or the server was forgotten.
    fn take_band(&self, handoff_text: &str, report: String) {
        if !self.banding.replace(false) {
            return;
        }
        let Ok(server) = handoff::decode(handoff_text) else {
            return;
        };
        if let Some(storage) = storage() {
            let _ = storage.set_item(SERVER_KEY, handoff_text);
            let _ = storage.set_item(REPORT_KEY, &report);
        }
        let server = HeldServer::new(server);
        self.held.0.set(Some(server.clone()));
        self.settings.update(|s| s.your_server = Some(server));
        self.show_server(report);
    }

    fn forget(&self) {
        self.banding.set(false);
        forget_stored();
        self.held.0.set(None);
        // Back to the course box, with its own vLLM flags rather than the forgotten server's.
        self.settings.update(|s| {
            if s.preset == Preset::Yours {
                *s = LabSettings {
                    preset: Preset::Course,
                    your_server: None,
                    ..s.clone()
                }
                .with_preset_flags();
            }
        });
        self.show_server(String::new());
        self.say("Forgotten: this browser keeps no server now.");
    }
}
