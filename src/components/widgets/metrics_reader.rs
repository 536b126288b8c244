//! The metrics reader: paste (or open) what a vLLM server serves at `/metrics`, and read, per model and label set,
//! the TTFT, TPOT and ITL percentiles estimated from the histogram buckets, the running and waiting gauges, KV-cache
//! usage, preemptions and requests turned away, how they compare with the SLOs, where the server sits against the knee, and a Little's Law
//! replica suggestion. One scrape counts since the server started; a later scrape pasted in the second box turns the
//! figures into the window between the two. The reading is the library's ([`crate::cluster::reading`], what
//! `goodput-sim metrics` prints); this file only feeds text in and draws it. Each box's page is parsed once, when its
//! text changes; the seconds between the scrapes only re-read the window.

use super::{use_lab_link, WidgetFrame};
use crate::charts::format::{format_latency, format_percent};
use crate::cluster::metrics::MAX_INPUT_BYTES;
use crate::cluster::reading::{
    read, typed_seconds, PageProblem, Reading, Scrape, ServerReading, SUGGESTION_HEADROOM,
};
use crate::cluster::report::refusals_text;
use crate::cluster::sizing::ScrapeSuggestion;
use crate::cluster::vllm::{
    format_count, HistogramSeries, KneeVerdict, Latency, Named, SloTargets, Span, ITL_VS_TPOT,
};
use crate::components::sync::synced_signal;
use crate::lesson::WidgetEmbed;
use crate::presentation::sync::keys;
use leptos::prelude::*;
use leptos_use_timeout_fn::use_timeout_fn;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// The sample pages, simulated by the course's own model (see `tests/cluster_metrics.rs`).
const HEALTHY_SAMPLE: &str = include_str!("../../../tests/fixtures/metrics/healthy.prom");
const PAST_THE_KNEE_SAMPLE: &str =
    include_str!("../../../tests/fixtures/metrics/past-the-knee.prom");
/// The healthy sample's server scraped again after its load rose past saturation.
const HEALTHY_LATER_SAMPLE: &str =
    include_str!("../../../tests/fixtures/metrics/healthy-later.prom");
/// Typing pauses this long before the page is read, so a paste or a burst of keys parses once.
const DEBOUNCE_MS: f64 = 300.0;
/// Label sets drawn in full at a time: a page can list thousands, and drawing them all at once would stall the page
/// for seconds. The status line counts the verdicts of all of them.
const REPORTS_PER_STEP: usize = 12;

/// Which of the two boxes a message is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Which {
    First,
    Later,
}

impl Which {
    fn name(self) -> &'static str {
        match self {
            Self::First => "this page",
            Self::Later => "the later scrape",
        }
    }
}

/// What the reader makes of the two boxes.
#[derive(Clone, Debug, PartialEq)]
enum Outcome {
    /// Nothing pasted yet.
    Empty,
    /// A later scrape without the earlier one.
    NoEarlier,
    /// A page that cannot be read, and which box it is in.
    Unreadable(Which, PageProblem),
    /// The reading, one entry per label set.
    Read(Reading),
}

/// One box's page, parsed: `None` while the box is empty.
type ParsedBox = Option<Result<Scrape, PageProblem>>;

/// Parses a box's text each time it changes, and only then. A parsed page is never compared with the last one
/// (that would cost as much as parsing): a new text is a new page.
fn parsed_box(text: RwSignal<String>) -> Memo<ParsedBox> {
    Memo::new_with_compare(
        move |_| text.with(|text| (!text.trim().is_empty()).then(|| Scrape::read(text))),
        |_, _| true,
    )
}

