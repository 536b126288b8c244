//! The course's story told by the model, and the guarantees the page relies on.

use goodput_model::{
    default_load_points, exact_reference, run, sweep, Arrivals, ProgressiveRun, Scenario,
    ServiceKind, Stability, SteadyState, TextbookService,
};

const SEED: u64 = 11;

fn course(rho: f64, closed: bool) -> Scenario {
    let base = if closed {
        Scenario::course_closed_preset()
    } else {
        Scenario::course_preset()
    };
    let mut s = base.with_offered_load(rho);
    s.customers = 60_000;
    s.warm_up = 6_000;
    s
}

fn steady(s: &Scenario) -> SteadyState {
    run(s, SEED).unwrap().steady.expect("stable")
}

fn ratio(st: &SteadyState) -> f64 {
    let ttft = st.ttft.unwrap();
    ttft.p99 / ttft.p50
}

#[test]
fn at_85_percent_load_nearly_every_request_meets_both_slos() {
    let st = steady(&course(0.85, false));
    let ttft = st.ttft.unwrap();
    println!(
        "85%: TTFT p50 {:.3} p99 {:.3}, attainment {:.1}%, goodput/throughput {:.3}",
        ttft.p50,
        ttft.p99,
        st.slo_attainment,
        st.goodput / st.throughput
    );
    assert!(ttft.p99 < 0.5, "the TTFT SLO holds at p99");
    assert!(st.slo_attainment >= 90.0);
    assert!(st.goodput / st.throughput >= 0.9);
}

#[test]
fn near_full_load_the_ttft_tail_tears_away_from_the_median() {
    let [calm, busy, full] = [0.85, 0.95, 0.99].map(|rho| steady(&course(rho, false)));
    for (rho, st) in [(85, &calm), (95, &busy), (99, &full)] {
        let t = st.ttft.unwrap();
        println!(
            "{rho}%: TTFT p50 {:.3} p99 {:.3} p99/p50 {:.2}",
            t.p50,
            t.p99,
            ratio(st)
        );
    }
    let (calm_ttft, full_ttft) = (calm.ttft.unwrap(), full.ttft.unwrap());
    // Throughput grows by a sixth; the median barely moves while the tail grows several-fold away from it.
    assert!(full.throughput / calm.throughput < 1.2);
    assert!(busy.ttft.unwrap().p50 < 2.0 * calm_ttft.p50);
    assert!(ratio(&busy) > 2.5 * ratio(&calm));
    // At 99% the slots are nearly always full, so even the median request waits for one (Erlang C: P(wait) → 1)
    // and the tail is an order of magnitude above where it was.
    assert!(full_ttft.p99 > 10.0 * calm_ttft.p99);
    assert!(full_ttft.p99 - full_ttft.p50 > 10.0 * (calm_ttft.p99 - calm_ttft.p50));
}

#[test]
fn goodput_falls_away_from_throughput_near_full_load() {
    let points = sweep(&course(0.85, false), &default_load_points(), SEED).unwrap();
    let share = |i: usize| {
        let st = points[i].summary.steady.as_ref().unwrap();
        st.goodput / st.throughput
    };
    println!(
        "goodput/throughput: 85% {:.2}, 90% {:.2}, 95% {:.2}, 99% {:.2}",
        share(0),
        share(5),
        share(10),
        share(14)
    );
    assert!(share(0) >= 0.9);
    assert!(share(5) < share(0) && share(10) < share(5) && share(14) < share(10));
    assert!(share(14) < 0.5);
    assert!(
        matches!(points[15].summary.stability, Stability::Unstable { .. }),
        "100% load has no steady state"
    );
}

#[test]
fn closed_loop_keeps_the_tail_bounded_at_the_same_settings() {
    let (calm, busy) = (steady(&course(0.85, true)), steady(&course(1.0, true)));
    let (calm_ttft, busy_ttft) = (calm.ttft.unwrap(), busy.ttft.unwrap());
    println!(
        "closed 85%: p99 {:.3}; 100%: p99 {:.3}, attainment {:.1}%",
        calm_ttft.p99, busy_ttft.p99, busy.slo_attainment
    );
    assert!(busy_ttft.p99 < 1.5 * calm_ttft.p99);
    assert!(busy_ttft.p99 < 0.5 && busy.slo_attainment >= 90.0);
    // The users slow down with the server: their real rate stays below what they would offer unqueued.
    assert!(busy.effective_arrival_rate < course(1.0, true).saturation_throughput());
    let open_full = steady(&course(0.99, false)).ttft.unwrap();
    assert!(busy_ttft.p99 < open_full.p99 / 4.0);
}

