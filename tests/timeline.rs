//! The batch timeline at the lab's settings: what it shows comes from the model (the same run `run_traced` reports),
//! the followed request is from the slow tail, the comparison keeps the same requests, and the chart's picture,
//! summary and table agree.

use goodput::charts::{chart_svg, Activity, BatchTimeline, Chart, ChartStyle, MAX_ROWS};
use goodput::lab::timeline::{
    formula, slow_tail, timeline, timeline_figures, worked_sentence, Compare, TimelineView,
    REQUESTS, WARM_UP,
};
use goodput::lab::{scenario_for, LabSettings, Preset};
use goodput::model::run_traced;

fn at(load_percent: u32) -> LabSettings {
    LabSettings {
        load_percent,
        ..LabSettings::default()
    }
}

fn small_budget(load_percent: u32, chunked_prefill: bool) -> LabSettings {
    LabSettings {
        max_num_batched_tokens: Some(2048),
        chunked_prefill,
        ..at(load_percent)
    }
}

fn view(compare: Compare) -> TimelineView {
    TimelineView {
        compare,
        follow: None,
    }
}

fn main_timeline(settings: &LabSettings) -> BatchTimeline {
    timeline_figures(settings, &TimelineView::default()).main
}

/// The prefill tokens of each run's cells in one iteration, by slot.
fn check_runs_against_steps(t: &BatchTimeline) {
    for run in &t.runs {
        assert!(
            run.slot < t.max_num_seqs,
            "slot {} of {}",
            run.slot,
            t.max_num_seqs
        );
        assert!(run.start_s >= t.window.0 && run.end_s <= t.window.1 + 10.0);
    }
    // Busy slots per iteration equal the runs covering it.
    for step in &t.steps {
        let covering = t
            .runs
            .iter()
            .filter(|r| {
                r.activity != Activity::Preempted
                    && r.start_s <= step.start_s
                    && step.end_s <= r.end_s
            })
            .count();
        assert_eq!(
            covering as u32, step.busy_slots,
            "iteration {}",
            step.number
        );
        assert!(step.busy_slots <= t.max_num_seqs);
        let model = t.step_cost(step).total();
        assert!(
            (model - (step.end_s - step.start_s)).abs() < 1e-9,
            "the formula gives the length"
        );
    }
}

#[test]
fn the_timeline_shows_the_lab_s_replica_from_the_model() {
    for settings in [
        at(85),
        at(99),
        small_budget(90, true),
        small_budget(90, false),
    ] {
        let figures = timeline_figures(&settings, &view(Compare::Nothing));
        let t = &figures.main;
        assert!(t.note.is_none(), "{:?}", t.note);
        assert!(!t.steps.is_empty());
        check_runs_against_steps(t);
        let span = t.window.1 - t.window.0;
        assert!((2.0..=10.0 + 1e-9).contains(&span), "a window of {span} s");
        assert!(!t.truncated);
        // The followed request is the run's own request, at the 99th percentile of TTFT among those that fit.
        let scenario = {
            let mut s = scenario_for(&settings, settings.load()).unwrap();
            s.customers = REQUESTS;
            s.warm_up = WARM_UP;
            s
        };
        let (_, traces) = run_traced(&scenario, settings.seed, usize::MAX).unwrap();
        let pick = slow_tail(&traces).unwrap();
        let f = t.followed.as_ref().expect("a followed request");
        assert_eq!(f.request, pick.index);
        assert_eq!(figures.tail_pick, Some(pick.index));
        assert!(f.from_the_tail);
        assert_eq!(f.arrival_s, pick.arrival);
        assert_eq!(f.first_token_s, Some(pick.first_token));
        assert_eq!(f.finish_s, Some(pick.finish));
        let ttft = pick.first_token - pick.arrival;
        let slower = traces
            .iter()
            .filter(|r| r.first_token - r.arrival > ttft)
            .count();
        assert!(
            slower as f64 <= 0.02 * traces.len() as f64,
            "{slower} of {} requests have a slower TTFT than the pick",
            traces.len()
        );
        // Its bar: from arrival to last token, without gaps, adding up to its e2e.
        let total: f64 = f.segments.iter().map(|s| s.end_s - s.start_s).sum();
        assert!((total - f.e2e_s().unwrap()).abs() < 1e-9);
        for pair in f.segments.windows(2) {
            assert_eq!(pair[0].end_s, pair[1].start_s);
        }
        // It is in the picker, marked.
        let choice = figures
            .requests
            .iter()
            .find(|c| c.index == f.request)
            .expect("listed");
        assert!(choice.label.contains("slow-tail pick"), "{}", choice.label);
    }
}