/// The outcome of the two parsed boxes, `seconds` apart.
fn outcome(
    first: &ParsedBox,
    later: &ParsedBox,
    seconds: Option<f64>,
    slo: &SloTargets,
) -> Outcome {
    match (first, later) {
        (None, None) => Outcome::Empty,
        (None, Some(_)) => Outcome::NoEarlier,
        (Some(Err(problem)), _) => Outcome::Unreadable(Which::First, problem.clone()),
        (Some(Ok(_)), Some(Err(problem))) => Outcome::Unreadable(Which::Later, problem.clone()),
        (Some(Ok(first)), later) => {
            let later = later.as_ref().and_then(|later| later.as_ref().ok());
            Outcome::Read(read(first, later, seconds, slo))
        }
    }
}

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
    let (ttft_ms, ttft_note) = slo_setting(widget, "slo_ttft_ms", 500.0);
    let (tpot_ms, tpot_note) = slo_setting(widget, "slo_tpot_ms", 40.0);
    let slo = SloTargets {
        ttft_p99: ttft_ms / 1e3,
        tpot_p95: tpot_ms / 1e3,
    };
    let shown = RwSignal::new(REPORTS_PER_STEP);
    let first = TypedPage::new(keys::widget(&id, "page"), shown);
    let later = TypedPage::new(keys::widget(&id, "later"), shown);
    let seconds_text = synced_signal(keys::widget(&id, "seconds"), String::new());
    let load_error = RwSignal::new(None::<String>);
    let (first_page, later_page) = (parsed_box(first.text), parsed_box(later.text));
    // Reading a few typed characters costs less than a memo of them would.
    let seconds = move || seconds_text.with(|text| typed_seconds(text));
    let reading = Memo::new(move |_| {
        let seconds = seconds().ok().flatten();
        first_page.with(|first| later_page.with(|later| outcome(first, later, seconds, &slo)))
    });
    // A page loaded into the first box (a sample, a file, the lab's run) is a new server: the later scrape goes.
    let load = move |text: String| {
        load_error.set(None);
        later.load(String::new());
        first.load(text);
    };
    let load_two_scrapes = move |_| {
        load_error.set(None);
        first.load(HEALTHY_SAMPLE.to_owned());
        later.load(HEALTHY_LATER_SAMPLE.to_owned());
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
                        <button type="button" class="widget-button" on:click=move |_| load(HEALTHY_SAMPLE.to_owned())>
                            "Load the healthy sample"
                        </button>
                        <button type="button" class="widget-button" on:click=move |_| load(PAST_THE_KNEE_SAMPLE.to_owned())>
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
                        <button type="button" class="widget-button" on:click=load_two_scrapes>
                            "Load two scrapes of a server that fell behind"
                        </button>
                    </div>
                    {move || seconds().err().map(|note| view! { <p class="widget-note">{note}</p> })}
                </div>
                <div role="alert">
                    {move || {
                        let refused = reading.with(|reading| match reading {
                            Outcome::Unreadable(which, PageProblem::Refused { message, line }) => Some((*which, message.clone(), line.clone())),
                            _ => None,
                        });
                        let loading = load_error.get();
                        (loading.is_some() || refused.is_some()).then(|| view! {
                            <div class="reader-alert">
                                {loading.map(|message| view! { <p>{message}</p> })}
                                {refused.map(|(which, message, line)| view! {
                                    <p>{format!("Cannot read {}: {message}", which.name())}</p>
                                    {line.map(|(number, text)| view! {
                                        <p class="reader-quoted">
                                            {format!("Line {number}: ")}
                                            <code>{text}</code>
                                        </p>
                                    })}
                                })}
                            </div>
                        })
                    }}
                </div>
                <ReaderResult reading slo shown/>
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

/// The verdicts, one report per label set.
#[component]
fn ReaderResult(reading: Memo<Outcome>, slo: SloTargets, shown: RwSignal<usize>) -> impl IntoView {
    let status = move || {
        reading.with(|reading| match reading {
            Outcome::Empty => "Nothing read yet: paste a page or load a sample.".to_owned(),
            Outcome::NoEarlier => {
                "A later scrape needs the earlier one: paste that in the first box.".to_owned()
            }
            Outcome::Unreadable(Which::First, PageProblem::Refused { .. }) => {
                "The page could not be read; see the error above.".to_owned()
            }
            Outcome::Unreadable(Which::Later, PageProblem::Refused { .. }) => {
                "The later scrape could not be read; see the error above.".to_owned()
            }
            Outcome::Unreadable(which, problem) => format!(
                "{}.",
                problem.about(match which {
                    Which::First => "The page",
                    Which::Later => "The later scrape",
                })
            ),
            Outcome::Read(reading) => reading.summary(),
        })
    };
    let reports = move || {
        reading.with(|reading| match reading {
            Outcome::Read(reading) => {
                let servers = &reading.servers;
                let gone = reading.gone_labels();
                let limit = shown.get();
                let more = servers.len().saturating_sub(limit);
                let step = more.min(REPORTS_PER_STEP);
                let gone = (!gone.is_empty()).then(|| view! {
                    <p class="reader-more">{format!("Only on the earlier scrape (no longer reported): {}.", gone.join("; "))}</p>
                });
                Some(view! {
                    <p class="reader-estimate-note">
                        "Percentiles are estimates from the histogram buckets: the rank (say 99% of the count) falls in one bucket, \
                         and the value is interpolated linearly between that bucket's bounds, as Prometheus's histogram_quantile \
                         does. So each is only as precise as its bucket is wide; a rank in the +Inf bucket is reported as \
                         \"above the last finite bound\". One scrape counts every request since the server started; with a later \
                         scrape the figures are the window between the two."
                    </p>
                    {servers.iter().take(limit).cloned().map(|server| view! { <ServerReport server slo/> }).collect_view()}
                    {(more > 0).then(|| view! {
                        <p class="reader-more">
                            {format!("Showing the first {limit} of {} label sets. ", servers.len())}
                            <button type="button" class="widget-button" on:click=move |_| shown.update(|n| *n += REPORTS_PER_STEP)>
                                {format!("Show {step} more")}
                            </button>
                        </p>
                    })}
                    {gone}
                })
            }
            _ => None,
        })
    };
    view! {
        <div class="reader-result">
            <p class="reader-status" role="status">{status}</p>
            {reports}
        </div>
    }
}

fn verdict_class(verdict: KneeVerdict) -> &'static str {
    match verdict {
        KneeVerdict::BelowTheKnee => "reader-verdict verdict-below",
        KneeVerdict::AtTheKnee => "reader-verdict verdict-at",
        KneeVerdict::PastTheKnee => "reader-verdict verdict-past",
        KneeVerdict::NotEnoughData => "reader-verdict verdict-none",
    }
}

