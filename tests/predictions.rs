//! Predict-then-reveal: judging guesses, finding a chart target on the model's curve, the chart that shows it, and the
//! progress kept between visits.

use goodput::charts::{
    prediction_chart, prediction_summary, prediction_table, ChartBackend, ChartStyle, PlotRect,
    PredictionChart, PredictionMetric, SvgSurface,
};
use goodput::lesson::judge::{
    curve_points, distance_sentence, judge, locate, prediction_chart_data, prediction_sweep,
    simulate_load, CurvePoint,
};
use goodput::lesson::progress::{Guess, LoadProblem, Progress, StepRecord, STORAGE_KEY};
use goodput::lesson::*;
use plotters::prelude::IntoDrawingArea;

fn html(text: &str) -> Html {
    Html(text.to_owned())
}

fn option(label: &str, correct: bool) -> ChoiceOption {
    ChoiceOption {
        label: html(label),
        correct,
        explanation: None,
    }
}

fn chart_answer(target: ChartTarget) -> PredictAnswer {
    PredictAnswer::ChartPrediction {
        target,
        loads: LoadRange {
            from: 0.8,
            to: 0.99,
            step: 0.01,
        },
        tolerance: 0.02,
    }
}

#[test]
fn a_multiple_choice_is_right_only_with_exactly_the_right_options() {
    let answer = PredictAnswer::MultipleChoice {
        options: vec![option("a", false), option("b", true), option("c", true)],
    };
    assert_eq!(
        judge(&answer, &Guess::Choices(vec![2, 1]), None),
        Some(true)
    );
    assert_eq!(
        judge(&answer, &Guess::Choices(vec![1]), None),
        Some(false),
        "half of the right answer is not right"
    );
    assert_eq!(
        judge(&answer, &Guess::Choices(vec![0, 1, 2]), None),
        Some(false)
    );
    assert_eq!(
        judge(&answer, &Guess::Number(1.0), None),
        None,
        "a guess of the wrong shape is not scored"
    );
}

#[test]
fn a_numeric_estimate_is_right_within_its_tolerance() {
    let answer = PredictAnswer::NumericEstimate {
        answer: 5.0,
        tolerance: Tolerance::Absolute(0.5),
        unit: "replicas".into(),
    };
    assert_eq!(judge(&answer, &Guess::Number(4.5), None), Some(true));
    assert_eq!(judge(&answer, &Guess::Number(4.0), None), Some(false));
    assert_eq!(Tolerance::Relative(0.1).allowance(-20.0), 2.0);
}

#[test]
fn a_chart_guess_is_right_within_its_tolerance_and_unscored_without_a_crossing() {
    let answer = chart_answer(ChartTarget::SloCrossing);
    assert_eq!(judge(&answer, &Guess::Load(0.90), Some(0.92)), Some(true));
    assert_eq!(judge(&answer, &Guess::Load(0.89), Some(0.92)), Some(false));
    assert_eq!(judge(&answer, &Guess::Load(0.89), None), None);
    assert_eq!(
        judge(&PredictAnswer::Recall, &Guess::Load(0.9), Some(0.9)),
        None,
        "a recall is marked by the learner"
    );
}

fn point(load: f64, p99: Option<f64>, share: Option<f64>) -> CurvePoint {
    CurvePoint {
        load,
        p99_ttft_s: p99,
        goodput_share: share,
    }
}

#[test]
fn a_target_is_where_its_curve_crosses_its_level_interpolated_between_loads() {
    let points = [
        point(0.8, Some(0.1), Some(0.99)),
        point(0.85, Some(0.3), Some(0.95)),
        point(0.9, Some(0.7), Some(0.85)),
        point(0.95, None, None),
    ];
    // p99 doubles from 0.1 s to 0.2 s halfway between 80% and 85%.
    assert!((locate(ChartTarget::Knee, &points, 0.5).unwrap() - 0.825).abs() < 1e-9);
    // 0.5 s lies halfway between 0.3 s at 85% and 0.7 s at 90%.
    assert!((locate(ChartTarget::SloCrossing, &points, 0.5).unwrap() - 0.875).abs() < 1e-9);
    // 90% goodput lies halfway between 95% at 85% load and 85% at 90% load.
    assert!((locate(ChartTarget::GoodputBelow90, &points, 0.5).unwrap() - 0.875).abs() < 1e-9);
    // A load without a steady state counts as crossed; a curve that never gets there has no target.
    assert_eq!(locate(ChartTarget::SloCrossing, &points, 5.0), Some(0.95));
    assert_eq!(locate(ChartTarget::SloCrossing, &points[..3], 5.0), None);
    assert_eq!(locate(ChartTarget::Knee, &[], 0.5), None);
}

