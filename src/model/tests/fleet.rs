//! The fleet model against the replica model and queueing facts: a fixed fleet at a constant rate is the replica
//! model; Little's Law holds per replica; join-the-shortest-queue is no worse than round robin; a longer start-up
//! never helps on a spike; the autoscaler stays in its bounds; the traffic's arrivals follow its curve.

use goodput_model::fleet::{simulate, FleetDay, FleetSpec, Route, Shape, Signal, Traffic, Trigger};
use goodput_model::{bench_requests, replay, Scenario};
use proptest::prelude::*;

fn course() -> Scenario {
    Scenario::course_preset()
}

/// A fixed fleet of `n` replicas at a constant `rate` for `seconds`.
fn fixed(n: u32, rate: f64, seconds: f64, route: Route, seed: u64) -> FleetDay {
    let spec = FleetSpec {
        traffic: Traffic::parse(&format!("0:{rate}")).unwrap(),
        seconds,
        route,
        min: n,
        max: n,
        seed,
        ..FleetSpec::new(Signal::Waiting, &course())
    };
    simulate(&course(), &spec).unwrap()
}

/// The replica model's finite run of one replica at `rate` for `seconds`, with gaps of coefficient of variation
/// `cv` (1: Poisson): (p99 TTFT, p99 TPOT, SLO attainment %).
fn one_replica(rate: f64, seconds: f64, cv: f64, seed: u64) -> (f64, f64, f64) {
    let n = (rate * seconds) as u64;
    let scenario = goodput_model::ScenarioSettings {
        arrival_cv: Some(cv),
        ..Default::default()
    }
    .apply(&course())
    .unwrap();
    let requests = bench_requests(&scenario, rate, n, seed).unwrap();
    let s = replay(&scenario, &requests, Some(rate)).unwrap();
    (s.ttft.p99, s.tpot.p99, s.slo_attainment)
}

fn mean(xs: impl Iterator<Item = f64>) -> f64 {
    let v: Vec<f64> = xs.collect();
    v.iter().sum::<f64>() / v.len() as f64
}

#[test]
fn a_fixed_fleet_at_a_constant_rate_is_the_replica_model() {
    let capacity = course().saturation_throughput();
    let rate = 0.75 * capacity;
    let seeds = 1..=4;
    // One replica: the same model fed by the router, with other draws of the same process.
    let fleet_ttft = mean(seeds.clone().map(|s| {
        fixed(1, rate, 1200.0, Route::ShortestQueue, s)
            .summary
            .ttft_p99
    }));
    let fleet_tpot = mean(seeds.clone().map(|s| {
        fixed(1, rate, 1200.0, Route::ShortestQueue, s)
            .summary
            .tpot_p99
    }));
    let model = seeds
        .clone()
        .map(|s| one_replica(rate, 1200.0, 1.0, s))
        .collect::<Vec<_>>();
    let model_ttft = mean(model.iter().map(|m| m.0));
    let model_tpot = mean(model.iter().map(|m| m.1));
    println!("one replica at 75%: p99 TTFT fleet {fleet_ttft:.4} model {model_ttft:.4}; p99 TPOT {fleet_tpot:.5} {model_tpot:.5}");
    assert!(
        (fleet_ttft / model_ttft - 1.0).abs() < 0.08,
        "{fleet_ttft} vs {model_ttft}"
    );
    assert!(
        (fleet_tpot / model_tpot - 1.0).abs() < 0.03,
        "{fleet_tpot} vs {model_tpot}"
    );
    // Four replicas behind round robin at four times the rate: each gets every fourth arrival of a Poisson stream,
    // gaps that are gamma with shape 4 (coefficient of variation 1/2), which is the replica model with
    // --arrival-cv 0.5 at the per-replica rate. Smoother than Poisson, so its tail is shorter than one replica's.
    let four_ttft = mean(seeds.clone().map(|s| {
        fixed(4, 4.0 * rate, 600.0, Route::RoundRobin, s)
            .summary
            .ttft_p99
    }));
    let four_tpot = mean(seeds.clone().map(|s| {
        fixed(4, 4.0 * rate, 600.0, Route::RoundRobin, s)
            .summary
            .tpot_p99
    }));
    let smooth = seeds
        .map(|s| one_replica(rate, 1200.0, 0.5, s))
        .collect::<Vec<_>>();
    let smooth_ttft = mean(smooth.iter().map(|m| m.0));
    let smooth_tpot = mean(smooth.iter().map(|m| m.1));
    println!("four replicas, round robin: p99 TTFT {four_ttft:.4} vs {smooth_ttft:.4}, p99 TPOT {four_tpot:.5} vs {smooth_tpot:.5}");
    assert!(
        (four_ttft / smooth_ttft - 1.0).abs() < 0.08,
        "{four_ttft} vs {smooth_ttft}"
    );
    assert!(
        (four_tpot / smooth_tpot - 1.0).abs() < 0.03,
        "{four_tpot} vs {smooth_tpot}"
    );
    assert!(four_ttft < model_ttft);
}