#[test]
fn at_99_percent_the_slots_fill_and_a_queue_forms_that_85_percent_does_not_have() {
    let low = main_timeline(&at(85));
    let high = main_timeline(&at(99));
    assert!(
        high.slots_full_share() > low.slots_full_share() + 0.3,
        "slots full in {} of iterations at 99%, {} at 85%",
        high.slots_full_share(),
        low.slots_full_share()
    );
    assert!(high.max_waiting() > low.max_waiting() + 5);
    let (lf, hf) = (
        low.followed.clone().unwrap(),
        high.followed.clone().unwrap(),
    );
    assert!(
        hf.wait_s > 3.0 * lf.wait_s,
        "the tail request waits longer at 99%"
    );
    assert_eq!(
        hf.wait_reason,
        goodput::charts::WaitReason::Slot,
        "at 99% it waits for a slot"
    );
    let summary = goodput::charts::timeline_summary(&high);
    assert!(
        summary.starts_with("At 99% load, chunked prefill on, every slot is busy in"),
        "{summary}"
    );
    assert!(
        summary.contains(&format!("request #{} waited", hf.request)),
        "{summary}"
    );
    assert!(summary.contains("for a slot"), "{summary}");
}

#[test]
fn with_a_budget_smaller_than_the_prompts_chunking_caps_the_iteration_and_off_a_whole_prompt_stalls_it(
) {
    let on = main_timeline(&small_budget(90, true));
    let off = main_timeline(&small_budget(90, false));
    let most = |t: &BatchTimeline| {
        t.steps
            .iter()
            .map(|s| s.prefill_tokens + s.decode_seqs)
            .max()
            .unwrap()
    };
    assert!(most(&on) <= 2048, "chunked: never more than the budget");
    assert!(
        most(&off) > 2048,
        "unchunked: a whole long prompt rides over the budget"
    );
    let longest = |t: &BatchTimeline| t.longest_step().map(|s| s.end_s - s.start_s).unwrap();
    assert!(longest(&off) > longest(&on), "the stall chunking removes");
    // Chunks show in the cells: some prompt prefills over more than one iteration when chunked, never when not.
    let split = |t: &BatchTimeline| {
        t.runs.iter().any(|r| {
            r.activity == Activity::Prefill
                && t.steps
                    .iter()
                    .filter(|s| r.start_s <= s.start_s && s.end_s <= r.end_s)
                    .count()
                    > 1
        })
    };
    assert!(split(&on));
    assert!(!split(&off));
}

#[test]
fn the_comparison_keeps_the_same_requests_and_says_what_changed() {
    let settings = small_budget(90, true);
    let figures = timeline_figures(&settings, &view(Compare::Chunking));
    let (name, other) = figures.compare.as_ref().expect("a comparison");
    assert_eq!(name, "chunked prefill off");
    assert!(!other.chunked_prefill && figures.main.chunked_prefill);
    let (a, b) = (
        figures.main.followed.as_ref().unwrap(),
        other.followed.as_ref().unwrap(),
    );
    assert_eq!(a.request, b.request, "the same request in both");
    assert_eq!(a.arrival_s, b.arrival_s, "same seed, same arrivals");
    assert_eq!(other.window.0, figures.main.window.0, "the same window");
    let sentence = figures.comparison.as_ref().unwrap();
    assert!(
        sentence.starts_with("With chunked prefill off: the longest iteration takes"),
        "{sentence}"
    );
    // At another load: the same request, arriving at its time scaled by the rates.
    let figures = timeline_figures(&at(90), &view(Compare::Load99));
    let (name, other) = figures.compare.as_ref().unwrap();
    assert_eq!(name, "99% load");
    let (a, b) = (
        figures.main.followed.as_ref().unwrap(),
        other.followed.as_ref().unwrap(),
    );
    assert_eq!(a.request, b.request);
    assert!((b.arrival_s - a.arrival_s * 0.90 / 0.99).abs() < 1e-6 * a.arrival_s);
    assert!(b.arrival_s >= other.window.0 && b.arrival_s <= other.window.1);
    // Nothing to compare with the load already asked for.
    assert!(timeline_figures(&at(99), &view(Compare::Load99))
        .compare
        .is_none());
}