#[test]
fn the_course_replica_crosses_its_slo_near_full_load_and_loses_goodput_just_before() {
    let points: Vec<CurvePoint> = LoadRange {
        from: 0.8,
        to: 0.99,
        step: 0.01,
    }
    .points()
    .into_iter()
    .map(simulate_load)
    .collect();
    let crossing =
        locate(ChartTarget::SloCrossing, &points, 0.5).expect("p99 crosses 500 ms below 99%");
    let goodput =
        locate(ChartTarget::GoodputBelow90, &points, 0.5).expect("goodput falls below 90%");
    println!("SLO crossing at {crossing:.4}, goodput below 90% at {goodput:.4}");
    assert!((0.88..0.96).contains(&crossing), "{crossing}");
    assert!((0.85..0.95).contains(&goodput), "{goodput}");
    assert!(
        goodput < crossing,
        "the TPOT objective bites first on this replica"
    );
    let knee_points: Vec<CurvePoint> = LoadRange {
        from: 0.5,
        to: 0.98,
        step: 0.02,
    }
    .points()
    .into_iter()
    .map(simulate_load)
    .collect();
    let knee = locate(ChartTarget::Knee, &knee_points, 0.5).expect("p99 doubles below 98%");
    println!("knee (p99 doubled from 50%) at {knee:.4}");
    assert!((0.78..0.92).contains(&knee), "{knee}");
}

#[test]
fn the_curve_built_in_slices_equals_whole_runs() {
    let loads = LoadRange {
        from: 0.9,
        to: 0.96,
        step: 0.03,
    };
    let mut sweep = prediction_sweep(loads).unwrap();
    let mut grown = Vec::new();
    let mut slices = 0;
    while !sweep.is_done() {
        slices += 1;
        sweep.step(5_000);
        let points = curve_points(&sweep);
        assert!(points.len() >= grown.len(), "points are only ever added");
        assert_eq!(
            &points[..grown.len()],
            &grown[..],
            "a shown point never changes"
        );
        grown = points;
        assert!(slices < 100, "the sweep finishes");
    }
    assert!(slices > 3 * 3, "each load takes several slices: {slices}");
    let whole: Vec<CurvePoint> = loads.points().into_iter().map(simulate_load).collect();
    assert_eq!(grown, whole);
    assert!(!sweep.step(5_000), "nothing after the last load");
    assert_eq!(curve_points(&sweep), whole);
}

#[test]
fn the_distance_sentence_says_how_far_and_which_way() {
    assert_eq!(
        distance_sentence(Some(0.88), Some(0.904), 0.02),
        "Your marker: 88% load. The real curve gets there at 90.4% load: your marker is 2.4 points early, outside the 2.0-point tolerance."
    );
    assert!(distance_sentence(Some(0.93), Some(0.92), 0.02)
        .contains("1.0 points late, within the 2.0-point tolerance"));
    assert!(distance_sentence(Some(0.9), None, 0.02).contains("not scored"));
    assert!(distance_sentence(None, Some(0.9), 0.02).starts_with("You placed no marker."));
}

fn render(data: &PredictionChart, width: u32, height: u32) -> (String, Option<PlotRect>) {
    let mut svg = String::new();
    let span = {
        let root =
            ChartBackend::new(SvgSurface::new(&mut svg, (width, height))).into_drawing_area();
        let span = prediction_chart(&root, data, &ChartStyle::default()).expect("draws");
        root.present().expect("svg is written");
        span
    };
    (svg, span)
}