#[test]
fn littles_law_holds_on_every_replica_and_no_request_is_lost() {
    let spec = FleetSpec {
        traffic: Shape::MorningRamp.traffic(course().saturation_throughput()),
        seconds: 900.0,
        seed: 3,
        ..FleetSpec::new(Signal::Utilization, &course())
    };
    let day = simulate(&course(), &spec).unwrap();
    let arrivals = spec.traffic.arrivals(spec.seconds, spec.seed).len() as u64;
    assert_eq!(day.replicas.iter().map(|r| r.served).sum::<u64>(), arrivals);
    let served: Vec<_> = day.replicas.iter().filter(|r| r.served > 0).collect();
    assert!(served.len() >= 3, "the ramp spreads over several replicas");
    for r in served {
        // Over a replica's whole life (it starts and ends empty), the time-average in system times the life equals
        // the sum of the latencies: L = λW with both sides over the same span.
        let relative = (r.in_system_area - r.latency_sum).abs() / r.latency_sum;
        assert!(relative < 1e-6, "{r:?}");
    }
}

/// Mean p99 TTFT of four replicas at `load` of their capacity behind `route`, over three seeds.
fn route_p99(load: f64, route: Route) -> f64 {
    let rate = 4.0 * load * course().saturation_throughput();
    mean((1..=3).map(|s| fixed(4, rate, 600.0, route, s).summary.ttft_p99))
}

#[test]
fn joining_the_shortest_queue_is_no_worse_than_round_robin_at_p99_once_queues_form() {
    for load in [0.95, 0.98, 1.0] {
        let (rr, jsq, p2c) = (
            route_p99(load, Route::RoundRobin),
            route_p99(load, Route::ShortestQueue),
            route_p99(load, Route::TwoChoices),
        );
        println!("{load}: p99 TTFT rr {rr:.3}, jsq {jsq:.3}, p2c {p2c:.3}");
        assert!(jsq <= rr, "{load}: jsq {jsq} vs rr {rr}");
        assert!(jsq <= p2c * 1.02, "{load}: jsq {jsq} vs p2c {p2c}");
    }
    // Below the knee no request waits for a slot, and TTFT is the prefill backlog, which the count of outstanding
    // requests does not see: a replica whose decodes just finished looks shortest and takes a run of prompts at
    // once, while round robin spaces them evenly. Winston's theorem is for a queue; here there is none yet.
    let (rr, jsq) = (
        route_p99(0.9, Route::RoundRobin),
        route_p99(0.9, Route::ShortestQueue),
    );
    println!("0.9: p99 TTFT rr {rr:.3}, jsq {jsq:.3}");
    assert!(
        rr < jsq,
        "at 90% round robin's even spacing wins: rr {rr} vs jsq {jsq}"
    );
}

/// A lunch spike on the waiting signal with a start-up delay of `delay` seconds: the day's SLO attainment.
fn spike_attainment(delay: f64, seed: u64) -> f64 {
    let spec = FleetSpec {
        traffic: Shape::LunchSpike.traffic(course().saturation_throughput()),
        seconds: 1500.0,
        start_up_delay: delay,
        seed,
        ..FleetSpec::new(Signal::Waiting, &course())
    };
    simulate(&course(), &spec).unwrap().summary.slo_attainment
}

#[test]
fn a_longer_start_up_never_improves_slo_attainment_on_a_spike() {
    for seed in 1..=3 {
        let attainment: Vec<f64> = [0.0, 30.0, 60.0, 120.0, 240.0]
            .iter()
            .map(|&d| spike_attainment(d, seed))
            .collect();
        println!("seed {seed}: attainment by start-up {attainment:.2?}");
        for w in attainment.windows(2) {
            assert!(w[1] <= w[0] + 0.25, "seed {seed}: {attainment:?}");
        }
        assert!(
            attainment[4] < attainment[0] - 5.0,
            "a long start-up costs: {attainment:?}"
        );
    }
}

#[test]
fn the_same_seed_gives_the_same_day() {
    let spec = FleetSpec {
        traffic: Shape::LunchSpike.traffic(20.0),
        seconds: 600.0,
        route: Route::TwoChoices,
        ..FleetSpec::new(Signal::TtftP99, &course())
    };
    assert_eq!(
        simulate(&course(), &spec).unwrap(),
        simulate(&course(), &spec).unwrap()
    );
}

