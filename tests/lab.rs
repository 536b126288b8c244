//! The knee lab without the page: settings from the lesson and the URL, the sliced sweep, and the figures.

use goodput::charts::format::format_latency;
use goodput::charts::{distribution_summary, LatencyMetric, LatencyScale};
use goodput::lab::settings::{lab_keys, query_pairs, LOAD_PERCENT_RANGE};
use goodput::lab::{sweep_for, Figures, LabSettings, LoopKind, Preset, ReadoutKey};
use goodput::lesson::SettingValue;
use goodput::model::SlicedSweep;
use goodput::model::{default_load_points, sweep};
use proptest::prelude::*;
use std::collections::BTreeMap;

fn directive(pairs: &[(&str, SettingValue)]) -> BTreeMap<String, SettingValue> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), v.clone()))
        .collect()
}

#[test]
fn the_directive_sets_the_defaults_and_names_what_it_cannot_use() {
    let (lab, notes) = LabSettings::from_directive(&directive(&[
        ("load", SettingValue::Number(0.9)),
        ("loop", SettingValue::Text("closed".into())),
        ("slo_ttft_ms", SettingValue::Number(300.0)),
        ("chunked_prefill", SettingValue::Bool(false)),
    ]));
    assert!(notes.is_empty(), "{notes:?}");
    assert_eq!(lab.load_percent, 90);
    assert_eq!(lab.loop_kind, LoopKind::Closed);
    assert_eq!(lab.slo_ttft_ms, 300.0);
    assert!(!lab.chunked_prefill);

    let (lab, notes) = LabSettings::from_directive(&directive(&[
        ("load", SettingValue::Number(3.0)),
        ("colour", SettingValue::Text("red".into())),
    ]));
    assert_eq!(lab.load_percent, 85);
    let messages: Vec<&str> = notes.iter().map(|n| n.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "the lab has no setting called \"colour\"; ignored",
            "load=3 is below 85% (read as 3%: a fraction is at most 1.2); using 85%"
        ]
    );
}

#[test]
fn the_url_overrides_the_lesson_and_clamps_with_a_note() {
    let defaults = LabSettings::default();
    let (lab, notes) =
        defaults.with_query("?present=1&load=97&loop=closed&preset=textbook&replicas=4");
    assert!(notes.is_empty(), "{notes:?}");
    assert_eq!(
        (lab.load_percent, lab.loop_kind, lab.preset, lab.replicas),
        (97, LoopKind::Closed, Preset::Textbook, 4)
    );

    let (lab, notes) =
        defaults.with_query("load=150&replicas=0&preset=gpu&slo_ttft_ms=abc&metric=p99&seed=-3");
    assert_eq!(lab.load_percent, LOAD_PERCENT_RANGE.1);
    assert_eq!(lab.replicas, 1);
    assert_eq!(lab.preset, Preset::Course);
    assert_eq!(lab.slo_ttft_ms, 500.0);
    assert_eq!(lab.metric, LatencyMetric::Ttft);
    assert_eq!(lab.seed, defaults.seed);
    let messages: Vec<&str> = notes.iter().map(|n| n.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "load=150 is above 100% (past 100% needs a queue_cap); using 100%",
            "replicas=0 is below 1; using 1",
            "preset=\"gpu\" is not one of course, distserve, textbook, yours; using course",
            "slo_ttft_ms=\"abc\" is not a number; using 500 ms",
            "metric=\"p99\" is not one of ttft, tpot, e2e; using ttft",
            "seed=\"-3\" is not a whole number; using 11",
        ]
    );

    let (lab, notes) = defaults.with_query("load=0.905");
    assert_eq!(lab.load_percent, 91);
    assert_eq!(
        notes[0].message,
        "load=0.905 is between whole percentages; using 91%"
    );
}