#[test]
fn the_prediction_chart_shows_the_marker_then_the_real_curve_over_it() {
    let points: Vec<CurvePoint> = [0.8, 0.85, 0.9, 0.95]
        .into_iter()
        .zip([0.2, 0.3, 0.6, 1.5])
        .map(|(load, p99)| point(load, Some(p99), Some(1.0 - p99 / 5.0)))
        .collect();
    let loads = LoadRange {
        from: 0.8,
        to: 0.95,
        step: 0.05,
    };
    let before = prediction_chart_data(ChartTarget::SloCrossing, loads, &[], Some(0.9));
    let (svg, span) = render(&before, 900, 420);
    assert!(svg.contains("your marker 90%"), "the marker is tagged");
    assert!(!svg.contains("real "), "no curve before Reveal");
    assert_eq!(
        prediction_summary(&before),
        "Your marker for the SLO crossing is at 90% load; the real curve appears after Reveal."
    );
    let span = span.expect("room for a plot");
    assert!(span.left > 0.0 && span.right < 900.0 && span.right > span.left + 400.0);
    assert!((span.x_value_at(span.left, (0.8, 0.95)) - 0.8).abs() < 1e-9);
    assert!((span.x_value_at((span.left + span.right) / 2.0, (0.8, 0.95)) - 0.875).abs() < 1e-9);
    assert_eq!(
        span.x_value_at(-50.0, (0.8, 0.95)),
        0.8,
        "clamped to the axis"
    );

    let partial = prediction_chart_data(ChartTarget::SloCrossing, loads, &points[..2], Some(0.9));
    assert!(prediction_summary(&partial).contains("computing the real curve, 2 of 4 loads so far"));
    assert_eq!(partial.actual, None, "no verdict from half a curve");

    let after = prediction_chart_data(ChartTarget::SloCrossing, loads, &points, Some(0.9));
    let actual = after.actual.expect("crosses");
    // 500 ms lies two thirds of the way from 300 ms at 85% to 600 ms at 90%.
    assert!(
        (actual - (0.85 + 0.05 * 2.0 / 3.0)).abs() < 1e-9,
        "{actual}"
    );
    let (svg, _) = render(&after, 900, 420);
    assert!(svg.contains("SLO 500 ms"), "the level is drawn and tagged");
    assert!(svg.contains("real p99 TTFT"), "the curve is in the legend");
    assert!(svg.contains(&format!(
        "real {}",
        goodput::charts::format::format_percent(actual)
    )));
    assert!(prediction_summary(&after).contains("on the real p99 TTFT curve it is at"));
    let table = prediction_table(&after);
    assert_eq!(table.header, ["Offered load", "p99 TTFT"]);
    assert_eq!(table.rows[3], ["95%", "1.5 s"]);

    let goodput = prediction_chart_data(ChartTarget::GoodputBelow90, loads, &points, None);
    assert_eq!(goodput.metric, PredictionMetric::GoodputShare);
    let (svg, _) = render(&goodput, 900, 420);
    assert!(svg.contains("goodput ÷ throughput"));
    assert_eq!(prediction_table(&goodput).rows[0], ["80%", "96%"]);
    let (svg, span) = render(&goodput, 0, 0);
    assert!(
        span.is_none() && !svg.contains("<polyline"),
        "a zero-size canvas draws nothing and says so"
    );
}

fn lesson() -> &'static Lesson {
    find("latency-throughput-slos").expect("lesson 32 ships")
}

#[test]
fn progress_survives_its_json_and_merges_one_lesson_at_a_time() {
    assert_eq!(STORAGE_KEY, "goodput.progress.v1");
    let mut stored = Progress::default();
    let mut other = stored.lesson("other-lesson");
    other.ticks.insert("lab/done".into());
    stored.put_lesson("other-lesson", other.clone());
    let mut mine = stored.lesson("latency-throughput-slos");
    mine.steps.insert(
        "step-1-ttft".into(),
        StepRecord {
            guess: Some(Guess::Choices(vec![1])),
            committed: true,
            revealed: true,
            correct: Some(false),
            ..Default::default()
        },
    );
    stored.put_lesson("latency-throughput-slos", mine.clone());
    let loaded = Progress::parse(Some(&stored.to_json()));
    assert_eq!(loaded.problem, None);
    assert_eq!(
        loaded.progress.lesson("other-lesson"),
        other,
        "another lesson's progress is kept"
    );
    assert_eq!(loaded.progress.lesson("latency-throughput-slos"), mine);
    let mut emptied = loaded.progress;
    emptied.put_lesson("latency-throughput-slos", Default::default());
    assert!(
        !emptied.lessons.contains_key("latency-throughput-slos"),
        "a reset lesson leaves no empty entry"
    );
}

