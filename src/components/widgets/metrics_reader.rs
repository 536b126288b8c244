//! The metrics reader: paste (or open) what a vLLM server serves at `/metrics`, and read, per model and label set,
//! the TTFT, TPOT and ITL percentiles estimated from the histogram buckets, the running and waiting gauges, KV-cache
//! usage, preemptions and requests turned away, how they compare with the SLOs, where the server sits against the knee, and a Little's Law
//! replica suggestion. One scrape counts since the server started; a later scrape pasted in the second box turns the
//! figures into the window between the two.
//!
//! This file only takes the text in and shows the answer: the reading is the library's
//! ([`crate::cluster::reader_view`], the reading `goodput-sim metrics` prints), done in the `server-worker` the first
//! time there is a page to read, so a first visit does not download the parser. The worker parses each box's page
//! once, when its text changes; the seconds between the scrapes only re-read the window.

use super::{use_lab_link, WidgetFrame};
use crate::charts::format::format_percent;
use crate::cluster::metrics::MAX_INPUT_BYTES;
use crate::cluster::reader_view::{EMPTY_STATUS, REPORTS_PER_STEP, SHOW_MORE_ATTRIBUTE};
use crate::cluster::reading::typed_seconds;
use crate::cluster::vllm::SloTargets;
use crate::components::sync::synced_signal;
use crate::components::worker;
use crate::lesson::WidgetEmbed;
use crate::presentation::sync::keys;
use crate::server_protocol::{FromWorker, Sample, ToWorker};
use leptos::prelude::*;
use leptos_use_timeout_fn::use_timeout_fn;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// What the reader says when its worker cannot load.
const WORKER_FAILED: &str =
    "The reader could not load: it is downloaded the first time a page is read, so it needs the network once.";

/// Typing pauses this long before the page is read, so a paste or a burst of keys parses once.
const DEBOUNCE_MS: f64 = 300.0;

/// A box's text: what is read (`text`, shared with the other windows of a presentation), which follows what is
/// typed after a typing pause, so a paste or a burst of keys is read once.
#[derive(Clone, Copy)]
struct TypedPage {
    text: RwSignal<String>,
    /// Reads the text after the pause (each call restarts it).
    read_later: Callback<String>,
    /// Drops the text waiting for the pause.
    cancel_pending: Callback<()>,
    /// Reset to the first few label sets whenever a new page is read.
    shown: RwSignal<usize>,
}

impl TypedPage {
    fn new(key: String, shown: RwSignal<usize>) -> Self {
        let text = synced_signal(key, String::new());
        let pause = use_timeout_fn(move |page| Self::read_now(text, shown, page), DEBOUNCE_MS);
        let stop = pause.stop;
        Self {
            text,
            read_later: Callback::new(pause.start),
            cancel_pending: Callback::new(move |()| stop()),
            shown,
        }
    }

    fn read_now(text: RwSignal<String>, shown: RwSignal<usize>, page: String) {
        shown.set(REPORTS_PER_STEP);
        text.set(page);
    }

    /// Replaces the text at once (a sample, a file).
    fn load(self, text: String) {
        self.cancel_pending.run(());
        Self::read_now(self.text, self.shown, text);
    }

    /// A keystroke or a paste: read after the pause.
    fn typed(self, text: String) {
        self.read_later.run(text);
    }
}

/// An SLO setting in milliseconds: the lesson's value when it is a positive number, else `default` with a note.
fn slo_setting(widget: &WidgetEmbed, key: &str, default: f64) -> (f64, Option<String>) {
    match widget.number_setting(key, default) {
        (value, None) if value > 0.0 => (value, None),
        (_, Some(note)) => (default, Some(note)),
        (value, None) => (
            default,
            Some(format!(
                "The lesson sets {key} = {value}, which is not a positive number of milliseconds; using {default} instead."
            )),
        ),
    }
}

