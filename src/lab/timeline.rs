//! Inside the batch at the lab's settings: a few seconds of one replica's life from the simulation, the request it
//! follows, the step-time formula that sets every iteration's length, and the same window under one other setting.
//!
//! Two runs of the same scenario and seed make it: a plain one ([`run_traced`]) that finds the request to follow —
//! by default one from the slow tail, at the 99th percentile of TTFT among those whose life fits the window — and a
//! traced one ([`trace_batch`]) over the window around it. The model is deterministic, so both runs are the same
//! run. A comparison keeps the seed, so the arrivals are the same requests (at another load, the same requests
//! closer together or further apart).

use super::settings::{LabSettings, Preset};
use super::sweep::scenario_for;
use crate::charts::format::format_latency;
use crate::charts::{
    Activity, BarSegment, BatchTimeline, FollowedBar, SlotRun, TimelineStep, WaitReason,
};
use crate::model::{
    run_traced, trace_batch, BatchTrace, EndAfterFollow, FollowedRequest, IterationModel,
    PhaseKind, RequestTrace, Scenario, ScenarioError, TraceSpec, Work,
};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Requests measured by the run that picks the request to follow, after [`WARM_UP`] more: enough for a slow tail,
/// quick enough to rerun on every slider move (a few milliseconds in the page).
pub const REQUESTS: u64 = 3_000;
/// Requests run before measuring.
pub const WARM_UP: u64 = 400;
/// The window opens this long before the followed request arrives, so the batch it arrives into shows.
pub const LEAD_S: f64 = 0.6;
/// …and closes this long after it finishes.
pub const LINGER_S: f64 = 0.25;
/// The shortest window.
pub const MIN_SPAN_S: f64 = 2.0;
/// The longest window, so a timeline stays readable (and its trace small).
pub const MAX_SPAN_S: f64 = 10.0;

/// The timeline's caption, on the page and on its static picture.
pub const CAPTION: &str = "Inside the batch: slots by iteration, at the lab's settings";

/// What the timeline sets beside its picture.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Compare {
    /// Nothing: one timeline.
    #[default]
    Nothing,
    /// The same window with chunked prefill switched.
    Chunking,
    /// The same requests at 85% load.
    Load85,
    /// The same requests at 99% load.
    Load99,
}

impl Compare {
    /// Every choice, in the order the page lists them.
    pub const ALL: [Compare; 4] = [
        Compare::Nothing,
        Compare::Chunking,
        Compare::Load85,
        Compare::Load99,
    ];

    /// The form value.
    pub fn key(self) -> &'static str {
        match self {
            Compare::Nothing => "none",
            Compare::Chunking => "chunking",
            Compare::Load85 => "load-85",
            Compare::Load99 => "load-99",
        }
    }

    /// What the picker says.
    pub fn label(self) -> &'static str {
        match self {
            Compare::Nothing => "Nothing",
            Compare::Chunking => "The same window, chunked prefill switched",
            Compare::Load85 => "The same requests at 85% load",
            Compare::Load99 => "The same requests at 99% load",
        }
    }

    /// The settings compared with `settings`, and how to name the difference; `None` when there is nothing to
    /// compare (no comparison asked for, or the load asked for is the current one).
    pub fn other(self, settings: &LabSettings) -> Option<(LabSettings, String)> {
        let mut other = settings.clone();
        let name = match self {
            Compare::Nothing => return None,
            Compare::Chunking => {
                other.chunked_prefill = !settings.chunked_prefill;
                format!(
                    "chunked prefill {}",
                    if other.chunked_prefill { "on" } else { "off" }
                )
            }
            Compare::Load85 | Compare::Load99 => {
                other.load_percent = if self == Compare::Load85 { 85 } else { 99 };
                if other.load_percent == settings.load_percent {
                    return None;
                }
                format!("{}% load", other.load_percent)
            }
        };
        Some((other, name))
    }
}