#[test]
fn corrupt_foreign_and_newer_values_are_not_read() {
    assert_eq!(Progress::parse(None).problem, None);
    assert_eq!(
        Progress::parse(Some("{not json")).problem,
        Some(LoadProblem::Corrupt)
    );
    for foreign in [
        "[1, 2]",
        "{\"steps\": 3}",
        "{\"version\": 1, \"lessons\": 7}",
        "{\"version\": 1, \"lessons\": {}, \"extra\": true}",
        "\"text\"",
    ] {
        assert_eq!(
            Progress::parse(Some(foreign)).problem,
            Some(LoadProblem::Foreign),
            "{foreign}"
        );
    }
    let newer = Progress::parse(Some("{\"version\": 2, \"anything\": []}"));
    assert_eq!(newer.problem, Some(LoadProblem::Newer(2)));
    assert!(!LoadProblem::Newer(2).may_overwrite() && LoadProblem::Corrupt.may_overwrite());
    assert!(LoadProblem::Corrupt.note().contains("reset"));
    assert_eq!(newer.progress, Progress::default());
}

#[test]
fn progress_that_no_longer_fits_the_lesson_is_dropped() {
    let json = r#"{"version":1,"lessons":{"latency-throughput-slos":{"steps":{
        "step-1-ttft":{"guess":{"kind":"choices","value":[7]},"committed":true,"correct":true},
        "step-5-sizing":{"guess":{"kind":"number","value":5.0},"committed":true,"revealed":true,"correct":true},
        "predict-slo-crossing":{"guess":{"kind":"load","value":3.0},"committed":true},
        "a-step-since-removed":{"committed":true}
      },"ticks":["knee-lab/p99-crosses-slo","Not A Task"]}}}"#;
    let loaded = Progress::parse(Some(json));
    assert_eq!(loaded.problem, None);
    let mine = loaded
        .progress
        .lesson("latency-throughput-slos")
        .validated(&lesson().predict_steps());
    assert!(!mine.steps.contains_key("a-step-since-removed"));
    assert_eq!(
        mine.steps["step-1-ttft"].guess, None,
        "option 7 does not exist"
    );
    assert!(!mine.steps["step-1-ttft"].committed);
    assert_eq!(
        mine.steps["predict-slo-crossing"].guess, None,
        "300% is off the axis"
    );
    assert_eq!(mine.steps["step-5-sizing"].guess, Some(Guess::Number(5.0)));
    assert_eq!(
        mine.ticks.iter().collect::<Vec<_>>(),
        ["knee-lab/p99-crosses-slo"]
    );
    let summary = mine.summary(&lesson().predict_steps());
    assert_eq!((summary.answered, summary.right), (1, 1));
    assert!(summary.steps >= 8);
    assert_eq!(
        summary.sentence(),
        format!("1 of {} steps answered, 1 right.", summary.steps)
    );
}

/// The lesson's multiple-choice step `id`: the step and its options.
fn multiple_choice(id: &str) -> (&'static PredictStep, Vec<ChoiceOption>) {
    let step = lesson()
        .predict_steps()
        .into_iter()
        .find(|s| s.id == id)
        .unwrap_or_else(|| panic!("the step {id} ships"));
    let PredictAnswer::MultipleChoice { options } = &step.answer else {
        panic!("{id} is a multiple choice");
    };
    let options = options.clone();
    (step, options)
}

/// Asserts that exactly the options whose claim holds on the model are marked right. `claims` are in the options'
/// order, each with a word of its label, so a reordered lesson fails here; `model` says what the model gave.
fn assert_right_options(options: &[ChoiceOption], claims: &[(&str, bool)], model: &str) {
    assert_eq!(options.len(), claims.len());
    for (option, (word, holds)) in options.iter().zip(claims) {
        assert!(
            option.label.as_str().contains(word),
            "{} is not the {word:?} option",
            option.label.as_str()
        );
        assert_eq!(
            option.correct,
            *holds,
            "{:?}: the model gives {model}",
            option.label.as_str()
        );
    }
}

/// p95 TPOT and p99 TTFT of the course box at `load` with the lab's seed, chunked or not, with `budget` tokens
/// per iteration (the preset's when `None`); also the median TTFT.
fn course_clocks(load: f64, chunked: bool, budget: Option<u32>) -> (f64, f64, f64) {
    let scenario = goodput::model::ScenarioSettings {
        load: Some(load),
        chunked_prefill: Some(chunked),
        max_num_batched_tokens: budget,
        ..Default::default()
    }
    .apply(&goodput::model::Scenario::course_preset())
    .expect("valid");
    let summary =
        goodput::model::run(&scenario, goodput::lesson::judge::PREDICTION_SEED).expect("runs");
    let steady = summary.steady.expect("stable at 90%");
    let (tpot, ttft) = (steady.tpot.unwrap(), steady.ttft.unwrap());
    (tpot.p95, ttft.p99, ttft.p50)
}