/// The reader.
#[component]
pub fn MetricsReader(widget: &'static WidgetEmbed, id: String) -> impl IntoView {
    let course = crate::model::Slo::default();
    let (ttft_ms, ttft_note) = slo_setting(widget, "slo_ttft_ms", course.ttft * 1e3);
    let (tpot_ms, tpot_note) = slo_setting(widget, "slo_tpot_ms", course.tpot * 1e3);
    let slo = SloTargets {
        ttft_p99: ttft_ms / 1e3,
        tpot_p95: tpot_ms / 1e3,
    };
    let shown = RwSignal::new(REPORTS_PER_STEP);
    let first = TypedPage::new(keys::widget(&id, "page"), shown);
    let later = TypedPage::new(keys::widget(&id, "later"), shown);
    let seconds_text = synced_signal(keys::widget(&id, "seconds"), String::new());
    let load_error = RwSignal::new(None::<String>);
    // Reading a few typed characters costs less than a memo of them would.
    let seconds = move || seconds_text.with(|text| typed_seconds(text));
    let view = RwSignal::new((String::new(), empty_result()));
    // Each request for a reading is numbered, so an answer that arrives after a newer request (or after the boxes
    // were emptied) is dropped rather than shown over it.
    let latest = StoredValue::new(0_u32);
    let reader = StoredValue::new_local(None::<web_sys::Worker>);
    // Posts to the worker, starting it on first use.
    let ask = move |message: ToWorker| {
        if reader.with_value(Option::is_none) {
            let started = worker::start("server-worker", move |reply| {
                match FromWorker::decode(&worker::strings(&reply)) {
                    Ok(FromWorker::Reading {
                        alert_html,
                        result_html,
                        request,
                    }) if request == latest.get_value() => view.set((alert_html, result_html)),
                    Ok(FromWorker::Sample {
                        first: first_page,
                        later: later_page,
                    }) => {
                        first.load(first_page);
                        later.load(later_page);
                    }
                    Ok(FromWorker::Failed(_)) => load_error.set(Some(WORKER_FAILED.to_owned())),
                    // A new worker starts for the next reading.
                    Ok(FromWorker::Crashed(said)) => {
                        reader.update_value(|kept| {
                            if let Some(ended) = kept.take() {
                                ended.terminate();
                            }
                        });
                        load_error.set(Some(format!(
                            "The reader failed on this page and was stopped; change the page to read it again. \
                             (Details for a bug report: {said})"
                        )));
                    }
                    Ok(FromWorker::Unreadable(why)) => load_error.set(Some(format!(
                        "The reader could not take this page's question ({why}); reload the page."
                    ))),
                    Err(why) => load_error.set(Some(format!(
                        "The reader's answer could not be read ({why}); reload the page."
                    ))),
                    Ok(_) => {}
                }
            });
            if started.is_none() {
                return load_error.set(Some(
                    "The reader could not start in this browser: it needs web workers.".to_owned(),
                ));
            }
            reader.set_value(started);
        }
        reader.with_value(|running| {
            running
                .as_ref()
                .map(|running| worker::post(running, message.encode()))
        });
    };
    // Asks for the reading whenever a box, the seconds or the reports shown change; an empty reader needs no worker.
    Effect::new(move |_| {
        let (first, later) = (first.text.get(), later.text.get());
        let (seconds, shown) = (seconds_text.with(|text| typed_seconds(text)), shown.get());
        latest.update_value(|n| *n += 1);
        if first.trim().is_empty() && later.trim().is_empty() {
            return view.set((String::new(), empty_result()));
        }
        ask(ToWorker::Read {
            first,
            later,
            seconds: seconds.ok().flatten(),
            slo,
            shown,
            request: latest.get_value(),
        });
    });
    // A page loaded into the first box (a sample, a file, the lab's run) is a new server: the later scrape goes.
    let load = move |text: String| {
        load_error.set(None);
        later.load(String::new());
        first.load(text);
    };
    // The samples live in the worker, beside the parser that reads them.
    let load_sample = move |sample: Sample| {
        load_error.set(None);
        ask(ToWorker::Sample(sample));
    };
    let textarea_id = format!("{id}-page");
    let hint_id = format!("{id}-page-hint");
    let later_id = format!("{id}-later");
    let later_hint_id = format!("{id}-later-hint");
    let seconds_id = format!("{id}-seconds");
    let notes = [ttft_note, tpot_note].into_iter().flatten().collect();
    view! {
        <WidgetFrame widget id=id.clone() notes>
            <div class="reader">
                <div class="reader-input">
                    <label for=textarea_id.clone()>"Prometheus text from a vLLM server's /metrics"</label>
                    <PageTextarea id=textarea_id rows=10 hint_id=hint_id.clone() page=first
                        placeholder="# HELP vllm:num_requests_waiting …"/>
                    <p class="sizer-hint" id=hint_id>
                        {format!(
                            "Paste the output of curl -s localhost:8000/metrics (up to {} MB); it is read in this page and never sent anywhere.",
                            MAX_INPUT_BYTES / (1024 * 1024)
                        )}
                    </p>
                    <div class="reader-sources">
                        <button type="button" class="widget-button" on:click=move |_| load_sample(Sample::Healthy)>
                            "Load the healthy sample"
                        </button>
                        <button type="button" class="widget-button" on:click=move |_| load_sample(Sample::PastTheKnee)>
                            "Load the past-the-knee sample"
                        </button>
                        <FilePicker id=format!("{id}-file") load load_error/>
                        <LabMetricsButton load id=format!("{id}-lab")/>
                    </div>
                </div>
                <div class="reader-input">
                    <label for=later_id.clone()>"Paste a later scrape (optional): the window between the two is the present"</label>
                    <PageTextarea id=later_id rows=4 hint_id=later_hint_id.clone() page=later
                        placeholder="the same server's /metrics, a minute or so later"/>
                    <p class="sizer-hint" id=later_hint_id.clone()>
                        "Every histogram on a page counts since the server started. Scrape again a minute later and paste it here: \
                         the differences between the two pages are the requests served in between, as Prometheus's rate() sees them."
                    </p>
                    <div class="reader-sources">
                        <span class="reader-seconds">
                            <label for=seconds_id.clone()>"Seconds between the two scrapes (optional)"</label>
                            <input id=seconds_id type="text" inputmode="decimal" autocomplete="off"
                                aria-describedby=later_hint_id
                                prop:value=move || seconds_text.get()
                                on:input=move |event| seconds_text.set(event_target_value(&event))/>
                        </span>
                        <button type="button" class="widget-button" on:click=move |_| load_sample(Sample::FellBehind)>
                            "Load two scrapes of a server that fell behind"
                        </button>
                    </div>
                    {move || seconds().err().map(|note| view! { <p class="widget-note">{note}</p> })}
                </div>
                <div role="alert">
                    {move || load_error.get().map(|message| view! { <div class="reader-alert"><p>{message}</p></div> })}
                    <div inner_html=move || view.with(|v| v.0.clone())></div>
                </div>
                <div
                    inner_html=move || view.with(|v| v.1.clone())
                    on:click=move |event| {
                        let more = event
                            .target()
                            .and_then(|target| target.dyn_into::<web_sys::Element>().ok())
                            .is_some_and(|target| target.has_attribute(SHOW_MORE_ATTRIBUTE));
                        if more {
                            shown.update(|n| *n += REPORTS_PER_STEP);
                        }
                    }
                ></div>
            </div>
        </WidgetFrame>
    }
}

