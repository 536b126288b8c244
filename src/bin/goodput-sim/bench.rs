//! Throughput of the simulator, for BENCHMARKS.md: a markdown table for people, JSON for `tools/bench.mjs`.

#[cfg(not(target_arch = "wasm32"))]
mod traces;

use goodput::cluster::{exposition::synthetic_page, metrics::parse, vllm::find_signals};
use goodput::model::{
    default_load_points, run, sweep, Arrivals, Scenario, ServiceKind, TextbookService,
};
use serde::Serialize;
use std::time::Instant;

/// How much work to time.
#[derive(Clone, Copy)]
pub enum Size {
    /// The BENCHMARKS.md figures.
    Full,
    /// A quick smoke run.
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    Quick,
}

/// One measured line.
#[derive(Serialize)]
pub struct Line {
    /// What was timed, e.g. "M/M/4 open, ρ = 0.9".
    pub what: String,
    /// How much work: a count of `unit`.
    pub work: u64,
    /// What `work` counts: customers, requests, bytes.
    pub unit: &'static str,
    /// The work in words, e.g. "1100000 requests".
    pub work_text: String,
    /// Seconds it took (see [`Report::clock`]).
    pub seconds: f64,
    /// The rate in words, e.g. "8.16 M requests/s".
    pub rate: String,
}

/// Every line with the conditions they were measured in.
#[derive(Serialize)]
pub struct Report<'a> {
    /// Where the bench ran, e.g. "native x86_64".
    pub target: &'a str,
    /// Hardware threads visible (the bench itself is single-threaded).
    pub threads: usize,
    /// What timed it: "thread CPU time" or "wall clock".
    pub clock: &'static str,
    /// The UTC date, YYYY-MM-DD.
    pub date: String,
    /// The measurements.
    pub lines: &'a [Line],
}

/// CPU time this thread has run, in seconds, where Linux exposes it (`/proc/thread-self/schedstat`, in ns).
/// Other engineers compile on the same machine, so CPU time is a fairer measure than the wall clock.
fn cpu_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    Some(text.split_whitespace().next()?.parse::<f64>().ok()? / 1e9)
}

/// Runs `f` and returns its result with the seconds it took: CPU time when available, else wall clock.
/// One bench row: a whole run of `scenario` (warm-up included), as millions of `unit` per second.
fn time_run(what: &str, scenario: &Scenario, unit: &'static str) -> Line {
    let n = scenario.customers + scenario.warm_up;
    let (_, secs) = timed(|| run(scenario, 7));
    Line {
        what: what.to_string(),
        work: n,
        unit,
        work_text: format!("{n} {unit}"),
        seconds: secs,
        rate: format!("{:.2} M {unit}/s", n as f64 / secs / 1e6),
    }
}

fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let (start, cpu_start) = (Instant::now(), cpu_seconds());
    let out = f();
    let wall = start.elapsed().as_secs_f64();
    let secs = match (cpu_start, cpu_seconds()) {
        (Some(a), Some(b)) if b > a => b - a,
        _ => wall,
    };
    (out, secs)
}

fn textbook(servers: u32, arrivals: Arrivals, customers: u64) -> Scenario {
    let mut s = Scenario::textbook_preset();
    s.service = ServiceKind::Textbook(TextbookService {
        servers,
        mean_service: 1.0,
    });
    s.arrivals = arrivals;
    s.customers = customers;
    s.warm_up = 0;
    s
}

/// Runs every benchmark once (after a short warm-up run).
pub fn measure(size: Size) -> Vec<Line> {
    let scale = match size {
        Size::Full => 1,
        Size::Quick => 20,
    };
    let mut lines = Vec::new();
    let mmc = [
        (
            "M/M/1 open, ρ = 0.9",
            textbook(1, Arrivals::poisson(0.9), 10_000_000 / scale),
        ),
        (
            "M/M/4 open, ρ = 0.9",
            textbook(4, Arrivals::poisson(0.9), 10_000_000 / scale),
        ),
        (
            "M/M/4 closed, N = 16, Z = 4",
            textbook(
                4,
                Arrivals::Closed {
                    users: 16,
                    think_time: 4.0,
                },
                5_000_000 / scale,
            ),
        ),
    ];
    let _ = run(&mmc[1].1.clone().with_offered_load(0.5), 1);
    for (what, s) in mmc {
        lines.push(time_run(what, &s, "customers"));
    }
    for (what, mut s) in [
        (
            "LLM course preset, open, ρ = 0.9",
            Scenario::course_preset(),
        ),
        (
            "LLM course preset, closed, ρ = 0.9",
            Scenario::course_closed_preset(),
        ),
        (
            "LLM DistServe preset, open, ρ = 0.9",
            Scenario::distserve_preset(),
        ),
    ] {
        s.customers = 1_000_000 / scale;
        s.warm_up = s.customers / 10;
        lines.push(time_run(what, &s, "requests"));
    }
    let loads = default_load_points();
    for (what, s) in [
        (
            "default sweep, course preset (85%..100%, 16 points)",
            Scenario::course_preset(),
        ),
        (
            "default sweep, textbook preset (85%..100%, 16 points)",
            Scenario::textbook_preset(),
        ),
    ] {
        let n = (s.customers + s.warm_up) * loads.len() as u64;
        let (_, secs) = timed(|| sweep(&s, &loads, 7));
        lines.push(Line {
            what: what.to_string(),
            work: n,
            unit: "requests",
            work_text: format!("{n} requests"),
            seconds: secs,
            rate: format!("{:.0} ms per sweep", secs * 1e3),
        });
    }
    lines.push(time_metrics_page());
    lines.push(time_timeline());
    lines.push(time_fleet_day());
    #[cfg(not(target_arch = "wasm32"))]
    lines.extend(traces::time_trace_readers(1_000_000 / scale as usize));
    lines
}