#[test]
fn the_query_round_trips_and_keeps_the_rest_of_the_page_s_parameters() {
    let defaults = LabSettings::default();
    let mut lab = defaults.clone();
    lab.load_percent = 97;
    lab.loop_kind = LoopKind::Closed;
    lab.slo_tpot_ms = 37.5;
    lab.chunked_prefill = false;
    let query = lab.merge_into_query("present=1&load=85&screen=4", &defaults);
    assert_eq!(
        query,
        "present=1&screen=4&load=0.97&loop=closed&chunked_prefill=off&slo_tpot_ms=37.5"
    );
    let (back, notes) = defaults.with_query(&query);
    assert!(notes.is_empty());
    assert_eq!(back, lab);
    assert_eq!(defaults.merge_into_query("", &defaults), "");
}

#[test]
fn query_pairs_decode_escapes_and_keep_bad_ones_literally() {
    assert_eq!(
        query_pairs("?a=1%2B1&b=x+y&c=%zz&d"),
        [
            ("a".to_owned(), "1+1".to_owned()),
            ("b".to_owned(), "x y".to_owned()),
            ("c".to_owned(), "%zz".to_owned()),
            ("d".to_owned(), String::new()),
        ]
    );
}

proptest! {
    #[test]
    fn any_lab_parameter_value_is_clamped_to_a_scenario_the_model_accepts(
        key in proptest::sample::select(lab_keys().collect::<Vec<_>>()),
        value in ".{0,40}",
        preset in proptest::sample::select(Preset::ALL.to_vec()),
    ) {
        let start = LabSettings { preset, ..LabSettings::default() };
        let (lab, _) = start.with_query(&format!("{key}={value}"));
        prop_assert!(sweep_for(&lab, &default_load_points()).is_ok());
    }
}