#[test]
fn following_another_request_keeps_the_window() {
    let settings = at(95);
    let default = timeline_figures(&settings, &TimelineView::default());
    let other = default
        .requests
        .iter()
        .map(|c| c.index)
        .find(|&i| Some(i) != default.tail_pick)
        .unwrap();
    let chosen = timeline_figures(
        &settings,
        &TimelineView {
            follow: Some(other),
            ..TimelineView::default()
        },
    );
    assert_eq!(chosen.main.window, default.main.window);
    assert_eq!(chosen.main.runs, default.main.runs, "the same picture");
    let f = chosen.main.followed.clone().unwrap();
    assert_eq!(f.request, other);
    assert!(!f.from_the_tail);
    // A click on one of its cells picks it.
    let run = chosen
        .main
        .runs
        .iter()
        .find(|r| r.request == other && r.end_s > r.start_s)
        .unwrap();
    let rows = f64::from(chosen.main.rows());
    let fraction = (f64::from(run.slot) + 0.5) / rows;
    assert_eq!(
        chosen
            .main
            .request_at(fraction, (run.start_s + run.end_s) / 2.0),
        Some(other)
    );
    assert_eq!(chosen.main.request_at(1.5, run.start_s), None);
}

#[test]
fn the_formula_beside_the_timeline_gives_each_iteration_s_length() {
    let figures = timeline_figures(&at(90), &TimelineView::default());
    let terms: Vec<String> = figures
        .formula
        .terms
        .iter()
        .map(|(_, c)| c.clone())
        .collect();
    assert_eq!(terms, ["5.5 ms", "12 µs", "30 µs", "30 ns"]);
    assert_eq!(
        figures.formula.compute, None,
        "the course box is memory-bound only"
    );
    let example = figures
        .formula
        .example
        .as_ref()
        .expect("a worked iteration");
    let longest = figures.main.longest_step().unwrap();
    assert_eq!(example.iteration, longest.number);
    let sum: f64 = example
        .terms_ms
        .iter()
        .map(|t| t.parse::<f64>().unwrap())
        .sum();
    assert!(
        (sum - (longest.end_s - longest.start_s) * 1000.0).abs() < 0.25,
        "terms add up to the length"
    );
    let distserve = LabSettings {
        preset: Preset::DistServe,
        ..at(90)
    };
    let figures = timeline_figures(&distserve, &TimelineView::default());
    let terms: Vec<String> = figures
        .formula
        .terms
        .iter()
        .map(|(_, c)| c.clone())
        .collect();
    assert_eq!(terms, ["19.9 ms", "97.9 µs", "39 µs", "630 ns"]);
    assert!(figures.formula.source.contains("DistServe"));
}

#[test]
fn the_table_lists_every_iteration_with_what_the_formula_needs() {
    let t = main_timeline(&at(99));
    let table = t.table();
    assert_eq!(table.rows.len(), t.steps.len());
    assert_eq!(
        &table.header[..8],
        [
            "Iteration",
            "Start (s)",
            "Length (ms)",
            "Prefill tokens",
            "Decoding",
            "Context tokens",
            "Busy slots",
            "Waiting"
        ]
    );
    let f = t.followed.as_ref().unwrap();
    assert_eq!(
        table.header.last().unwrap(),
        &format!("Request #{}", f.request)
    );
    let column: Vec<&str> = table
        .rows
        .iter()
        .map(|r| r.last().unwrap().as_str())
        .collect();
    assert!(column.contains(&"waiting") && column.contains(&"decode"));
    assert!(column.iter().any(|c| c.starts_with("prefill ")));
    // The course box has a KV budget: the cache's use is a column too.
    assert!(table.header.contains(&"KV cache in use".to_owned()));
}

#[test]
fn on_the_kv_bound_preset_preemptions_and_recomputes_show() {
    let settings = LabSettings {
        preset: Preset::DistServe,
        gpu_memory_utilization: 0.8,
        ..at(99)
    };
    let t = main_timeline(&settings);
    check_runs_against_steps(&t);
    let preempted: u32 = t.steps.iter().map(|s| s.preempted).sum();
    assert!(preempted > 0, "the cache runs out in the window");
    assert!(t.runs.iter().any(|r| r.activity == Activity::Preempted));
    assert!(t.runs.iter().any(|r| r.activity == Activity::Recompute));
    let summary = goodput::charts::timeline_summary(&t);
    assert!(summary.contains("sequences are preempted"), "{summary}");
}

#[test]
fn a_batch_larger_than_the_rows_is_summarised_and_the_textbook_queue_has_none() {
    let wide = LabSettings {
        max_num_seqs: 256,
        max_num_batched_tokens: Some(16_384),
        ..at(95)
    };
    let t = main_timeline(&wide);
    assert!(t.has_overflow() && t.rows() == MAX_ROWS);
    assert!(t.steps.iter().any(|s| s.busy_slots > MAX_ROWS));
    let svg = chart_svg(&t, &ChartStyle::default(), 1000, 600).unwrap();
    assert!(svg.contains("\n+192\n"), "the summary row is labelled");
    let textbook = main_timeline(&LabSettings {
        preset: Preset::Textbook,
        ..at(90)
    });
    assert!(textbook.note.as_ref().unwrap().contains("no batch"));
    assert_eq!(textbook.summary(), textbook.note.clone().unwrap());
    chart_svg(&textbook, &ChartStyle::default(), 640, 320).unwrap();
    // Settings the model refuses say why.
    let refused = main_timeline(&LabSettings {
        max_num_batched_tokens: Some(32),
        ..at(90)
    });
    assert!(refused
        .note
        .unwrap()
        .contains("service.llm.max_num_batched_tokens"));
}

