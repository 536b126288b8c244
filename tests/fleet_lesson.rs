//! The lesson's fleet passage and its predict step ("the morning ramp") are answered by the fleet model: the course
//! box through the 30-minute morning ramp, each signal at its default target, seed 1..=3.

use goodput::lesson::{find, Lesson, PredictAnswer};
use goodput::model::fleet::{simulate, FleetDay, FleetSpec, SeriesPoint, Shape, Signal};
use goodput::model::Scenario;

fn lesson() -> &'static Lesson {
    find("latency-throughput-slos").expect("lesson 32 ships")
}

fn capacity() -> f64 {
    Scenario::course_preset().saturation_throughput()
}

fn ramp(signal: Signal, seed: u64) -> (FleetSpec, FleetDay) {
    let course = Scenario::course_preset();
    let spec = FleetSpec {
        traffic: Shape::MorningRamp.traffic(capacity()),
        seconds: 1800.0,
        seed,
        ..FleetSpec::new(signal, &course)
    };
    let day = simulate(&course, &spec).expect("runs");
    (spec, day)
}

fn fleet(p: &SeriesPoint) -> u32 {
    p.replicas + p.starting
}

/// The first point where the autoscaler has asked for a second replica.
fn second_replica(day: &FleetDay) -> Option<&SeriesPoint> {
    day.series.iter().find(|p| fleet(p) >= 2)
}

#[test]
fn the_morning_ramp_step_is_answered_by_the_fleet_model() {
    let step = lesson()
        .predict_steps()
        .into_iter()
        .find(|s| s.id == "predict-fleet-signal")
        .expect("the step ships");
    let PredictAnswer::MultipleChoice { options } = &step.answer else {
        panic!("a multiple choice");
    };
    let right: Vec<bool> = options.iter().map(|o| o.correct).collect();
    assert_eq!(right, [true, false, false, false]);
    assert!(options[0].label.as_str().contains("far too early"));
    let cap = capacity();
    for seed in 1..=3 {
        let (spec, busy) = ramp(Signal::Utilization, seed);
        let (_, waiting) = ramp(Signal::Waiting, seed);
        let (_, ttft) = ramp(Signal::TtftP99, seed);
        let (_, kv) = ramp(Signal::Kv, seed);
        // Utilisation: the second replica within the first minute, at a fifth of capacity, then all 10, kept.
        let first = second_replica(&busy).expect("utilisation scales");
        assert!(
            first.t <= 60.0 && first.offered_rps <= 0.21 * cap,
            "{first:?}"
        );
        assert!(busy.series[..4].iter().any(|p| p.utilization > 0.9));
        let full = busy
            .series
            .iter()
            .position(|p| fleet(p) == 10)
            .expect("reaches the maximum");
        assert!(
            busy.series[full..].iter().all(|p| fleet(p) == 10),
            "never comes down"
        );
        // More than twice the replica-seconds of a fleet sized at 80% of capacity all day long.
        let sized = spec.traffic.expected_by(spec.seconds) / (0.8 * cap);
        assert!(
            busy.summary.replica_seconds > 2.0 * sized,
            "{} vs {sized}",
            busy.summary.replica_seconds
        );
        // The queue and TTFT p99: the second replica when the ramp reaches one replica's capacity, within a scrape
        // of each other.
        let (w, t) = (
            second_replica(&waiting).unwrap(),
            second_replica(&ttft).unwrap(),
        );
        for p in [w, t] {
            assert!(
                (0.9..=1.1).contains(&(p.offered_rps / cap)),
                "seed {seed}: {p:?}"
            );
        }
        assert!(
            (w.t - t.t).abs() <= spec.interval,
            "seed {seed}: {} vs {}",
            w.t,
            t.t
        );
        assert!(first.t < w.t.min(t.t) - 240.0);
        // Neither settles: after growing to five or more, each falls back to two or fewer while the traffic needs
        // more than two replicas, and the queue explodes again.
        for day in [&waiting, &ttft] {
            let grown = day
                .series
                .iter()
                .position(|p| fleet(p) >= 5)
                .expect("grows");
            let fell = day.series[grown..]
                .iter()
                .position(|p| fleet(p) <= 2 && p.offered_rps > 2.0 * cap)
                .map(|i| i + grown)
                .expect("takes the replicas away again");
            assert!(
                day.series[fell..].iter().any(|p| p.waiting > 50.0),
                "seed {seed}"
            );
        }
        // KV usage never adds one: the cache stays under 15% full.
        assert!(second_replica(&kv).is_none());
        assert!(kv.series.iter().all(|p| p.signal.unwrap() < 0.15));
        // Tokens (and requests) per second flatten at capacity while the queue grows without limit.
        let past: Vec<_> = kv.series.iter().filter(|p| p.t >= 600.0).collect();
        assert!(
            past.iter().all(|p| (p.throughput / cap - 1.0).abs() < 0.1),
            "seed {seed}"
        );
        assert!(past.last().unwrap().waiting > 100.0 * past[0].waiting.max(1.0) / 10.0);
    }
    // Headroom: the ramp adds about 0.4 of a replica during one 2-minute start-up.
    let (spec, _) = ramp(Signal::Waiting, 1);
    let per_start_up =
        (spec.traffic.rate(600.0 + spec.start_up_delay) - spec.traffic.rate(600.0)) / capacity();
    assert!((per_start_up - 0.4).abs() < 0.03, "{per_start_up}");
    assert_eq!(spec.start_up_delay, 120.0);
    let reveal = step.reveal.as_str();
    for quoted in [
        "a fifth of one replica",
        "all 10 replicas",
        "more than twice",
        "under 15% full",
        "about 0.4 of a replica",
    ] {
        assert!(reveal.contains(quoted), "{quoted}");
    }
}

#[test]
fn the_speaker_note_promise_is_kept_by_the_fleet_section() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/lessons/32-latency-throughput-slos.md"
    ))
    .unwrap();
    let promise = text
        .find("GPU utilisation or tokens/s")
        .expect("the opening note");
    let section = text
        .find("### A fleet through a day")
        .expect("the fleet section");
    assert!(promise < section);
    assert!(text[promise..section].contains("by the fleet section"));
    let passage = &text[section..];
    assert!(passage.contains("**GPU utilisation**") && passage.contains("**Tokens per\nsecond**"));
}