/// A value a URL, a field or a synced window might give any lab setting: in range, out of range, fractional,
/// huge, a choice's key, or junk.
fn any_value() -> impl Strategy<Value = String> {
    prop_oneof![
        (0u32..70_000).prop_map(|n| n.to_string()),
        (-10.0f64..100.0).prop_map(|x| format!("{x:.3}")),
        proptest::sample::select(vec![
            "0",
            "1",
            "16",
            "32",
            "63",
            "64",
            "65",
            "1024",
            "65536",
            "1e9",
            "-1",
            "NaN",
            "inf",
            "0.4",
            "0.95",
            "on",
            "off",
            "preset",
            "open",
            "closed",
            "textbook",
            "course",
            "distserve",
            "ttft",
            "tpot",
            "e2e",
            "97%",
            "",
        ])
        .prop_map(str::to_owned),
        ".{0,12}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]
    /// Every field at once, in and out of range, numbers and junk: whatever the clamps let through, the reconciled
    /// settings simulate, and the notes speak the learner's words, never the model's field paths.
    #[test]
    fn whole_settings_from_anywhere_always_simulate(
        values in proptest::collection::vec((any::<bool>(), any_value()), lab_keys().count()),
    ) {
        let query = lab_keys()
            .zip(&values)
            .filter(|(_, (given, _))| *given)
            .map(|(key, (_, value))| format!("{key}={}", value.replace(['&', '#'], "")))
            .collect::<Vec<_>>()
            .join("&");
        let (clamped, clamp_notes) = LabSettings::default().with_query(&query);
        let (lab, notes) = clamped.reconciled();
        prop_assert_eq!(notes.is_empty(), lab == clamped, "a change without a note, or a note without one");
        let mut sweep = sweep_for(&lab, &default_load_points()).expect("reconciled settings simulate");
        sweep.step(200);
        prop_assert!(sweep.points().any(|(_, estimate)| estimate.is_some()), "no estimate after a slice");
        for note in clamp_notes.iter().chain(&notes) {
            prop_assert!(!note.message.contains("service."), "internal path in {:?}", note.message);
        }
        prop_assert_eq!(lab.reconciled(), (lab.clone(), Vec::new()), "reconciling twice changes nothing more");
    }
}

#[test]
fn a_token_budget_below_the_sequences_is_raised_with_a_note() {
    let (clamped, clamp_notes) = LabSettings::default().with_query("max_num_batched_tokens=32");
    assert!(
        clamp_notes.is_empty(),
        "32 is within the field's own range: {clamp_notes:?}"
    );
    assert!(
        sweep_for(&clamped, &default_load_points()).is_err(),
        "the clash this guards against"
    );
    let (lab, notes) = clamped.reconciled();
    assert_eq!(lab.max_num_batched_tokens, Some(64));
    assert_eq!(notes.len(), 1);
    assert!(
        notes[0]
            .message
            .starts_with("token budget (--max-num-batched-tokens) raised from 32 to 64"),
        "{}",
        notes[0].message
    );
    assert!(sweep_for(&lab, &default_load_points()).is_ok());
    // The textbook queue has no budget: nothing to reconcile.
    let textbook = LabSettings {
        preset: Preset::Textbook,
        max_num_batched_tokens: Some(32),
        ..clamped
    };
    assert_eq!(textbook.reconciled().1, Vec::new());
}

/// Runs a sliced sweep to the end in slices of `budget`, returning how many slices ended a pass.
fn run_to_end(sweep: &mut SlicedSweep, budget: u64) -> usize {
    let mut passes = 0;
    for _ in 0..100_000 {
        if sweep.is_done() {
            return passes;
        }
        if sweep.step(budget) {
            passes += 1;
        }
    }
    panic!("the sweep never finished");
}

#[test]
fn the_sliced_sweep_ends_with_exactly_the_full_sweep() {
    let settings = LabSettings::default();
    let loads = default_load_points();
    let mut sliced = sweep_for(&settings, &loads).unwrap();
    assert_eq!(sliced.passes_done(), 0);
    assert!(sliced.points().all(|(_, e)| e.is_none()));
    let passes = run_to_end(&mut sliced, 4_000);
    assert_eq!(passes, 3, "a rough pass, a finer one, the full run");
    let scenario = goodput::lab::scenario_for(&settings, 0.9).unwrap();
    let full = sweep(&scenario, &loads, settings.seed).unwrap();
    for ((load, estimate), point) in sliced.points().zip(&full) {
        assert_eq!(load, point.offered_load);
        // The same requests in the same order: equal up to the rounding of sums accumulated in slices.
        let (sliced, full) = (&estimate.unwrap().summary, &point.summary);
        assert_eq!(sliced.measured, full.measured, "at {load}");
        let (Some(a), Some(b)) = (sliced.steady.as_ref(), full.steady.as_ref()) else {
            assert_eq!(sliced.stability, full.stability, "at {load}");
            continue;
        };
        let (ta, tb) = (a.ttft.unwrap(), b.ttft.unwrap());
        assert_eq!(
            (ta.p50, ta.p99, ta.max),
            (tb.p50, tb.p99, tb.max),
            "at {load}"
        );
        assert!((ta.mean - tb.mean).abs() <= 1e-12 * tb.mean, "at {load}");
        assert!(
            (a.goodput - b.goodput).abs() <= 1e-9 * b.goodput,
            "at {load}"
        );
    }
}

fn figures_at(settings: &LabSettings, loads: &[f64]) -> Vec<Figures> {
    let mut sliced = sweep_for(settings, loads).unwrap();
    run_to_end(&mut sliced, 50_000);
    let points: Vec<_> = sliced.points().collect();
    loads
        .iter()
        .map(|&load| {
            let mut at = settings.clone();
            at.load_percent = (load * 100.0).round() as u32;
            Figures::new(&at, &points)
        })
        .collect()
}

#[test]
fn pushing_the_load_tears_p99_from_p50_and_goodput_from_throughput() {
    let loads = [0.85, 0.90, 0.95];
    let figures = figures_at(&LabSettings::default(), &loads);
    let ratios: Vec<f64> = figures
        .iter()
        .map(|f| f.readouts.tail_ratio().unwrap())
        .collect();
    let shares: Vec<f64> = figures
        .iter()
        .map(|f| f.readouts.goodput_share().unwrap())
        .collect();
    assert!(ratios[0] < ratios[1] && ratios[1] < ratios[2], "{ratios:?}");
    assert!(shares[0] > shares[1] && shares[1] > shares[2], "{shares:?}");
    for f in &figures {
        let r = &f.readouts;
        let (l, lw) = (r.little_l.unwrap(), r.little_lambda_w.unwrap());
        assert!((l - lw).abs() / l < 0.02, "Little's Law: L {l} vs λW {lw}");
        assert_eq!(f.latency.points.len(), 3);
        assert!(!f.queue.samples.is_empty());
        assert_eq!(f.distribution.total(), r.measured);
    }
}

#[test]
fn closing_the_loop_at_99_percent_brings_p99_down_and_shows_the_users_slowing() {
    let open = LabSettings {
        load_percent: 99,
        ..LabSettings::default()
    };
    let closed = LabSettings {
        loop_kind: LoopKind::Closed,
        ..open.clone()
    };
    let open = &figures_at(&open, &[0.99])[0].readouts;
    let closed = &figures_at(&closed, &[0.99])[0].readouts;
    assert!(
        closed.p99_s.unwrap() < open.p99_s.unwrap() / 2.0,
        "{closed:?} vs {open:?}"
    );
    assert!(closed.users.unwrap() > 0 && open.users.is_none());
    assert!(closed.effective_arrival_rate.unwrap() < closed.unqueued_rate.unwrap());
}

#[test]
fn at_full_load_the_open_loop_has_no_steady_state_but_a_growing_queue() {
    let full = LabSettings {
        load_percent: 100,
        ..LabSettings::default()
    };
    let figures = &figures_at(&full, &[0.99, 1.0])[1];
    let r = &figures.readouts;
    assert!(r.queue_growth_rate.unwrap() > 0.0);
    // The chart leaves a gap: no steady value to draw.
    assert!(figures.latency.points[1].p99_s.is_none());
    // The figures show what the finite run measured, as floors that keep growing.
    assert!(r.growing);
    let (p50, p99) = (r.p50_s.unwrap(), r.p99_s.unwrap());
    assert!(p99 > p50 && p99 > 0.5, "p50 {p50} s, p99 {p99} s");
    assert!(
        p99 > figures.latency.points[0].p99_s.unwrap(),
        "past 99%'s steady p99"
    );
    let line = |key: ReadoutKey| {
        let lines = r.lines();
        let line = lines.iter().find(|line| line.key == key);
        line.map(|line| line.value.clone()).unwrap_or_default()
    };
    for key in [ReadoutKey::P50, ReadoutKey::P99] {
        assert!(
            line(key).starts_with("≥ ") && line(key).ends_with(" and growing"),
            "{}",
            line(key)
        );
    }
    assert!(line(ReadoutKey::Ratio).ends_with("× so far"));
    assert!(line(ReadoutKey::Slo).starts_with("missed (≥ "));
    assert!(line(ReadoutKey::Goodput).ends_with(" req/s and falling"));
    assert!(line(ReadoutKey::Growth).ends_with("req/s, without bound"));
    assert!(
        [ReadoutKey::P99, ReadoutKey::Growth]
            .iter()
            .all(|key| key.beside_the_slider()),
        "the measured tail sits beside the queue's growth"
    );
    // The distribution shows the same finished requests, marked as growing, with the figures' p50 and p99.
    let d = &figures.distribution;
    assert!(d.growing && d.total() > 0, "{d:?}");
    assert_eq!((d.p50_s, d.p99_s), (r.p50_s, r.p99_s));
    let summary = distribution_summary(d);
    assert!(
        summary.contains("grows without bound")
            && summary.contains(&format!("p99 at ≥ {}", format_latency(p99))),
        "{summary}"
    );
}

#[test]
fn the_textbook_preset_draws_erlang_c_beside_the_simulation() {
    let textbook = LabSettings {
        preset: Preset::Textbook,
        replicas: 4,
        metric: LatencyMetric::EndToEnd,
        ..LabSettings::default()
    };
    let f = &figures_at(&textbook, &[0.85, 0.9])[1];
    let exact = f.latency.exact.as_ref().expect("Erlang C curve");
    assert_eq!(exact.points.len(), 2);
    let simulated = f.latency.points[1].p99_s.unwrap();
    let (_, erlang) = exact.points[1];
    assert!(
        (simulated - erlang).abs() / erlang < 0.1,
        "{simulated} vs {erlang}"
    );
    assert!(f.queue.max_num_seqs.is_none());
}

#[test]
fn the_simulated_metrics_page_reads_back_as_the_same_server() {
    use goodput::cluster::{metrics, vllm};
    let past_the_knee = LabSettings {
        load_percent: 99,
        ..LabSettings::default()
    };
    let page = goodput::lab::simulated_metrics(&past_the_knee).unwrap();
    let servers = vllm::find_signals(&metrics::parse(&page).unwrap());
    assert_eq!(servers.len(), 1);
    assert_eq!(servers[0].model_name(), Some("course-27b-fp8"));
}

#[test]
fn lab_tasks_tick_only_when_the_learner_does_them() {
    use goodput::lab::LabTask;
    let loads = default_load_points();
    let open = LabSettings::default();
    let mut sliced = sweep_for(&open, &loads).unwrap();
    run_to_end(&mut sliced, 50_000);
    let points: Vec<_> = sliced.points().collect();
    let done_at = |settings: &LabSettings| -> Vec<LabTask> {
        let figures = Figures::new(settings, &points);
        LabTask::ALL
            .into_iter()
            .filter(|t| t.is_done(settings, &figures))
            .collect()
    };
    assert_eq!(done_at(&open), []);
    // The first load whose p99 TTFT is above 500 ms ticks the crossing; the next one up does not.
    let crossing = (85..100)
        .find(|&p| {
            let at = LabSettings {
                load_percent: p,
                ..open.clone()
            };
            done_at(&at).contains(&LabTask::FindTheCrossing)
        })
        .expect("p99 crosses the SLO somewhere below 100%");
    let past = LabSettings {
        load_percent: crossing + 1,
        ..open.clone()
    };
    assert!(!done_at(&past).contains(&LabTask::FindTheCrossing));
    let full = LabSettings {
        load_percent: 100,
        ..open.clone()
    };
    assert!(done_at(&full).contains(&LabTask::QueueRunsAway));
    let near = LabSettings {
        load_percent: 97,
        ..open.clone()
    };
    assert!(done_at(&near).contains(&LabTask::GoodputBelow90));

    let closed = LabSettings {
        loop_kind: LoopKind::Closed,
        load_percent: 97,
        ..open.clone()
    };
    let mut sliced = sweep_for(&closed, &loads).unwrap();
    run_to_end(&mut sliced, 50_000);
    let points: Vec<_> = sliced.points().collect();
    let figures = Figures::new(&closed, &points);
    assert!(LabTask::CloseTheLoop.is_done(&closed, &figures));
    assert!(!LabTask::GoodputBelow90.is_done(&closed, &figures));
}

#[test]
fn before_the_first_estimate_the_headline_readouts_hold_their_places() {
    let settings = LabSettings::default();
    let pending = Figures::new(&settings, &[(0.85, None)]);
    let done = figures_at(&settings, &[0.85]).remove(0);
    let (pending, done) = (pending.readouts.lines(), done.readouts.lines());
    // The pending lines are the first lines of the final readouts, in the same order, so nothing moves when the
    // numbers arrive; each holds a placeholder but the load, which is known from the start.
    let keys = |lines: &[goodput::lab::figures::ReadoutLine]| -> Vec<&'static str> {
        lines.iter().map(|l| l.key.as_str()).collect()
    };
    assert_eq!(keys(&pending)[..], keys(&done)[..pending.len()]);
    for key in [
        "p50", "p99", "ratio", "slo", "goodput", "little", "kv-cache",
    ] {
        assert!(keys(&pending).contains(&key), "{key} holds its place");
    }
    // At the lesson's settings every readout the estimate brings has its place already: the grid keeps its rows.
    assert_eq!(keys(&pending), keys(&done));
    assert_eq!(pending[0].value, "85%");
    assert!(
        pending[1..].iter().all(|l| l.value.contains('…')),
        "{pending:?}"
    );
    assert!(done.iter().all(|l| !l.value.contains('…')), "{done:?}");
}