/// One label set: what its figures cover, the verdict, percentiles against the SLOs, the gauges, the reasons and
/// the replica suggestion.
#[component]
fn ServerReport(server: ServerReading, slo: SloTargets) -> impl IntoView {
    let ServerReading {
        signals,
        assessment,
        suggestion,
    } = server;
    let labels = signals.describe_labels();
    let region_label = format!("Label set {labels}");
    let gauge = |value: Option<f64>| value.map_or("not on the page".to_owned(), format_count);
    let kv = signals
        .kv_cache_usage
        .as_ref()
        .map_or("not on the page".to_owned(), |kv| format_percent(kv.value));
    let preemptions = signals
        .preemptions
        .map_or("not on the page".to_owned(), |p| {
            format!("{} {}", format_count(p), signals.span.qualifier())
        });
    let caption = match signals.span {
        Span::SinceStart => "Estimated from the histogram buckets, since the server started",
        Span::Window { .. } => "Estimated from the bucket differences between the two scrapes",
        Span::Restarted { .. } => "Estimated from the later scrape's buckets, since the restart",
    };
    let rows = Latency::ALL
        .into_iter()
        .filter(|&latency| {
            !matches!(latency, Latency::Queue | Latency::E2e) || signals.histogram(latency).is_some()
        })
        .map(|latency| {
            let slo_text = match latency {
                Latency::Ttft => format!("p99 ≤ {}", format_latency(slo.ttft_p99)),
                Latency::Tpot => format!("p95 ≤ {}", format_latency(slo.tpot_p95)),
                Latency::Itl if signals.tpot.is_none() => format!("stands in for TPOT: p95 ≤ {}", format_latency(slo.tpot_p95)),
                _ => "—".to_owned(),
            };
            view! { <PercentileRow latency found=signals.histogram(latency).cloned() slo=slo_text/> }
        })
        .collect_view();
    let refusals = refusals_text(&signals).map(
        |refused| view! { <p class="reader-refusals">{format!("Turned away: {refused}")}</p> },
    );
    let itl_note = signals
        .itl
        .is_some()
        .then(|| view! { <p class="reader-itl-note">{ITL_VS_TPOT}</p> });
    let reasons = assessment
        .reasons
        .iter()
        .map(|reason| view! { <li>{reason.clone()}</li> })
        .collect_view();
    view! {
        <section class="reader-server" aria-label=region_label>
            <h3 class="reader-labels"><code>{labels}</code></h3>
            <p class="reader-span">{signals.span.describe(signals.requests())}</p>
            <p class=verdict_class(assessment.verdict)>
                "Verdict: " <strong>{assessment.verdict.describe()}</strong>
            </p>
            <div class="scroll-x" tabindex="0" role="region" aria-label="Percentile estimates against the SLOs">
                <table class="reader-table">
                    <caption>{caption}</caption>
                    <thead>
                        <tr>
                            <th scope="col">"Signal"</th>
                            <th scope="col">"p50"</th>
                            <th scope="col">"p95"</th>
                            <th scope="col">"p99"</th>
                            <th scope="col">"SLO"</th>
                        </tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
            {itl_note}
            <p class="reader-queue">
                {format!(
                    "Running: {} · Waiting: {} · KV cache: {kv} · Preemptions: {preemptions}",
                    gauge(signals.running),
                    gauge(signals.waiting)
                )}
            </p>
            {refusals}
            <h4 class="reader-minor-heading">"Why"</h4>
            <ul class="reader-reasons">{reasons}</ul>
            <ReplicaSuggestion suggestion/>
        </section>
    }
}

