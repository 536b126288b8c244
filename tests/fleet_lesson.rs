//! The lesson's fleet passage and its predict step ("the morning ramp") are answered by the fleet model: every choice
//! the widget offers, on the widget's three days and a slow ramp, the course box with the widget's defaults (join
//! the shortest queue, 1 to 10 replicas, a 2-minute start-up). Each sentence that states an outcome is checked here
//! against the days, and the figures the text quotes are the figures the widget's comparison line shows.

use goodput::charts::format::format_percent;
use goodput::fleet_protocol::{start_up_share, FleetSettings, Policy};
use goodput::fleet_view::{format_hours, spec};
use goodput::lesson::{find, Lesson, PredictAnswer};
use goodput::model::fleet::{
    simulate, FleetDay, FleetSpec, SeriesPoint, Shape, Signal, Traffic, Trigger,
};
use goodput::model::scenario::ServiceKind;
use goodput::model::Scenario;

fn lesson() -> &'static Lesson {
    find("latency-throughput-slos").expect("lesson 32 ships")
}

fn text() -> String {
    std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/lessons/32-latency-throughput-slos.md"
    ))
    .unwrap()
}

/// The fleet passage, from its heading to the next one.
fn passage() -> String {
    let text = text();
    let start = text
        .find("### A fleet through a day")
        .expect("the fleet section");
    let end = start + 10 + text[start + 10..].find("\n### ").expect("a next section");
    text[start..end]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn course() -> Scenario {
    Scenario::course_preset()
}

fn capacity() -> f64 {
    course().saturation_throughput()
}

/// A day the lesson talks about: one of the widget's shapes, or the slow ramp, which only the command line runs.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Day {
    Widget(Shape),
    /// `--traffic 0:10,1800:70`: 10 to 70 requests/s over the 30 minutes, less than half as steep as the morning.
    SlowRamp,
}

const DAYS: [Day; 4] = [
    Day::Widget(Shape::MorningRamp),
    Day::SlowRamp,
    Day::Widget(Shape::LunchSpike),
    Day::Widget(Shape::Steady),
];

/// The spec of `policy` on `day` with `seed`: the widget's own (`fleet_view::spec`), so the figures are the ones its
/// comparison line shows.
fn day_spec(policy: Policy, day: Day, seed: u64) -> FleetSpec {
    let shape = match day {
        Day::Widget(shape) => shape,
        Day::SlowRamp => Shape::MorningRamp,
    };
    let settings = FleetSettings {
        policy,
        shape,
        ..FleetSettings::default()
    };
    let mut spec = FleetSpec {
        seed,
        ..spec(&settings, &course())
    };
    if day == Day::SlowRamp {
        spec.traffic = Traffic::parse("0:10,1800:70").unwrap();
    }
    spec
}

fn run(policy: Policy, day: Day, seed: u64) -> FleetDay {
    simulate(&course(), &day_spec(policy, day, seed)).expect("runs")
}

/// `signals` at `targets` on `day`, seed 1: a policy the command line runs but the widget does not offer.
fn with(signals: &[Signal], targets: &[f64], day: Day) -> FleetDay {
    let triggers = signals
        .iter()
        .zip(targets)
        .map(|(&signal, &target)| Trigger { signal, target })
        .collect();
    let spec = FleetSpec {
        triggers,
        ..day_spec(Policy::One(signals[0]), day, 1)
    };
    let day = simulate(&course(), &spec).expect("runs");
    println!(
        "{signals:?} at {targets:?}: {:.2}%, {:.0} replica-s",
        day.summary.slo_attainment, day.summary.replica_seconds
    );
    day
}

fn fleet(p: &SeriesPoint) -> u32 {
    p.replicas + p.starting
}

/// The first point where the autoscaler has asked for a second replica.
fn second_replica(day: &FleetDay) -> Option<&SeriesPoint> {
    day.series.iter().find(|p| fleet(p) >= 2)
}