#[test]
fn the_kv_bound_preset_shows_preemptions_near_the_knee_and_the_course_box_none() {
    let readout = |preset: Preset, load_percent: u32| {
        let settings = LabSettings {
            preset,
            load_percent,
            ..LabSettings::default()
        };
        figures_at(&settings, &[settings.load()]).remove(0)
    };
    let line = |f: &Figures, key: &str| {
        f.readouts
            .lines()
            .into_iter()
            .find(|l| l.key.as_str() == key)
            .map(|l| l.value)
    };
    let course = readout(Preset::Course, 97);
    assert_eq!(course.readouts.preemptions, Some(0));
    assert_eq!(line(&course, "preemptions").as_deref(), Some("none"));
    assert!(course.readouts.kv_usage_peak.unwrap() < 0.2);
    // DistServe's OPT-13B fills its A100's cache near saturation: the lab shows it in the readouts and the chart.
    let distserve = readout(Preset::DistServe, 97);
    let r = &distserve.readouts;
    assert!(r.preemptions.unwrap() > 0, "{r:?}");
    assert_eq!(r.kv_usage_peak, Some(1.0));
    assert!(line(&distserve, "kv-cache")
        .unwrap()
        .ends_with("100% at peak"));
    assert!(r.explanation().contains("preempted"));
    assert!(
        r.explanation()
            .starts_with("Open loop, well past the knee: even the median request queues"),
        "{}",
        r.explanation()
    );
    assert!(distserve.queue.has_kv_cache());
    assert!(distserve.queue.preemptions().unwrap() > 0);
    // Less memory for the cache, more preemptions; a textbook queue has no KV cache at all.
    let tight = LabSettings {
        preset: Preset::DistServe,
        load_percent: 97,
        gpu_memory_utilization: 0.8,
        ..LabSettings::default()
    };
    let tight = figures_at(&tight, &[0.97]).remove(0);
    assert!(tight.readouts.preemption_rate > r.preemption_rate);
    let textbook = LabSettings {
        preset: Preset::Textbook,
        ..LabSettings::default()
    };
    let textbook = figures_at(&textbook, &[0.9]).remove(0);
    assert_eq!(textbook.readouts.preemptions, None);
    assert!(!textbook.queue.has_kv_cache());
}