/// The lesson's "chunked prefill off" step is answered by the model: each option's claim is evaluated on the
/// simulation, and exactly the options that hold are marked right. So is every claim its reveal and the lesson's
/// text around it make about chunking and the token budget.
#[test]
fn the_chunked_prefill_step_is_answered_by_the_simulation() {
    let (step, options) = multiple_choice("predict-chunked-prefill-off");
    let (tpot_on, ttft_on, _) = course_clocks(0.9, true, None);
    let (tpot_off, ttft_off, _) = course_clocks(0.9, false, None);
    let change = |off: f64, on: f64| off / on - 1.0;
    let (tpot, ttft) = (change(tpot_off, tpot_on), change(ttft_off, ttft_on));
    // The claims in the options' order, each with a word of its label, so a reordered lesson fails here.
    let claims: [(&str, bool); 4] = [
        ("jumps", tpot > 0.10 && ttft < -0.05),
        ("barely", tpot.abs() < 0.02 && ttft.abs() < 0.02),
        ("improves and", tpot < -0.05 && ttft > 0.05),
        ("much worse", tpot > 0.10 && ttft > 0.10),
    ];
    assert_right_options(
        &options,
        &claims,
        &format!(
            "p95 TPOT {tpot_on:.4} → {tpot_off:.4} s, p99 TTFT {ttft_on:.3} → {ttft_off:.3} s"
        ),
    );
    assert!(step.reveal.as_str().contains("less than 2%"));
    // The reveal: with a 2048-token budget chunking lowers p95 TPOT and raises p99 TTFT.
    let (small_tpot_on, small_ttft_on, small_p50_on) = course_clocks(0.9, true, Some(2048));
    let (small_tpot_off, small_ttft_off, _) = course_clocks(0.9, false, Some(2048));
    assert!(
        small_tpot_on < small_tpot_off,
        "{small_tpot_on} vs {small_tpot_off}"
    );
    assert!(
        small_ttft_on > small_ttft_off,
        "{small_ttft_on} vs {small_ttft_off}"
    );
    // "On your cluster": a smaller budget shortens the TPOT tail and lengthens the typical TTFT.
    let (_, _, p50_on) = course_clocks(0.9, true, None);
    assert!(small_tpot_on < tpot_on && small_p50_on > p50_on);
    // "Inside the batch": a 2,000-token prompt adds 24 ms to its iteration, four times the fixed cost.
    let goodput::model::ServiceKind::Llm(fleet) = goodput::model::Scenario::course_preset().service
    else {
        panic!("an LLM preset");
    };
    let prompt = fleet.iteration.per_prefill_token * 2000.0;
    assert!((prompt - 0.024).abs() < 1e-9);
    assert_eq!((prompt / fleet.iteration.fixed).floor(), 4.0);
}

/// The course box at 110% load with the lab's seed and the given queue caps (`--max-num-queued-reqs`,
/// `--max-num-queued-tokens`).
fn course_capped(reqs: Option<u32>, tokens: Option<u64>) -> goodput::model::RunSummary {
    let scenario = goodput::model::ScenarioSettings {
        load: Some(1.1),
        max_num_queued_reqs: reqs,
        max_num_queued_tokens: tokens,
        ..Default::default()
    }
    .apply(&goodput::model::Scenario::course_preset())
    .expect("valid");
    goodput::model::run(&scenario, goodput::lesson::judge::PREDICTION_SEED).expect("runs")
}