/// Every choice on every day, seed 1: (day, policy, the day), printed as the table the closing note quotes.
fn table() -> Vec<(Day, Policy, FleetDay)> {
    let all: Vec<(Day, Policy)> = DAYS
        .iter()
        .flat_map(|&d| Policy::ALL.iter().map(move |&p| (d, p)))
        .collect();
    let days: Vec<(Day, Policy, FleetDay)> = std::thread::scope(|s| {
        let handles: Vec<_> = all
            .chunks(8)
            .map(|chunk| {
                s.spawn(move || {
                    chunk
                        .iter()
                        .map(|&(d, p)| (d, p, run(p, d, 1)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    for (d, p, day) in &days {
        println!(
            "{d:?} | {} | {:.1}% | {:.0} replica-s ({} h) | {} scale events",
            p.label(),
            day.summary.slo_attainment,
            day.summary.replica_seconds,
            format_hours(day.summary.replica_seconds),
            day.summary.scale_events
        );
    }
    days
}

fn find_day(days: &[(Day, Policy, FleetDay)], day: Day, policy: Policy) -> &FleetDay {
    &days
        .iter()
        .find(|(d, p, _)| *d == day && *p == policy)
        .unwrap()
        .2
}

/// The widget's figures for a day: its attainment and replica-hours as the comparison line writes them.
fn shown(day: &FleetDay) -> (String, String) {
    (
        format_percent(day.summary.slo_attainment / 100.0),
        format_hours(day.summary.replica_seconds),
    )
}

/// Asserts that the passage (or the reveal) states each of `figures`.
fn states(text: &str, figures: &[String]) {
    for figure in figures {
        assert!(
            text.contains(figure.as_str()),
            "the text does not say {figure:?}"
        );
    }
}

/// Replica-seconds of a fleet sized by Little's Law at 80% of capacity all day: the day's requests over 80% of one
/// replica's rate.
fn sized_at_80(spec: &FleetSpec) -> f64 {
    spec.traffic.expected_by(spec.seconds) / (0.8 * capacity())
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
    let reveal = step
        .reveal
        .as_str()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let cap = capacity();
    let ramp = Day::Widget(Shape::MorningRamp);
    let one = |signal| Policy::One(signal);
    for seed in 1..=3 {
        let busy = run(one(Signal::Utilization), ramp, seed);
        let waiting = run(one(Signal::Waiting), ramp, seed);
        let ttft = run(one(Signal::TtftP99), ramp, seed);
        let kv = run(one(Signal::Kv), ramp, seed);
        // Utilisation: the second replica within the first minute, at a fifth of capacity, then all 10, kept.
        let first = second_replica(&busy).expect("utilisation scales");
        assert!(
            first.t <= 60.0 && first.offered_rps <= 0.21 * cap,
            "{first:?}"
        );
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
        let spec = day_spec(one(Signal::Utilization), ramp, seed);
        assert!(busy.summary.replica_seconds > 2.0 * sized_at_80(&spec));
        // The queue and TTFT p99: the second replica when the ramp reaches one replica's capacity, within a scrape
        // of each other, long after utilisation.
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
        // Neither settles: while replicas start they ask for all 10; then each falls back to two or fewer while the
        // traffic needs more than two replicas, and the queue explodes again. They pay at least 95% of what
        // utilisation pays, and meet the SLO for under 80% of requests.
        for day in [&waiting, &ttft] {
            let grown = day
                .series
                .iter()
                .position(|p| fleet(p) == 10)
                .expect("asks for all 10");
            let fell = day.series[grown..]
                .iter()
                .position(|p| fleet(p) <= 2 && p.offered_rps > 2.0 * cap)
                .map(|i| i + grown)
                .expect("takes the replicas away again");
            assert!(
                day.series[fell..].iter().any(|p| p.waiting > 50.0),
                "seed {seed}"
            );
            assert!(day.summary.replica_seconds > 0.95 * busy.summary.replica_seconds);
            assert!((72.0..78.0).contains(&day.summary.slo_attainment));
        }
        // KV usage never adds one: the cache stays under 15% full.
        assert!(second_replica(&kv).is_none());
        assert!(kv.series.iter().all(|p| p.signals[0].unwrap() < 0.15));
        // Tokens (and requests) per second flatten at capacity while the queue grows without limit.
        let past: Vec<_> = kv.series.iter().filter(|p| p.t >= 600.0).collect();
        assert!(
            past.iter().all(|p| (p.throughput / cap - 1.0).abs() < 0.1),
            "seed {seed}"
        );
        assert!(past.last().unwrap().waiting > 100.0 * past[0].waiting.max(1.0) / 10.0);
        if seed == 1 {
            // The figures the reveal quotes are the widget's.
            let sized = format_hours(sized_at_80(&spec));
            let (busy_met, busy_hours) = shown(&busy);
            // "All but a few requests in 10,000": between 1 and 9 of them miss the SLO.
            let missed_per_10k = 100.0 * (100.0 - busy.summary.slo_attainment);
            assert!((1.0..10.0).contains(&missed_per_10k), "{missed_per_10k}");
            let queue_hours = format_hours(
                waiting
                    .summary
                    .replica_seconds
                    .max(ttft.summary.replica_seconds),
            );
            assert_eq!(queue_hours, format_hours(ttft.summary.replica_seconds));

            states(
                &reveal,
                &[
                    format!(
                        "all but a few requests in 10,000 (the widget shows {busy_met}) and pays {busy_hours} \
                         replica-hours"
                    ),
                    format!("more than twice the {sized} that Little's Law sizing at 80% would pay"),
                    format!("{queue_hours} replica-hours, and meet the SLO for only about three requests in four"),
                ],
            );
        }
    }
    // Headroom: the ramp adds about 0.4 of a replica during one 2-minute start-up.
    let spec = day_spec(Policy::One(Signal::Waiting), ramp, 1);
    let per_start_up =
        (spec.traffic.rate(600.0 + spec.start_up_delay) - spec.traffic.rate(600.0)) / cap;
    assert!((per_start_up - 0.4).abs() < 0.03, "{per_start_up}");
    assert_eq!(spec.start_up_delay, 120.0);
    assert!((1.0 - start_up_share() - per_start_up).abs() < 1e-9);
    for quoted in [
        "a fifth of one replica",
        "all 10 replicas",
        "under 15% full",
        "about 0.4 of a replica",
    ] {
        assert!(reveal.contains(quoted), "{quoted}");
    }
}

#[test]
fn the_passage_states_what_every_choice_does_on_every_day() {
    let days = table();
    let text = passage();
    let course = course();
    let cap = capacity();
    let ramp = Day::Widget(Shape::MorningRamp);
    let on = |day, policy| find_day(&days, day, policy);
    let one = Policy::One;
    // The Little's Law targets: 80% of 27.1 requests/s is 21.7; 24 requests in the batch there, W = 1.1 s.
    let running_target = Signal::Running.default_target(&course);
    let rate_target = Signal::Rate.default_target(&course);
    assert_eq!(running_target, Signal::Inflight.default_target(&course));
    assert!(running_target < 0.8 * 64.0);
    states(
        &text,
        &[
            format!("serves {cap:.1} requests/s, so 80% is {rate_target} requests/s per replica"),
            format!(
                "puts {running_target} requests in the batch ($W = {:.1}$ s)",
                running_target / rate_target
            ),
        ],
    );
    // Requests running: on the ramp, 10 replicas' batches hold about a quarter of the target each, so within five
    // minutes the fleet is cut, scrape by scrape, to a few replicas each near its capacity, and the queue grows again
    // until the replicas asked for next are ready; the day's figures.
    let running = on(ramp, one(Signal::Running));
    let at_ten: Vec<f64> = running
        .series
        .iter()
        .filter(|p| p.replicas == 10 && p.starting == 0 && p.t > 1400.0)
        .map(|p| p.running)
        .collect();
    assert!(!at_ten.is_empty());
    let mean = at_ten.iter().sum::<f64>() / at_ten.len() as f64;
    assert!((5.5..6.5).contains(&mean), "{mean}");
    let ten = running
        .series
        .iter()
        .position(|p| p.replicas == 10 && p.starting == 0)
        .expect("reaches 10");
    let cut_starts = ten
        + running.series[ten..]
            .iter()
            .position(|p| fleet(p) < 10)
            .expect("cut");
    assert!(running.series[cut_starts].t - running.series[ten].t <= 300.0 + 15.0);
    // The cut goes on while the count falls and nothing starts; its last point is the fleet it leaves.
    let cutting = running.series[cut_starts..]
        .windows(2)
        .take_while(|w| w[1].starting == 0 && fleet(&w[1]) <= fleet(&w[0]))
        .count();
    let cut = &running.series[cut_starts + cutting];
    let load = cut.offered_rps / (f64::from(fleet(cut)) * cap);
    assert!(fleet(cut) <= 5 && (0.9..1.0).contains(&load), "{cut:?}");
    // The queue grows past the target of 5 per replica before the next replicas are ready.
    let regrown = running.series[cut_starts + cutting..]
        .iter()
        .position(|p| p.replicas > fleet(cut))
        .expect("asks for more")
        + cut_starts
        + cutting;
    assert!(running.series[cut_starts + cutting..regrown]
        .iter()
        .any(|p| p.starting > 0 && p.waiting > 5.0));
    let (met, hours) = shown(running);
    states(
        &text,
        &[format!(
            "cuts the fleet to {} replicas, each at {:.0}% of its capacity, and the queue grows again until the \
             replicas it asks for next have started: {met} of requests meet the SLO, for {hours} replica-hours",
            fleet(cut),
            100.0 * load
        )],
    );
    // Requests in flight fare no better on this day.
    let inflight = on(ramp, one(Signal::Inflight));
    assert!(inflight.summary.slo_attainment <= running.summary.slo_attainment);
    let (met, hours) = shown(inflight);
    states(
        &text,
        &[format!("fare no better, {met} for {hours} replica-hours")],
    );
    // The pair llm-d's KEDA example uses, the queue and requests running (`--scale-on waiting,running`): the largest
    // proposal wins, so running's deep cut stays, and the queue explodes as often.
    let pair = with(
        &[Signal::Waiting, Signal::Running],
        &[5.0, running_target],
        ramp,
    );
    assert!(pair.summary.slo_attainment < 80.0);
    let (met, hours) = shown(&pair);
    states(
        &text,
        &[format!(
            "`--scale-on waiting,running --target 5,{running_target}`), keeps that cut: {met} of requests meet the \
             SLO, for {hours} replica-hours"
        )],
    );
    // The request rate at 80%: the cheapest day that serves, and short of the SLO; with a start-up of headroom,
    // under a fifth as many requests miss it, at well under two thirds of utilisation's cost.
    let rate = on(ramp, one(Signal::Rate));
    let advised = on(ramp, Policy::RateWithStartUpHeadroom);
    let busy = on(ramp, one(Signal::Utilization));
    for (d, p, day) in &days {
        if *d == ramp && day.summary.slo_attainment > 50.0 {
            assert!(
                day.summary.replica_seconds >= rate.summary.replica_seconds,
                "{p:?}"
            );
        }
    }
    assert!(rate.summary.slo_attainment < 95.0);
    let missed = |day: &FleetDay| 100.0 - day.summary.slo_attainment;
    assert!(missed(advised) < 0.2 * missed(rate));
    let share = advised.summary.replica_seconds / busy.summary.replica_seconds;
    assert!(share < 0.6, "{share}");
    let advised_target = Policy::RateWithStartUpHeadroom.triggers(&course)[0].target;
    let (rate_met, rate_hours) = shown(rate);
    let (advised_met, advised_hours) = shown(advised);
    states(
        &text,
        &[
            format!("the cheapest day, {rate_hours} replica-hours, but only {rate_met} of requests"),
            format!("aim each replica at {:.0}% of its capacity", 100.0 * start_up_share()),
            format!("({advised_target} requests/s): {advised_met} of requests meet the SLO for {advised_hours} replica-hours, {:.0}% of what utilisation spends", 100.0 * share),
            format!("`--scale-on rate --target {advised_target}`"),
            format!("*{}*", Policy::RateWithStartUpHeadroom.label()),
        ],
    );
    // Requests running given the same start-up of headroom: the batch Little's Law puts at that share of capacity.
    let ServiceKind::Llm(llm) = &course.service else {
        panic!("the course box is an LLM replica")
    };
    let headroom_batch = llm.batch_at(start_up_share()).round();
    let running_headroom = with(&[Signal::Running], &[headroom_batch], ramp);
    assert!(running_headroom.summary.slo_attainment >= 98.5);
    // It rescues the morning too, for less than utilisation pays (the text quotes both figures, not a ratio).
    assert!(running_headroom.summary.replica_seconds < busy.summary.replica_seconds);
    // The rate does it for less, and a few more of its requests miss the SLO: under one in a hundred more.
    assert!(running_headroom.summary.replica_seconds > advised.summary.replica_seconds);
    let more_missed = missed(advised) - missed(&running_headroom);
    assert!((0.0..1.0).contains(&more_missed), "{more_missed}");
    let (met, hours) = shown(&running_headroom);
    states(
        &text,
        &[format!(
            "(`--scale-on running --target {headroom_batch}`), meet the SLO for {met} of requests, for {hours} \
             replica-hours"
        )],
    );
    states(
        &text,
        &[format!(
            "does it for less: {advised_hours} replica-hours against {hours}, for a few more requests over the SLO"
        )],
    );
    // The slow ramp: the advice against utilisation.
    let (slow_met, slow_hours) = shown(on(Day::SlowRamp, Policy::RateWithStartUpHeadroom));
    let (_, slow_busy_hours) = shown(on(Day::SlowRamp, one(Signal::Utilization)));
    states(
        &text,
        &[format!("{slow_met} of requests for {slow_hours} replica-hours, against utilisation's {slow_busy_hours}")],
    );
    // The lunch spike: no signal that reacts passes 80%; utilisation meets it by running all 10 from before the step.
    let spike = Day::Widget(Shape::LunchSpike);
    for policy in Policy::ALL {
        let day = on(spike, policy);
        if policy == one(Signal::Utilization) {
            assert!(day.summary.slo_attainment > 99.0);
            let before = day.series.iter().rfind(|p| p.t < 600.0).unwrap();
            assert!(before.offered_rps < 0.61 * cap);
            states(
                &text,
                &[format!(
                    "had already grown the fleet to {} replicas for a load that one replica carries at {:.0}%",
                    fleet(before),
                    100.0 * before.offered_rps / cap
                )],
            );
        } else {
            assert!(day.summary.slo_attainment <= 80.0, "{policy:?}");
        }
    }
    assert!(text.contains("none meets the SLO for more than 80% of requests"));
    // On every day the advice costs less than utilisation, and meets the SLO at least as often as any signal that
    // reacts (utilisation and its all-day fleet aside).
    for day in DAYS {
        let advised = on(day, Policy::RateWithStartUpHeadroom);
        assert!(
            advised.summary.replica_seconds
                < 0.6 * on(day, one(Signal::Utilization)).summary.replica_seconds
        );
        for policy in Policy::ALL
            .into_iter()
            .filter(|p| *p != one(Signal::Utilization))
        {
            assert!(
                advised.summary.slo_attainment + 0.5 >= on(day, policy).summary.slo_attainment,
                "{day:?} {policy:?}"
            );
        }
    }
}

#[test]
fn the_speaker_note_promise_is_kept_by_the_fleet_section() {
    let text = text();
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

#[test]
fn other_draws_of_the_morning_move_the_figures_but_not_the_verdict() {
    let ramp = Day::Widget(Shape::MorningRamp);
    let policies = [
        Policy::One(Signal::Running),
        Policy::One(Signal::Inflight),
        Policy::RateWithStartUpHeadroom,
    ];
    // Each policy's attainment on seeds 1 to 8, one thread a policy.
    let met: Vec<Vec<f64>> = std::thread::scope(|s| {
        let handles: Vec<_> = policies
            .iter()
            .map(|&policy| {
                s.spawn(move || {
                    let met: Vec<f64> = (1..=8)
                        .map(|seed| run(policy, ramp, seed).summary.slo_attainment)
                        .collect();
                    println!("{}: {met:.2?}", policy.label());
                    met
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let range = |met: &[f64]| {
        let low = met.iter().copied().fold(f64::INFINITY, f64::min);
        let high = met.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (low, high)
    };
    let [running, inflight, advised] = [range(&met[0]), range(&met[1]), range(&met[2])];
    // Neither signal that cuts deep reaches the headroom's worst draw on its best.
    assert!(running.1.max(inflight.1) < advised.0);
    let whole = |x: f64| format!("{x:.0}%");
    states(
        &passage(),
        &[format!(
            "over seeds 1 to 8, requests running meet the SLO for {} to {} of requests and requests in flight for {} \
             to {}, while the rate with start-up headroom stays between {} and {}",
            whole(running.0),
            whole(running.1),
            whole(inflight.0),
            whole(inflight.1),
            whole(advised.0),
            whole(advised.1)
        )],
    );
    // Which of the two does better is the draw's: each wins on some seed.
    let pairs = || met[0].iter().zip(&met[1]);
    assert!(pairs().any(|(r, i)| r > i) && pairs().any(|(r, i)| i > r));
}