/// A box for a pasted page: no wrapping or spell checking, read after a typing pause.
#[component]
fn PageTextarea(
    id: String,
    rows: u32,
    hint_id: String,
    placeholder: &'static str,
    page: TypedPage,
) -> impl IntoView {
    view! {
        <textarea
            id=id
            rows=rows
            wrap="off"
            spellcheck="false"
            autocomplete="off"
            aria-describedby=hint_id
            placeholder=placeholder
            prop:value=move || page.text.get()
            on:input=move |event| page.typed(event_target_value(&event))
        ></textarea>
    }
}

/// A native file picker: refuses files over the parser's bound before reading a byte.
#[component]
fn FilePicker(
    id: String,
    load: impl Fn(String) + Copy + 'static,
    load_error: RwSignal<Option<String>>,
) -> impl IntoView {
    let on_change = move |event: leptos::ev::Event| {
        let Some(input) = event
            .target()
            .and_then(|target| target.dyn_into::<web_sys::HtmlInputElement>().ok())
        else {
            return;
        };
        let Some(file) = input.files().and_then(|files| files.get(0)) else {
            return;
        };
        // Cleared, so that choosing the same file again (after editing it) reads it again.
        input.set_value("");
        let name = file.name();
        if file.size() > MAX_INPUT_BYTES as f64 {
            load_error.set(Some(format!(
                "{name} is {:.1} MB; the limit is {} MB (a vLLM /metrics page is usually under 100 kB). Nothing was read.",
                file.size() / (1024.0 * 1024.0),
                MAX_INPUT_BYTES / (1024 * 1024)
            )));
            return;
        }
        let text = file.text();
        leptos::task::spawn_local(async move {
            match JsFuture::from(text)
                .await
                .ok()
                .and_then(|value| value.as_string())
            {
                Some(text) => load(text),
                None => load_error.set(Some(format!("The browser could not read {name} as text."))),
            }
        });
    };
    view! {
        <span class="reader-file">
            <label for=id.clone()>"Or open a file"</label>
            <input id=id type="file" accept=".prom,.txt,text/plain" on:change=on_change/>
        </span>
    }
}

/// "Use the knee lab's /metrics": reads the lab's current run as a scrape, or says why it cannot.
#[component]
fn LabMetricsButton(load: impl Fn(String) + Copy + 'static, id: String) -> impl IntoView {
    let lab = use_lab_link().0;
    let note = move || match lab.get() {
        None => "The knee lab has no run yet: run it above to read its simulated /metrics here."
            .to_owned(),
        Some(reading) => format!(
            "The knee lab's run at {} load, as the /metrics page its server would serve.",
            format_percent(reading.load)
        ),
    };
    let use_lab = move |_| {
        if let Some(text) = lab.with_untracked(|r| r.as_ref().map(|r| r.metrics_text.clone())) {
            load(text);
        }
    };
    view! {
        <button type="button" class="widget-button" disabled=move || lab.with(Option::is_none)
            aria-describedby=id.clone() on:click=use_lab>
            "Use the knee lab's /metrics"
        </button>
        <span class="sizer-hint reader-lab-note" id=id>{note}</span>
    }
}

/// What an empty reader shows: the status line the library writes for it.
fn empty_result() -> String {
    format!("<div class=\"reader-result\"><p class=\"reader-status\" role=\"status\">{EMPTY_STATUS}</p></div>")
}