#[test]
fn open_loop_beyond_saturation_ends_and_reports_a_growing_queue_not_numbers() {
    for s in [course(1.2, false), {
        let mut t = Scenario::textbook_preset().with_offered_load(1.0);
        t.customers = 100_000;
        t
    }] {
        let summary = run(&s, SEED).unwrap();
        assert!(summary.steady.is_none());
        match summary.stability {
            Stability::Unstable {
                waiting_growth_rate,
                arrived,
                completed,
                ..
            } => {
                println!(
                    "growth {waiting_growth_rate:.3}/s, arrived {arrived}, completed {completed}"
                );
                assert!(waiting_growth_rate > 0.0 && arrived > completed);
            }
            Stability::Stable => panic!("ρ ≥ 1 must be flagged unstable"),
        }
        assert!(!summary.occupancy.is_empty());
        assert!(serde_json::to_string(&summary)
            .unwrap()
            .find("null")
            .is_none());
    }
}

#[test]
fn invalid_scenarios_name_the_field_instead_of_panicking() {
    let mut s = Scenario::textbook_preset();
    s.service = ServiceKind::Textbook(TextbookService {
        servers: 0,
        mean_service: 1.0,
    });
    assert_eq!(run(&s, 1).unwrap_err().field, "service.textbook.servers");
    let s = Scenario {
        arrivals: Arrivals::poisson(f64::NAN),
        ..Scenario::textbook_preset()
    };
    assert_eq!(run(&s, 1).unwrap_err().field, "arrivals.open.offered_load");
    let s = Scenario {
        arrivals: Arrivals::poisson(-0.5),
        ..Scenario::course_preset()
    };
    assert_eq!(run(&s, 1).unwrap_err().field, "arrivals.open.offered_load");
    let mut s = Scenario::course_preset();
    s.slo.ttft = 0.0;
    assert_eq!(run(&s, 1).unwrap_err().field, "slo.ttft");
    let mut s = Scenario::course_preset();
    if let ServiceKind::Llm(f) = &mut s.service {
        f.max_num_batched_tokens = 8;
    }
    assert_eq!(
        run(&s, 1).unwrap_err().field,
        "service.llm.max_num_batched_tokens"
    );
    assert!(run(&s, 1)
        .unwrap_err()
        .to_string()
        .contains("max_num_batched_tokens"));
}

#[test]
fn a_progressive_run_refines_toward_the_full_run() {
    for s in [Scenario::textbook_preset(), Scenario::course_preset()] {
        let full = run(&s, SEED).unwrap();
        let mut progressive = ProgressiveRun::new(&s, SEED).unwrap();
        let first = progressive.advance(s.customers / 20);
        assert!(!first.done && first.summary.measured < full.measured);
        let mut last = first;
        while !progressive.is_done() {
            last = progressive.advance(s.customers / 7);
        }
        assert!(last.done);
        assert_eq!(last.summary.measured, full.measured);
        let (a, b) = (last.summary.headline().unwrap(), full.headline().unwrap());
        assert!((a.p99 - b.p99).abs() <= 1e-9 * b.p99 && (a.mean - b.mean).abs() <= 1e-9 * b.mean);
        assert!(last.p99_relative_half_width.is_some_and(|w| w < 0.25));
    }
}

#[test]
fn scenarios_and_summaries_survive_a_round_trip_through_json() {
    for s in [
        Scenario::course_preset(),
        Scenario::course_closed_preset(),
        Scenario::distserve_preset(),
    ] {
        let back: Scenario = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(back, s);
    }
    let mut s = Scenario::textbook_preset();
    s.customers = 5_000;
    let summary = run(&s, SEED).unwrap();
    let text = serde_json::to_string(&summary).unwrap();
    let back: goodput_model::RunSummary = serde_json::from_str(&text).unwrap();
    // serde_json's default float parser may differ from the written value in the last bit, so compare with a
    // tolerance rather than bit for bit.
    assert_eq!(back.measured, summary.measured);
    assert_eq!(back.occupancy.len(), summary.occupancy.len());
    let (a, b) = (back.headline().unwrap(), summary.headline().unwrap());
    assert!((a.p99 - b.p99).abs() <= 1e-12 * b.p99 && (a.mean - b.mean).abs() <= 1e-12 * b.mean);
    let points = sweep(&s, &[0.5, 0.9], SEED).unwrap();
    assert_eq!(points[1].exact, exact_reference(&s.with_offered_load(0.9)));
}