/// The directive setting that picks the comparison (`compare = "chunking"`); every other key is the lab's.
pub const COMPARE_KEY: &str = "compare";

/// A timeline's starting settings from its lesson directive: the lab's settings (the same names as the knee lab's)
/// and `compare` (`none`, `chunking`, `load-85`, `load-99`), with a note for each value it cannot use.
pub fn from_directive(
    directive: &std::collections::BTreeMap<String, crate::lesson::SettingValue>,
) -> (LabSettings, TimelineView, Vec<super::SettingNote>) {
    let mut rest = directive.clone();
    let compare = rest.remove(COMPARE_KEY);
    let (settings, mut notes) = LabSettings::from_directive(&rest);
    let mut view = TimelineView::default();
    if let Some(value) = compare {
        let text = value.to_string();
        match Compare::ALL.into_iter().find(|c| c.key() == text.trim()) {
            Some(compare) => view.compare = compare,
            None => notes.push(super::SettingNote {
                key: COMPARE_KEY.to_owned(),
                message: format!(
                    "{COMPARE_KEY}={text:?} is not one of {}; comparing with nothing",
                    Compare::ALL.map(Compare::key).join(", ")
                ),
            }),
        }
    }
    (settings, view, notes)
}

/// What the reader chose besides the lab's settings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TimelineView {
    /// The comparison shown under the timeline.
    pub compare: Compare,
    /// The request followed, by arrival index; `None`: one from the slow tail.
    pub follow: Option<u64>,
}

/// A request the reader can follow, as the picker lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct RequestChoice {
    /// Arrival index.
    pub index: u64,
    /// e.g. "#2814: TTFT 2.1 s, 63 tokens (the slow-tail pick)".
    pub label: String,
}