/// The lesson's "cap the queue, then overload it" step is answered by the model: each option's claim is evaluated on
/// the simulation at 110% load with the queue capped at 2 × `--max-num-seqs`, and exactly the options that hold are
/// marked right. So are the figures its reveal and the passage before it quote.
#[test]
fn the_queue_cap_step_is_answered_by_the_simulation() {
    let (step, options) = multiple_choice("predict-queue-cap");
    let max_num_seqs = 64;
    let capped = course_capped(Some(2 * max_num_seqs), None);
    let uncapped = course_capped(None, None);
    let slo = goodput::model::Scenario::course_preset().slo;
    let steady = capped
        .steady
        .as_ref()
        .expect("a capped queue has a steady state");
    let p99 = steady.ttft.unwrap().p99;
    let shed = capped.admission.expect("the cap counts what it turns away");
    let goodput_share = steady.goodput / steady.throughput;
    let bounded = capped.stability == goodput::model::Stability::Stable;
    let grows = |s: &goodput::model::RunSummary| {
        matches!(s.stability, goodput::model::Stability::Unstable { .. })
    };
    println!(
        "110%, cap 128: p99 TTFT {p99:.3} s, goodput {:.2} req/s ({:.1}% of throughput), {:.1}% turned away; \
         uncapped grows: {}",
        steady.goodput,
        100.0 * goodput_share,
        100.0 * shed.rejection_rate,
        grows(&uncapped)
    );
    let claims: [(&str, bool); 4] = [
        ("keeps growing", !bounded && goodput_share < 0.05),
        (
            "a few seconds",
            bounded
                && p99 > 2.0 * slo.ttft
                && p99 < 10.0
                && goodput_share < 0.05
                && shed.rejection_rate < 0.2,
        ),
        (
            "holds near",
            p99 <= slo.ttft && steady.goodput > 0.8 * capped.saturation_throughput,
        ),
        (
            "most requests",
            p99 <= slo.ttft && shed.rejection_rate > 0.5,
        ),
    ];
    assert_right_options(
        &options,
        &claims,
        &format!("p99 TTFT {p99:.3} s, goodput share {goodput_share:.3}"),
    );
    // Without the cap, the same overload has no steady state: the queue grows without bound.
    assert!(grows(&uncapped));
    // The reveal's figures: p99 about 2.6 s, about 8% turned away, slots freeing some 27 times a second.
    let reveal = step.reveal.as_str();
    assert!(
        reveal.contains("about 2.6 s") && (p99 - 2.6).abs() < 0.1,
        "{p99}"
    );
    assert!(
        reveal.contains("about 8%") && (shed.rejection_rate - 0.08).abs() < 0.01,
        "{}",
        shed.rejection_rate
    );
    assert!(reveal.contains("some 27 times") && (steady.throughput - 27.0).abs() < 0.5);
    // The passage before it: a token cap sized with Little's Law, T = 0.5 s × 27 requests/s × 2112 tokens.
    let goodput::model::ServiceKind::Llm(fleet) = goodput::model::Scenario::course_preset().service
    else {
        panic!("an LLM preset");
    };
    let prefill_rate = capped.saturation_throughput * fleet.prompt_tokens.mean();
    assert!((fleet.prompt_tokens.mean() - 2112.0).abs() < 1e-9);
    assert!((prefill_rate - 57_000.0).abs() < 1_000.0, "{prefill_rate}");
    let tokens = slo.ttft * prefill_rate;
    assert!((tokens - 28_000.0).abs() < 1_000.0, "{tokens}");
    let sized = course_capped(None, Some(28_000));
    let sized_steady = sized.steady.as_ref().unwrap();
    let sized_p99 = sized_steady.ttft.unwrap().p99;
    println!(
        "110%, token cap 28 000: p99 TTFT {sized_p99:.3} s, goodput {:.2} req/s",
        sized_steady.goodput
    );
    assert!((sized_p99 - 0.53).abs() < 0.02, "{sized_p99}");
    assert!((sized_steady.goodput - 21.0).abs() < 1.0);
    let passage = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/lessons/32-latency-throughput-slos.md"
    ))
    .unwrap();
    for quoted in [
        "some 57,000 tokens a second",
        "$T \\approx 28{,}000$ tokens",
        "p99 TTFT near 0.53 s and goodput near 21 requests a second",
    ] {
        assert!(passage.contains(quoted), "the passage quotes {quoted:?}");
    }
}

#[test]
fn a_numeric_answer_reads_the_same_on_the_static_page_and_live() {
    use goodput::lesson::judge::numeric_answer_text;
    // 10% of 4.5 is 0.45000000000000007 in floating point; the reader sees 0.45 on both copies of the step.
    let (answer, within) = numeric_answer_text(4.5, Tolerance::Relative(0.1), "replicas");
    assert_eq!(answer, "The answer: 4.5 replicas");
    assert_eq!(within, " (anything within ±0.45 replicas counts as right).");
    let (_, within) = numeric_answer_text(5.0, Tolerance::Absolute(0.5), "replicas");
    assert_eq!(within, " (anything within ±0.5 replicas counts as right).");
    let (_, within) = numeric_answer_text(40.0, Tolerance::Relative(0.25), "ms");
    assert_eq!(within, " (anything within ±10 ms counts as right).");
}