#[test]
fn every_lab_setting_round_trips_through_the_url() {
    let defaults = LabSettings::default();
    let changed = LabSettings {
        load_percent: 112,
        loop_kind: LoopKind::Open,
        arrival_cv: 2.5,
        preset: Preset::DistServe,
        replicas: 3,
        max_num_seqs: 128,
        chunked_prefill: false,
        max_num_batched_tokens: Some(2048),
        gpu_memory_utilization: 0.85,
        queue_cap: Some(1.5),
        slo_ttft_ms: 250.0,
        slo_tpot_ms: 37.5,
        metric: LatencyMetric::EndToEnd,
        scale: LatencyScale::Log,
        seed: 99,
        // The calibrated server never goes into a URL: each browser holds its own.
        your_server: None,
    };
    let query = changed.merge_into_query("", &defaults);
    assert_eq!(
        query,
        "load=1.12&arrival_cv=2.5&preset=distserve&replicas=3&max_num_seqs=128&chunked_prefill=off\
         &max_num_batched_tokens=2048&gpu_memory_utilization=0.85&queue_cap=1.5&slo_ttft_ms=250&slo_tpot_ms=37.5\
         &metric=e2e&scale=log&seed=99"
    );
    let (back, notes) = defaults.with_query(&query);
    assert!(notes.is_empty(), "{notes:?}");
    assert_eq!(back, changed);
    // Percent or fraction, never a guess: at most 1.2 is a fraction, above it (or with %) a percentage.
    for (raw, percent) in [
        ("0.97", 97),
        ("97", 97),
        ("97%", 97),
        ("1", 100),
        ("100", 100),
    ] {
        let (lab, notes) = defaults.with_query(&format!("load={raw}"));
        assert_eq!((lab.load_percent, notes.len()), (percent, 0), "load={raw}");
    }
    let (lab, notes) = defaults.with_query("load=10");
    assert_eq!(lab.load_percent, 85);
    assert_eq!(
        notes[0].message,
        "load=10 is below 85% (read as 10%: a fraction is at most 1.2); using 85%"
    );
    let (lab, notes) = defaults.with_query("scale=cubic");
    assert_eq!(lab.scale, LatencyScale::Linear);
    assert_eq!(
        notes[0].message,
        "scale=\"cubic\" is not one of linear, log; using linear"
    );
    let (lab, notes) = defaults.with_query("load=11&arrival_cv=9&gpu_memory_utilization=0.2");
    assert_eq!(lab.load_percent, 85);
    assert_eq!((lab.arrival_cv, lab.gpu_memory_utilization), (4.0, 0.4));
    let messages: Vec<&str> = notes.iter().map(|n| n.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "load=11 is below 85% (read as 11%: a fraction is at most 1.2); using 85%",
            "arrival_cv=9 is above 4; using 4",
            "gpu_memory_utilization=0.2 is below 0.4; using 0.4",
        ]
    );
    // The token budget: a whole number, or the preset's own.
    let (lab, notes) = defaults.with_query("max_num_batched_tokens=4096");
    assert_eq!((lab.max_num_batched_tokens, notes.len()), (Some(4096), 0));
    assert_eq!(lab.token_budget(), Some(4096));
    let (back, notes) = lab.with_query("max_num_batched_tokens=preset");
    assert_eq!((back.max_num_batched_tokens, notes.len()), (None, 0));
    assert_eq!(
        back.token_budget(),
        Some(8192),
        "the course box's own budget"
    );
    let (lab, notes) = defaults.with_query("max_num_batched_tokens=lots&max_num_batched_tokens=8");
    assert_eq!(lab.max_num_batched_tokens, Some(16));
    let messages: Vec<&str> = notes.iter().map(|n| n.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "max_num_batched_tokens=\"lots\" is not a number (or preset); using the preset's",
            "max_num_batched_tokens=8 is below 16; using 16",
        ]
    );
    // A budget below --max-num-seqs is no scenario: the lab says which field.
    let error = goodput::lab::scenario_for(
        &LabSettings {
            max_num_batched_tokens: Some(32),
            ..defaults.clone()
        },
        0.9,
    )
    .unwrap_err();
    assert_eq!(error.field, "service.llm.max_num_batched_tokens");
}