/// A server calibrated from the two `vllm bench serve` results the browser test loads: its fitted step time is the
/// model's `max(memory, compute)` form, with every prompt token's cost in the compute term.
fn calibrated_timeline(load: f64) -> BatchTimeline {
    use goodput::model::{trace_batch, Arrivals, TraceSpec};
    use goodput_calibrate::inputs::InputFile;
    use goodput_calibrate::{calibrate, ServerFlags};
    let files: Vec<InputFile> = ["light-0.3rps.json", "light-0.8rps.json"]
        .into_iter()
        .map(|name| {
            let path = format!(
                "{}/tests/fixtures/your-server/{name}",
                env!("CARGO_MANIFEST_DIR")
            );
            InputFile {
                name: name.to_owned(),
                text: std::fs::read_to_string(&path).expect("the fixture is readable"),
            }
        })
        .collect();
    let flags = ServerFlags {
        max_num_seqs: Some(64),
        max_num_batched_tokens: Some(4096),
        chunked_prefill: Some(true),
        ..ServerFlags::default()
    };
    let mut scenario = calibrate(&files, &flags)
        .expect("the fixtures calibrate")
        .scenario;
    scenario.arrivals = Arrivals::Open {
        offered_load: load,
        cv: 1.0,
    };
    scenario.customers = REQUESTS;
    scenario.warm_up = WARM_UP;
    let settings = LabSettings {
        preset: Preset::Yours,
        ..LabSettings::default()
    };
    let (_, traces) = run_traced(&scenario, settings.seed, usize::MAX).unwrap();
    let anchor = slow_tail(&traces).unwrap();
    let spec = TraceSpec {
        replica: anchor.replica,
        from: anchor.arrival - 0.6,
        until: anchor.finish + 0.25,
        follow: Some(anchor.index),
        end_after_follow: None,
    };
    let trace = trace_batch(&scenario, settings.seed, &spec).unwrap();
    timeline(&trace, &settings, true)
}

#[test]
fn with_a_calibrated_server_each_bar_s_prefill_share_and_the_worked_formula_add_up() {
    let t = calibrated_timeline(0.9);
    assert!(
        t.iteration_model.compute.is_some(),
        "the fit's compute term"
    );
    let with_prefill: Vec<_> = t.steps.iter().filter(|s| s.prefill_tokens > 0).collect();
    assert!(
        !with_prefill.is_empty(),
        "prompts are prefilled in the window"
    );
    for step in &t.steps {
        let cost = t.step_cost(step);
        let length = step.end_s - step.start_s;
        assert!(
            (cost.total() - length).abs() < 1e-9,
            "iteration {}: the parts {cost:?} add up to its length {length}",
            step.number
        );
    }
    // The fit puts a prompt token's cost in the compute term: a bar's prefill share is drawn from it.
    assert!(
        with_prefill.iter().all(|s| {
            let cost = t.step_cost(s);
            !cost.compute_bound || cost.prefill > 0.0
        }),
        "every compute-bound bar with prefill tokens has a prefill share"
    );
    assert!(with_prefill.iter().any(|s| t.step_cost(s).prefill > 0.0));
    let formula = formula(Preset::Yours, &t.iteration_model, t.longest_step());
    assert!(formula.compute.is_some());
    assert!(
        formula.text().starts_with("step time = the larger of "),
        "{}",
        formula.text()
    );
    let example = formula.example.as_ref().expect("a worked iteration");
    let longest = t.longest_step().unwrap();
    let sum =
        |terms: &[String]| -> f64 { terms.iter().map(|term| term.parse::<f64>().unwrap()).sum() };
    let compute = example
        .compute_ms
        .as_ref()
        .expect("the compute time worked too");
    let length = sum(&example.terms_ms[..3]).max(sum(compute)) + sum(&example.terms_ms[3..]);
    assert!(
        (length - (longest.end_s - longest.start_s) * 1000.0).abs() < 0.25,
        "the larger of {:?} and {compute:?}, plus the KV read, is {}",
        example.terms_ms,
        example.total
    );
    let sentence = worked_sentence(example);
    assert!(sentence.contains("(compute)"), "{sentence}");
}