#[test]
fn arrivals_follow_the_rate_curve() {
    let traffic = Traffic::parse("0:10,1000:50,1000:5,3000:5").unwrap();
    let times = traffic.arrivals(3000.0, 9);
    for (from, to) in [(0.0, 1000.0), (500.0, 1000.0), (1000.0, 3000.0)] {
        let expected = traffic.expected_by(to) - traffic.expected_by(from);
        let got = times.iter().filter(|&&t| t >= from && t < to).count() as f64;
        // Poisson: within four standard deviations.
        assert!(
            (got - expected).abs() < 4.0 * expected.sqrt(),
            "{from}–{to}: {got} vs {expected}"
        );
    }
    assert_eq!(traffic.expected_by(1000.0), 30_000.0);
    assert_eq!(traffic.rate(1000.0), 5.0, "a step takes the rate after it");
    assert_eq!(traffic.rate(500.0), 30.0);
    assert_eq!(traffic.rate(9000.0), 5.0, "constant after the last point");
}

#[test]
fn bad_traffic_and_specs_are_refused_in_one_sentence() {
    for (text, words) in [
        ("", "point 1"),
        ("0:5,abc", "point 2: \"abc\" is not time_s:requests_per_s"),
        ("10:5,5:5", "point 2: the time"),
        ("0:-1", "point 1: the rate"),
        ("0:5:6", "point 1"),
    ] {
        let e = Traffic::parse(text).unwrap_err();
        assert!(e.contains(words), "{text:?}: {e}");
        assert!(!e.contains('\n'));
    }
    let base = FleetSpec::new(Signal::Waiting, &course());
    for (spec, field) in [
        (
            FleetSpec {
                min: 0,
                ..base.clone()
            },
            "min",
        ),
        (
            FleetSpec {
                min: 3,
                max: 2,
                ..base.clone()
            },
            "max",
        ),
        (
            FleetSpec {
                interval: 0.5,
                ..base.clone()
            },
            "interval",
        ),
        (
            FleetSpec {
                triggers: vec![Trigger {
                    signal: Signal::Running,
                    target: f64::NAN,
                }],
                ..base.clone()
            },
            "target",
        ),
        (
            FleetSpec {
                triggers: vec![],
                ..base.clone()
            },
            "signal",
        ),
        (
            FleetSpec::on(
                &[Signal::Waiting, Signal::Running, Signal::Waiting],
                &course(),
            ),
            "signal",
        ),
        (
            FleetSpec {
                seconds: -1.0,
                ..base.clone()
            },
            "seconds",
        ),
        (
            FleetSpec {
                start_up_delay: -1.0,
                ..base.clone()
            },
            "start_up_delay",
        ),
    ] {
        assert_eq!(spec.validate(&course()).unwrap_err().0, field);
    }
    assert!(simulate(&Scenario::textbook_preset(), &base).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Whatever the traffic and the autoscaler, the replica count stays within its bounds, every request is
    /// served once, and the series has one point per interval.
    #[test]
    fn the_fleet_stays_in_bounds_and_serves_every_request(
        rates in proptest::collection::vec(0.0f64..80.0, 1..5),
        signals in proptest::sample::subsequence(Signal::ALL.to_vec(), 1..=2),
        route in 0usize..3,
        min in 1u32..3,
        extra in 0u32..4,
        delay in 0.0f64..200.0,
        seed in 0u64..1000,
    ) {
        let points: Vec<String> = rates.iter().enumerate().map(|(i, r)| format!("{}:{r}", 60 * i)).collect();
        let spec = FleetSpec {
            traffic: Traffic::parse(&points.join(",")).unwrap(),
            seconds: 300.0,
            route: Route::ALL[route],
            min,
            max: min + extra,
            start_up_delay: delay,
            seed,
            ..FleetSpec::on(&signals, &course())
        };
        let day = simulate(&course(), &spec).unwrap();
        prop_assert_eq!(day.series.len(), 20);
        for p in &day.series {
            prop_assert_eq!(p.signals.len(), signals.len());
            prop_assert!(p.replicas >= 1 && p.replicas + p.starting <= spec.max);
            prop_assert!(p.replicas + p.starting >= spec.min);
            prop_assert!((0.0..=1.0 + 1e-9).contains(&p.utilization));
        }
        let arrivals = spec.traffic.arrivals(spec.seconds, seed).len() as u64;
        prop_assert_eq!(day.replicas.iter().map(|r| r.served).sum::<u64>(), arrivals);
        prop_assert!((0.0..=100.0).contains(&day.summary.slo_attainment));
        prop_assert!(day.summary.replica_seconds >= f64::from(spec.min) * 300.0 - 1e-6);
    }
}