#[test]
fn a_queue_cap_opens_the_load_range_past_saturation_and_is_read_from_the_url() {
    let defaults = LabSettings::default();
    assert_eq!(defaults.queue_cap, None, "off by default");
    assert_eq!(defaults.load_range_percent(), (85, 100));
    // The load is read after the cap, wherever it stands in the query.
    let (lab, notes) = defaults.with_query("load=1.1&queue_cap=2");
    assert!(notes.is_empty(), "{notes:?}");
    assert_eq!((lab.load_percent, lab.queue_cap), (110, Some(2.0)));
    assert_eq!(lab.max_num_queued_reqs(), Some(128));
    assert_eq!(lab.load_points().len(), 36);
    assert_eq!(
        lab.to_query_pairs(&defaults),
        [("load", "1.10".to_owned()), ("queue_cap", "2".to_owned())]
    );
    let (lab, notes) = defaults.with_query("load=110");
    assert_eq!(lab.load_percent, 100);
    assert_eq!(
        notes[0].message,
        "load=110 is above 100% (past 100% needs a queue_cap); using 100%"
    );
    let (lab, notes) = defaults.with_query("queue_cap=0.5&load=130%");
    assert_eq!((lab.queue_cap, lab.load_percent), (Some(1.0), 120));
    let messages: Vec<&str> = notes.iter().map(|n| n.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "queue_cap=0.5 is below 1; using 1",
            "load=130% is above 120%; using 120%"
        ]
    );
    let (lab, notes) = defaults.with_query("queue_cap=lots");
    assert_eq!(lab.queue_cap, None);
    assert_eq!(
        notes[0].message,
        "queue_cap=\"lots\" is not a number (or off); using off"
    );
    // The textbook queue has no cap: its loads stop at 100%, and a load past it left behind counts as 100%.
    let (textbook, _) = defaults.with_query("queue_cap=2&load=1.15&preset=textbook");
    assert_eq!(textbook.max_num_queued_reqs(), None);
    assert_eq!(textbook.load_range_percent(), (85, 100));
    assert_eq!(textbook.load(), 1.0);
    assert!(goodput::lab::scenario_for(&textbook, textbook.load()).is_ok());
}