/// A 30-minute day of the fleet: the course box under the morning ramp (a fifth of one replica's capacity to four
/// replicas' worth), scaling on the waiting queue, 1 to 10 replicas: best of three.
fn time_fleet_day() -> Line {
    use goodput::model::fleet::{simulate, FleetSpec, Shape, Signal};
    let course = Scenario::course_preset();
    let spec = FleetSpec {
        traffic: Shape::MorningRamp.traffic(course.saturation_throughput()),
        seconds: 1800.0,
        ..FleetSpec::new(Signal::Waiting, &course)
    };
    let requests = spec.traffic.arrivals(spec.seconds, spec.seed).len() as u64;
    let best = (0..3)
        .map(|_| timed(|| simulate(&course, &spec)).1)
        .fold(f64::INFINITY, f64::min);
    Line {
        what: "fleet day, course preset, 30-minute morning ramp, scaling on waiting (best of 3)"
            .to_string(),
        work: requests,
        unit: "requests",
        work_text: format!("{requests} requests"),
        seconds: best,
        rate: format!("{:.0} ms per day", best * 1e3),
    }
}

/// What the batch timeline computes on each move of its load slider (two short runs of the model and a traced
/// window, and the same window with chunked prefill switched), on the course preset at 90%: best of five.
fn time_timeline() -> Line {
    use goodput::lab::{timeline_figures, Compare, LabSettings, TimelineView};
    let settings = LabSettings {
        load_percent: 90,
        ..LabSettings::default()
    };
    let view = TimelineView {
        compare: Compare::Chunking,
        follow: None,
    };
    let mut best = f64::INFINITY;
    let mut iterations = 0;
    for _ in 0..5 {
        let (figures, secs) = timed(|| timeline_figures(&settings, &view));
        iterations = figures.main.steps.len();
        best = best.min(secs);
    }
    Line {
        what: "batch timeline figures, course preset at 90%, chunking compared (best of 5)"
            .to_string(),
        work: iterations as u64,
        unit: "iterations",
        work_text: format!("{iterations} iterations drawn"),
        seconds: best,
        rate: format!("{:.1} ms per timeline", best * 1e3),
    }
}

/// The metrics reader's claim: parsing a 1 MB `/metrics` page and finding its signals takes well under 100 ms.
/// Best of five, since one parse is short enough for a scheduler hiccup to dominate.
fn time_metrics_page() -> Line {
    let page = synthetic_page(1024 * 1024);
    let mut best = f64::INFINITY;
    let mut label_sets = 0;
    for _ in 0..5 {
        let (found, secs) = timed(|| parse(&page).map(|parsed| find_signals(&parsed).len()));
        label_sets = found.unwrap_or(0);
        best = best.min(secs);
    }
    Line {
        what: "parse + find_signals, 1 MB vLLM /metrics page (best of 5)".to_string(),
        work: page.len() as u64,
        unit: "bytes",
        work_text: format!("{} bytes, {label_sets} label sets", page.len()),
        seconds: best,
        rate: format!("{:.1} ms per page", best * 1e3),
    }
}

/// The measurements, as JSON or as a markdown table with the run conditions.
pub fn render(lines: &[Line], target: &str, json: bool) -> String {
    let report = Report {
        target,
        threads: std::thread::available_parallelism().map_or(0, |n| n.get()),
        clock: if cpu_seconds().is_some() {
            "thread CPU time"
        } else {
            "wall clock"
        },
        date: today(),
        lines,
    };
    if json {
        return serde_json::to_string(&report).expect("reports serialise") + "\n";
    }
    let mut out = format!(
        "Target: {target}; {} hardware threads visible; single-threaded; timed by {}; date {}.\n\n",
        report.threads, report.clock, report.date
    );
    out.push_str("| benchmark | work | time (s) | rate |\n|---|---|---:|---:|\n");
    for l in lines {
        out.push_str(&format!(
            "| {} | {} | {:.3} | {} |\n",
            l.what, l.work_text, l.seconds, l.rate
        ));
    }
    out
}

/// Today's UTC date as YYYY-MM-DD (days-to-civil conversion, no calendar crate needed).
fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs()) as i64;
    let z = secs.div_euclid(86_400) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}