/// The step-time model with the preset's coefficients, and one iteration worked through by hand.
#[derive(Clone, Debug, PartialEq)]
pub struct StepFormula {
    /// `(what, coefficient)` of the memory (linear) time: fixed, per prefill token, per decoding sequence, per
    /// context token.
    pub terms: [(&'static str, String); 4],
    /// The compute time's fixed cost and cost per token processed, when the model has one: the step then lasts the
    /// larger of the two times, plus the KV read (the context term).
    pub compute: Option<[String; 2]>,
    /// Where the coefficients come from.
    pub source: &'static str,
    /// The window's longest iteration, term by term.
    pub example: Option<WorkedStep>,
}

/// One iteration's length by the formula.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkedStep {
    /// The replica's iteration number (the table's first column).
    pub iteration: u64,
    /// Prefill tokens.
    pub prefill_tokens: u64,
    /// Decoding sequences.
    pub decode_seqs: u64,
    /// Context tokens.
    pub context_tokens: u64,
    /// The memory time's four terms, milliseconds as printed.
    pub terms_ms: [String; 4],
    /// The compute time's two terms (fixed, per token × tokens processed), milliseconds as printed, when the model
    /// has one.
    pub compute_ms: Option<[String; 2]>,
    /// The length, as printed.
    pub total: String,
}

impl StepFormula {
    /// The formula in one line of plain text, as the static page prints it beside the timeline's picture.
    pub fn text(&self) -> String {
        let [(_, fixed), (_, prefill), (_, decode), (_, context)] = &self.terms;
        let memory =
            format!("{fixed} + {prefill} × prefill tokens + {decode} × decoding sequences");
        let kv_read = format!("{context} × context tokens");
        match &self.compute {
            None => format!("step time = {memory} + {kv_read}"),
            Some([fixed, per_token]) => format!(
                "step time = the larger of {memory} (memory) and {fixed} + {per_token} × (prefill tokens + \
                 decoding sequences) (compute), plus {kv_read} (the KV read)"
            ),
        }
    }
}

/// Everything the batch-timeline widget shows.
#[derive(Clone, Debug, PartialEq)]
pub struct TimelineFigures {
    /// The timeline at the settings.
    pub main: BatchTimeline,
    /// The comparison: what differs, and its timeline.
    pub compare: Option<(String, BatchTimeline)>,
    /// A sentence saying what the comparison changed.
    pub comparison: Option<String>,
    /// The step-time formula.
    pub formula: StepFormula,
    /// The requests in the window, to follow one.
    pub requests: Vec<RequestChoice>,
    /// The slow-tail pick (the default followed request).
    pub tail_pick: Option<u64>,
}

/// The scenario of a timeline: the lab's at its load, run short.
fn timeline_scenario(settings: &LabSettings) -> Result<Scenario, ScenarioError> {
    let mut scenario = scenario_for(settings, settings.load())?;
    scenario.customers = REQUESTS;
    scenario.warm_up = WARM_UP;
    Ok(scenario)
}

/// The figures for `settings` and the reader's `view`. The textbook queue (or settings the model refuses) gives a
/// timeline with a note saying why there is nothing to draw.
pub fn timeline_figures(settings: &LabSettings, view: &TimelineView) -> TimelineFigures {
    match figures(settings, view) {
        Ok(figures) => figures,
        Err(note) => TimelineFigures {
            main: BatchTimeline {
                offered_load: settings.load(),
                chunked_prefill: settings.chunked_prefill,
                note: Some(note),
                ..BatchTimeline::default()
            },
            compare: None,
            comparison: None,
            formula: formula(settings.preset, &IterationModel::default(), None),
            requests: Vec::new(),
            tail_pick: None,
        },
    }
}

fn figures(settings: &LabSettings, view: &TimelineView) -> Result<TimelineFigures, String> {
    if settings.preset == Preset::Textbook {
        return Err(
            "The textbook M/M/c queue serves one request per server: it has no batch to look inside. Pick the \
             course box or DistServe."
                .to_owned(),
        );
    }
    let cannot = |e: ScenarioError| format!("These settings cannot be simulated: {e}.");
    let scenario = timeline_scenario(settings).map_err(cannot)?;
    let (_, traces) = run_traced(&scenario, settings.seed, usize::MAX).map_err(cannot)?;
    let Some(anchor) = slow_tail(&traces) else {
        return Err("No request finished in this run.".to_owned());
    };
    let follow = view.follow.unwrap_or(anchor.index);
    let from = window_start(&anchor);
    let until = (anchor.finish + LINGER_S).clamp(from + MIN_SPAN_S, from + MAX_SPAN_S);
    let spec = TraceSpec {
        replica: anchor.replica,
        from,
        until,
        follow: Some(follow),
        end_after_follow: None,
    };
    let trace = trace_batch(&scenario, settings.seed, &spec).map_err(cannot)?;
    let by_index: HashMap<u64, &RequestTrace> = traces.iter().map(|t| (t.index, t)).collect();
    let main = timeline(&trace, settings, view.follow.is_none());
    let compare = match view.compare.other(settings) {
        Some((other, name)) => {
            let scenario_other = timeline_scenario(&other).map_err(cannot)?;
            // Open-loop arrivals at another load are the same requests, their times scaled by the rates' ratio.
            let scale = match (scenario.arrival_rate(), scenario_other.arrival_rate()) {
                (Some(rate), Some(other_rate)) if other_rate > 0.0 => rate / other_rate,
                _ => 1.0,
            };
            let from_other = from * scale;
            let spec = TraceSpec {
                replica: anchor.replica,
                from: from_other,
                until: from_other + MAX_SPAN_S,
                follow: Some(follow),
                end_after_follow: Some(EndAfterFollow {
                    linger: LINGER_S,
                    not_before: from_other + (until - from),
                }),
            };
            let trace = trace_batch(&scenario_other, settings.seed, &spec).map_err(cannot)?;
            Some((name, timeline(&trace, &other, view.follow.is_none())))
        }
        None => None,
    };
    let comparison = compare
        .as_ref()
        .map(|(name, other)| comparison_sentence(&main, name, other));
    let formula = formula(settings.preset, &main.iteration_model, main.longest_step());
    let requests = main
        .requests()
        .into_iter()
        .map(|index| RequestChoice {
            index,
            label: choice_label(index, by_index.get(&index).copied(), index == anchor.index),
        })
        .collect();
    Ok(TimelineFigures {
        main,
        compare,
        comparison,
        formula,
        requests,
        tail_pick: Some(anchor.index),
    })
}

/// Where the window around `request` opens: a little before it arrives, or — when its life is longer than a window
/// (a queue that hardly moves) — a little before its first token, so its prefill and decoding show.
fn window_start(request: &RequestTrace) -> f64 {
    let fits = MAX_SPAN_S - LEAD_S - LINGER_S;
    if request.finish - request.arrival <= fits {
        request.arrival - LEAD_S
    } else {
        (request.first_token - 0.3 * MAX_SPAN_S).max(request.arrival - LEAD_S)
    }
}

/// The request to follow by default: among the measured requests whose life fits a window (and that have a few
/// hundred requests before them, so the window is warm), the one at the 99th percentile of TTFT.
pub fn slow_tail(traces: &[RequestTrace]) -> Option<RequestTrace> {
    let first = traces.iter().map(|t| t.index).min()?;
    let fits = MAX_SPAN_S - LEAD_S - LINGER_S;
    let mut candidates: Vec<&RequestTrace> = traces
        .iter()
        .filter(|t| t.index >= first + 200 && t.finish - t.arrival <= fits)
        .collect();
    if candidates.is_empty() {
        candidates = traces.iter().collect();
    }
    candidates.sort_unstable_by(|a, b| {
        (a.first_token - a.arrival)
            .total_cmp(&(b.first_token - b.arrival))
            .then(a.index.cmp(&b.index))
    });
    // Around the 99th percentile (98.5th to 99.5th), the request with the most typical output: its decoding shows
    // as much as its wait.
    let n = candidates.len();
    let rank = |q: f64| ((q * n as f64).ceil() as usize).clamp(1, n) - 1;
    let mut outputs: Vec<u32> = candidates.iter().map(|t| t.output_tokens).collect();
    outputs.sort_unstable();
    let median_output = i64::from(outputs[n / 2]);
    candidates[rank(0.985)..=rank(0.995)]
        .iter()
        .min_by_key(|t| (i64::from(t.output_tokens) - median_output).abs())
        .map(|t| **t)
}

fn choice_label(index: u64, trace: Option<&RequestTrace>, tail: bool) -> String {
    let mut label = format!("#{index}");
    if let Some(t) = trace {
        label += &format!(
            ": TTFT {}, {} tokens",
            format_latency(t.first_token - t.arrival),
            t.output_tokens
        );
    }
    if tail {
        label += " (the slow-tail pick)";
    }
    label
}

/// A trace as the chart draws it.
pub fn timeline(trace: &BatchTrace, settings: &LabSettings, from_the_tail: bool) -> BatchTimeline {
    let followed_index = trace.followed.as_ref().map(|f| f.index);
    let steps: Vec<TimelineStep> = trace
        .iterations
        .iter()
        .map(|it| {
            let mine = followed_index.and_then(|index| {
                trace
                    .cells_of(it)
                    .iter()
                    .find(|c| c.request == index)
                    .map(|c| activity(c.work))
            });
            let waiting = trace.followed.as_ref().is_some_and(|f| {
                f.phases.iter().any(|p| {
                    p.kind == PhaseKind::Waiting && p.start <= it.start && it.start < p.end
                })
            });
            TimelineStep {
                number: it.number,
                start_s: it.start,
                end_s: it.end,
                prefill_tokens: it.prefill_tokens,
                decode_seqs: it.decode_seqs,
                context_tokens: it.context_tokens,
                busy_slots: it.busy_slots,
                waiting: it.waiting,
                kv_usage: trace
                    .kv_blocks
                    .filter(|&b| b > 0)
                    .map(|b| it.kv_blocks_used as f64 / b as f64),
                preempted: it.preempted,
                followed: mine.or(waiting.then_some((Activity::Waiting, 0))),
            }
        })
        .collect();
    let runs = slot_runs(trace);
    let followed = trace.followed.as_ref().map(|f| {
        let slot = runs
            .iter()
            .rev()
            .find(|r| r.request == f.index)
            .map(|r| r.slot);
        followed_bar(f, slot, &steps, from_the_tail)
    });
    BatchTimeline {
        offered_load: settings.load(),
        chunked_prefill: trace.chunked_prefill,
        token_budget: trace.max_num_batched_tokens,
        max_num_seqs: trace.max_num_seqs,
        window: (trace.from, trace.until),
        steps,
        runs,
        followed,
        iteration_model: trace.iteration_model.clone(),
        kv_blocks: trace.kv_blocks,
        truncated: trace.truncated,
        note: None,
    }
}

fn activity(work: Work) -> (Activity, u64) {
    match work {
        Work::Prefill {
            tokens, recompute, ..
        } => (
            if recompute {
                Activity::Recompute
            } else {
                Activity::Prefill
            },
            u64::from(tokens),
        ),
        Work::Stalled => (Activity::Stalled, 0),
        Work::Decode => (Activity::Decode, 1),
        Work::Preempted => (Activity::Preempted, 0),
    }
}

/// The trace's cells merged along each row: a sequence doing the same thing in consecutive iterations is one run.
fn slot_runs(trace: &BatchTrace) -> Vec<SlotRun> {
    let mut runs = Vec::new();
    let mut open: Vec<Option<SlotRun>> = vec![None; trace.max_num_seqs as usize];
    for it in &trace.iterations {
        let mut touched = vec![false; open.len()];
        for cell in trace.cells_of(it) {
            let (activity, tokens) = activity(cell.work);
            let slot = cell.slot as usize;
            if activity == Activity::Preempted {
                runs.extend(open[slot].take());
                runs.push(SlotRun {
                    slot: cell.slot,
                    request: cell.request,
                    activity,
                    start_s: it.start,
                    end_s: it.start,
                    tokens: 0,
                });
                continue;
            }
            touched[slot] = true;
            match open[slot].as_mut() {
                Some(run)
                    if run.request == cell.request
                        && run.activity == activity
                        && run.end_s == it.start =>
                {
                    run.end_s = it.end;
                    run.tokens += tokens;
                }
                _ => {
                    runs.extend(open[slot].take());
                    open[slot] = Some(SlotRun {
                        slot: cell.slot,
                        request: cell.request,
                        activity,
                        start_s: it.start,
                        end_s: it.end,
                        tokens,
                    });
                }
            }
        }
        for (slot, touched) in touched.into_iter().enumerate() {
            if !touched {
                runs.extend(open[slot].take());
            }
        }
    }
    runs.extend(open.into_iter().flatten());
    runs
}

fn followed_bar(
    f: &FollowedRequest,
    slot: Option<u32>,
    steps: &[TimelineStep],
    from_the_tail: bool,
) -> FollowedBar {
    let mut segments = Vec::new();
    for phase in &f.phases {
        match phase.kind {
            PhaseKind::Waiting => {
                segments.push(segment(Activity::Waiting, phase.start, phase.end, 0))
            }
            PhaseKind::Decode => segments.push(segment(
                Activity::Decode,
                phase.start,
                phase.end,
                phase.tokens,
            )),
            PhaseKind::Prefill | PhaseKind::Recompute => {
                // Its chunks, and between them the iterations in which the budget ran out before its turn.
                let kind = if phase.kind == PhaseKind::Prefill {
                    Activity::Prefill
                } else {
                    Activity::Recompute
                };
                let mut at = phase.start;
                for chunk in f
                    .chunks
                    .iter()
                    .filter(|c| c.start >= phase.start && c.end <= phase.end)
                {
                    if chunk.start > at {
                        segments.push(segment(Activity::Stalled, at, chunk.start, 0));
                    }
                    segments.push(segment(
                        kind,
                        chunk.start,
                        chunk.end,
                        u64::from(chunk.tokens),
                    ));
                    at = chunk.end;
                }
                if phase.end > at {
                    segments.push(segment(Activity::Stalled, at, phase.end, 0));
                }
            }
        }
    }
    let first_wait = f.phases.first().filter(|p| p.kind == PhaseKind::Waiting);
    let wait_s = first_wait.map_or(0.0, |p| p.duration());
    let wait_reason = match first_wait {
        Some(p) if p.duration() >= 0.0005 => {
            let slots_full =
                f64::from(p.iterations_with_slots_full) / f64::from(p.iterations.max(1));
            let during: Vec<f64> = steps
                .iter()
                .filter(|s| s.start_s >= p.start && s.start_s < p.end)
                .filter_map(|s| s.kv_usage)
                .collect();
            let kv_full =
                during.iter().filter(|&&u| u >= 0.95).count() as f64 / during.len().max(1) as f64;
            if slots_full >= 0.5 {
                WaitReason::Slot
            } else if kv_full >= 0.5 {
                WaitReason::KvCache
            } else {
                WaitReason::EarlierPrompts
            }
        }
        _ => WaitReason::None,
    };
    FollowedBar {
        request: f.index,
        slot,
        prompt_tokens: f.prompt_tokens,
        output_tokens: f.output_tokens,
        arrival_s: f.arrival,
        first_token_s: f.first_token,
        finish_s: f.finish,
        segments,
        chunks: f.chunk_count(),
        preemptions: f.preemptions,
        wait_s,
        wait_reason,
        longest_step_s: f
            .phases
            .iter()
            .filter(|p| p.kind == PhaseKind::Decode)
            .map(|p| p.longest_step)
            .fold(0.0, f64::max),
        from_the_tail,
    }
}

fn segment(activity: Activity, start_s: f64, end_s: f64, tokens: u64) -> BarSegment {
    BarSegment {
        activity,
        start_s,
        end_s,
        tokens,
    }
}

/// A coefficient of the step-time model in the unit that reads best: "5.5 ms", "12 µs", "30 ns".
pub fn format_coefficient(seconds: f64) -> String {
    let (value, unit) = if seconds >= 1e-3 {
        (seconds * 1e3, "ms")
    } else if seconds >= 1e-6 {
        (seconds * 1e6, "µs")
    } else {
        (seconds * 1e9, "ns")
    };
    let text = format!("{value:.2}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{text} {unit}")
}

/// The formula for `preset`'s coefficients, with `example` worked through.
pub fn formula(
    preset: Preset,
    model: &IterationModel,
    example: Option<&TimelineStep>,
) -> StepFormula {
    let source = match preset {
        Preset::Course => {
            "The course box's own estimate from H100 figures (memory bandwidth to stream the weights and the KV \
             cache, FP8 compute for prefill), checked against public vLLM measurements."
        }
        Preset::DistServe => {
            "DistServe's simulator (simdistserve) fitted these to OPT-13B on one A100; its quadratic prefill term is \
             taken at the mean prompt."
        }
        Preset::Textbook => "The textbook queue has no iterations.",
        Preset::Yours => {
            "Fitted by least squares to your server's own benchmark or scrapes (the fit report under Your server \
             gives each coefficient's uncertainty)."
        }
    };
    StepFormula {
        terms: [
            ("fixed", format_coefficient(model.fixed)),
            (
                "per prefill token",
                format_coefficient(model.per_prefill_token),
            ),
            (
                "per decoding sequence",
                format_coefficient(model.per_decode_seq),
            ),
            (
                "per context token",
                format_coefficient(model.per_context_token),
            ),
        ],
        compute: model
            .compute
            .as_ref()
            .map(|c| [format_coefficient(c.fixed), format_coefficient(c.per_token)]),
        source,
        example: example.map(|step| worked_step(model, step)),
    }
}

/// The worked iteration as the widget says it: "Check it on iteration 7103 (…): 2048 prefill tokens, … give
/// 5.5 + 24.6 + 1.9 + 0.6 ms = 32.6 ms, the length the simulation gave it", or with a compute term "… give the
/// larger of … ms (memory) and … ms (compute), plus … ms of KV read, 107.8 ms, …".
pub fn worked_sentence(e: &WorkedStep) -> String {
    let [fixed, prefill, decode, context] = &e.terms_ms;
    let sum = match &e.compute_ms {
        None => format!("{fixed} + {prefill} + {decode} + {context} ms = {}", e.total),
        Some([compute_fixed, tokens]) => format!(
            "the larger of {fixed} + {prefill} + {decode} ms (memory) and {compute_fixed} + {tokens} ms \
             (compute), plus {context} ms of KV read, {}",
            e.total
        ),
    };
    format!(
        "Check it on iteration {} (the longest here, a row of the data table): {} prefill tokens, {} decoding \
         sequences, {} context tokens give {sum}, the length the simulation gave it.",
        e.iteration, e.prefill_tokens, e.decode_seqs, e.context_tokens
    )
}

/// `step`'s length term by term, in both regimes when the model has two.
fn worked_step(model: &IterationModel, step: &TimelineStep) -> WorkedStep {
    let ms = |s: f64| format!("{:.1}", s * 1000.0);
    let memory = IterationModel {
        compute: None,
        ..model.clone()
    }
    .cost(step.prefill_tokens, step.decode_seqs, step.context_tokens);
    let tokens = (step.prefill_tokens + step.decode_seqs) as f64;
    WorkedStep {
        iteration: step.number,
        prefill_tokens: step.prefill_tokens,
        decode_seqs: step.decode_seqs,
        context_tokens: step.context_tokens,
        terms_ms: [memory.fixed, memory.prefill, memory.decode, memory.context].map(ms),
        compute_ms: model
            .compute
            .as_ref()
            .map(|c| [ms(c.fixed), ms(c.per_token * tokens)]),
        total: format_latency(step.end_s - step.start_s),
    }
}

/// What changed from `main` to `other`: the longest iteration, the slots, the queue, and the followed request.
pub fn comparison_sentence(main: &BatchTimeline, name: &str, other: &BatchTimeline) -> String {
    let longest = |t: &BatchTimeline| t.longest_step().map_or(0.0, |s| s.end_s - s.start_s);
    let mut parts = vec![
        format!(
            "the longest iteration takes {} (here {})",
            format_latency(longest(other)),
            format_latency(longest(main))
        ),
        format!(
            "every slot is busy in {} of iterations (here {})",
            percent(other.slots_full_share()),
            percent(main.slots_full_share())
        ),
        format!(
            "up to {} requests wait (here {})",
            other.max_waiting(),
            main.max_waiting()
        ),
    ];
    if let (Some(a), Some(b)) = (&main.followed, &other.followed) {
        if let (Some(ta), Some(tb)) = (a.ttft_s(), b.ttft_s()) {
            parts.push(format!(
                "request #{}'s TTFT is {} (here {})",
                b.request,
                format_latency(tb),
                format_latency(ta)
            ));
        }
        if let (Some(pa), Some(pb)) = (a.tpot_s(), b.tpot_s()) {
            parts.push(format!(
                "its TPOT {} (here {})",
                format_latency(pb),
                format_latency(pa)
            ));
        }
    }
    format!("With {name}: {}.", parts.join("; "))
}

fn percent(share: f64) -> String {
    format!("{:.0}%", share * 100.0)
}