#[test]
fn with_the_cap_on_at_110_percent_the_lab_shows_what_it_turned_away_and_a_bounded_p99() {
    let (lab, _) = LabSettings::default().with_query("queue_cap=2&load=1.1");
    let loads = lab.load_points();
    let figures = figures_at(&lab, &loads)
        .into_iter()
        .find(|f| (f.readouts.load - 1.1).abs() < 1e-9)
        .unwrap();
    let r = &figures.readouts;
    let share = r
        .turned_away_share
        .expect("a capped run counts its refusals");
    println!(
        "110%, cap 2×: {:.1}% turned away, p99 TTFT {:?}, goodput {:?}",
        100.0 * share,
        r.p99_s,
        r.goodput
    );
    assert!(share > 0.05 && share < 0.2, "{share}");
    assert_eq!(r.queue_cap, Some(128));
    let p99 = r.p99_s.expect("a steady state past saturation");
    assert!(p99 > 0.5 && p99 < 5.0, "{p99}");
    assert!(r.queue_growth_rate.is_none());
    let line = r
        .lines()
        .into_iter()
        .find(|l| l.key == goodput::lab::ReadoutKey::TurnedAway)
        .unwrap();
    assert!(
        line.value.ends_with(" req/s)") && line.value.contains("% of arrivals"),
        "{line:?}"
    );
    assert!(
        r.explanation().contains("turns away"),
        "{}",
        r.explanation()
    );
    // The throughput chart carries a turned-away series over every load, rising past saturation.
    let away: Vec<f64> = figures
        .throughput
        .points
        .iter()
        .map(|p| p.turned_away.unwrap())
        .collect();
    assert_eq!(away.len(), 36);
    assert!(away[35] > away[25] && away[25] > away[0], "{away:?}");
    let table = goodput::charts::throughput_table(&figures.throughput);
    assert_eq!(table.header.last().unwrap(), "Turned away (req/s)");
    assert!(goodput::charts::throughput_summary(&figures.throughput).contains("turned away"));
    // Uncapped, the same load is out of range and there is no such series.
    let plain = figures_at(&LabSettings::default(), &[0.9]).remove(0);
    assert!(plain
        .throughput
        .points
        .iter()
        .all(|p| p.turned_away.is_none()));
    assert!(plain
        .readouts
        .lines()
        .iter()
        .all(|l| l.key != goodput::lab::ReadoutKey::TurnedAway));
}

#[test]
fn every_default_slo_is_the_course_s_one() {
    use goodput::cluster::vllm::SloTargets;
    use goodput::model::{Scenario, Slo};
    let course = Slo::default();
    assert_eq!(
        (course.ttft, course.tpot),
        (0.5, 0.04),
        "p99 TTFT 500 ms, p95 TPOT 40 ms"
    );
    let lab = LabSettings::default();
    assert_eq!(lab.slo_ttft_ms / 1000.0, course.ttft);
    assert_eq!(lab.slo_tpot_ms / 1000.0, course.tpot);
    assert_eq!(Scenario::course_preset().slo, course);
    assert_eq!(
        (SloTargets::COURSE.ttft_p99, SloTargets::COURSE.tpot_p95),
        (course.ttft, course.tpot)
    );
}