/// One latency's percentiles, with the metric name they came from.
#[component]
fn PercentileRow(
    latency: Latency,
    found: Option<Named<HistogramSeries>>,
    slo: String,
) -> impl IntoView {
    let name = format!("{} ({})", latency.short_name(), latency.long_name());
    let (metric, cells) = match found {
        Some(histogram) => {
            let p = histogram.value.percentiles();
            let cells = [p.p50, p.p95, p.p99]
                .map(|estimate| view! { <td>{estimate.describe()}</td> })
                .into_iter()
                .collect_view()
                .into_any();
            (Some(histogram.metric), cells)
        }
        None => (
            None,
            view! { <td colspan="3">"no histogram on the page"</td> }.into_any(),
        ),
    };
    view! {
        <tr>
            <th scope="row">
                {name}
                {metric.map(|metric| view! { <br/><code class="reader-metric">{metric}</code> })}
            </th>
            {cells}
            <td>{slo}</td>
        </tr>
    }
}

#[component]
fn ReplicaSuggestion(suggestion: Option<ScrapeSuggestion>) -> impl IntoView {
    let Some(suggestion) = suggestion else {
        return view! {
            <p class="reader-suggestion">"Little's Law needs both the running and the waiting gauge; this label set lacks one."</p>
        }
        .into_any();
    };
    let plural = |n: u64| if n == 1 { "replica" } else { "replicas" };
    let headline = match (suggestion.replicas_at_least, suggestion.replicas) {
        (Some(low), Some(high)) if low < high => format!(
            "Little's Law suggests between {low} and {high} replicas like this one: at least {low} to serve the demand at {}              headroom, and {high} to give every request now in flight a batch slot at once.",
            format_percent(SUGGESTION_HEADROOM)
        ),
        (_, Some(replicas)) => format!(
            "Little's Law suggests {replicas} {} like this one, to give every request now in flight a batch slot at {} headroom.",
            plural(replicas),
            format_percent(SUGGESTION_HEADROOM)
        ),
        _ => "Little's Law:".to_owned(),
    };
    let steps = suggestion
        .arithmetic
        .iter()
        .map(|line| view! { <li>{line.clone()}</li> })
        .collect_view();
    view! {
        <div class="reader-suggestion">
            <h4 class="reader-minor-heading">"Replicas"</h4>
            <p>{headline}</p>
            <ol class="sizer-arithmetic">{steps}</ol>
        </div>
    }
    .into_any()
}
