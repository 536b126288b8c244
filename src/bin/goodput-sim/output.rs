//! How results are printed: an aligned table, CSV or JSON.

use clap::Args;
use goodput::model::{exact_reference, LatencyStats, RunSummary, Scenario, Stability, SweepPoint};

#[derive(Args)]
pub struct OutputArgs {
    /// Print JSON.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print CSV.
    #[arg(long)]
    pub csv: bool,
}

/// Rows of named cells shared by the table and CSV renderers.
fn columns(s: &RunSummary) -> Vec<(&'static str, String)> {
    let f = |x: f64| format!("{x:.6}");
    let mut c = vec![("offered_load", format!("{:.4}", s.offered_load))];
    if let Some(u) = s.users {
        c.push(("users", u.to_string()));
    }
    c.push(("stable", s.steady.is_some().to_string()));
    let st = s.steady.as_ref();
    let opt = |v: Option<f64>| v.map_or(String::new(), f);
    c.push(("throughput", opt(st.map(|x| x.throughput))));
    c.push(("arrival_rate", opt(st.map(|x| x.effective_arrival_rate))));
    let llm = s.is_llm();
    if llm {
        c.push((
            "output_tokens_per_second",
            opt(st.and_then(|x| x.output_tokens_per_second)),
        ));
        c.push(("goodput", opt(st.map(|x| x.goodput))));
        c.push(("slo_attainment_percent", opt(st.map(|x| x.slo_attainment))));
    }
    let metrics: [(&str, Option<LatencyStats>); 3] = if llm {
        [
            ("ttft", st.and_then(|x| x.ttft)),
            ("tpot", st.and_then(|x| x.tpot)),
            ("e2e", st.and_then(|x| x.e2e)),
        ]
    } else {
        [
            ("wait", st.and_then(|x| x.wait)),
            ("sojourn", st.and_then(|x| x.sojourn)),
            ("", None),
        ]
    };
    const NAMES: [[&str; 4]; 3] = [
        ["ttft_mean", "ttft_p50", "ttft_p95", "ttft_p99"],
        ["tpot_mean", "tpot_p50", "tpot_p95", "tpot_p99"],
        ["e2e_mean", "e2e_p50", "e2e_p95", "e2e_p99"],
    ];
    const TEXTBOOK: [[&str; 4]; 2] = [
        ["wait_mean", "wait_p50", "wait_p95", "wait_p99"],
        ["sojourn_mean", "sojourn_p50", "sojourn_p95", "sojourn_p99"],
    ];
    for (i, (name, m)) in metrics.iter().enumerate() {
        if name.is_empty() {
            continue;
        }
        let names = if llm { NAMES[i] } else { TEXTBOOK[i] };
        let vals = [
            m.map(|x| x.mean),
            m.map(|x| x.p50),
            m.map(|x| x.p95),
            m.map(|x| x.p99),
        ];
        for (n, v) in names.iter().zip(vals) {
            c.push((n, opt(v)));
        }
    }
    c.push(("running_mean", opt(st.map(|x| x.running_mean))));
    c.push(("waiting_mean", opt(st.map(|x| x.waiting_mean))));
    c.push(("in_system_mean", opt(st.map(|x| x.in_system_mean))));
    c.push((
        "little_relative_error",
        opt(st.map(|x| x.little.relative_error)),
    ));
    let growth = match s.stability {
        goodput::model::Stability::Unstable {
            waiting_growth_rate,
            ..
        } => f(waiting_growth_rate),
        goodput::model::Stability::Stable => String::new(),
    };
    c.push(("queue_growth_rate", growth));
    if let Some(shed) = &s.admission {
        c.push(("rejected", shed.rejected.to_string()));
        c.push(("rejection_rate", f(shed.rejection_rate)));
        c.push(("rejected_per_second", f(shed.rejected_per_second)));
    }
    if let Some(kv) = &s.kv_cache {
        c.push(("kv_usage_mean", f(kv.mean_usage)));
        c.push(("kv_usage_peak", f(kv.peak_usage)));
        c.push(("preemptions", kv.preemptions.to_string()));
        c.push(("preemption_rate", f(kv.preemption_rate)));
    }
    c
}

fn render(rows: &[Vec<(&'static str, String)>], csv: bool) -> String {
    let Some(first) = rows.first() else {
        return String::new();
    };
    let headers: Vec<&str> = first.iter().map(|(h, _)| *h).collect();
    if csv {
        let mut out = headers.join(",") + "\n";
        for r in rows {
            out += &(r
                .iter()
                .map(|(_, v)| v.as_str())
                .collect::<Vec<_>>()
                .join(",")
                + "\n");
        }
        return out;
    }
    let widths: Vec<usize> = headers
        .iter()
        .enumerate()
        .map(|(i, h)| {
            rows.iter()
                .map(|r| r[i].1.len())
                .max()
                .unwrap_or(0)
                .max(h.len())
        })
        .collect();
    let line = |cells: Vec<&str>| {
        cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:>w$}"))
            .collect::<Vec<_>>()
            .join("  ")
            + "\n"
    };
    let mut out = line(headers.clone());
    for r in rows {
        out += &line(r.iter().map(|(_, v)| v.as_str()).collect());
    }
    out
}

/// What a run without a steady state says instead of blank figures: how fast the queue grew, and how to run the
/// finite experiment a benchmark would.
pub fn no_steady_state(summary: &RunSummary) -> Option<String> {
    let Stability::Unstable {
        waiting_growth_rate,
        waiting_at_end,
        arrived,
        completed,
    } = summary.stability
    else {
        return None;
    };
    let unit = if summary.is_llm() { "s" } else { "time unit" };
    let finite = if summary.is_llm() {
        let rate = summary
            .arrival_rate
            .unwrap_or(summary.saturation_throughput);
        format!(
            " To measure what a benchmark would, send a finite number of requests at that rate and wait for the last: \
             --rate {rate:.3} --requests N."
        )
    } else {
        String::new()
    };
    Some(format!(
        "No steady state: at offered load {:.2} requests arrive at least as fast as the fleet can serve them \
             (capacity {:.3} per {unit}), so the waiting queue grows without bound — by {:.2} requests per {unit} here \
             ({arrived} arrived and {completed} completed while measuring; {waiting_at_end} waiting when the run \
             stopped). Latency percentiles would only measure how long the run lasted, so none are reported.{finite}",
        summary.offered_load, summary.saturation_throughput, waiting_growth_rate
    ))
}

/// What a run labelled stable says when its arrival rate is at or above the capacity the simulation measures (the
/// analytic one takes a full batch of mean-sized requests; the KV cache may allow less).
pub fn over_measured_capacity(summary: &RunSummary, measured: Option<f64>) -> Option<String> {
    let (rate, measured) = (summary.arrival_rate?, measured?);
    // A queue cap sheds what the fleet cannot serve: past its capacity too, the run has a steady state.
    let sheds = summary.admission.is_some();
    (summary.steady.is_some() && rate >= measured && !sheds).then(|| {
        format!(
            "Not a steady state, though below the analytic capacity: requests arrive at {rate:.3}/s, {:.0}% of the \
             analytic {:.3}/s, but the simulated fleet serves at most {measured:.3}/s (measured with a burst; the KV \
             cache's admission waits and preemptions cost the difference), so the queue grows through the run and \
             these percentiles measure its length. Stay below --load {:.3}, or run a finite experiment: --rate \
             {rate:.3} --requests N.",
            100.0 * rate / summary.saturation_throughput,
            summary.saturation_throughput,
            measured / summary.saturation_throughput
        )
    })
}

pub fn print_run(
    scenario: &Scenario,
    summary: &RunSummary,
    measured: Option<f64>,
    output: &OutputArgs,
) {
    let over = over_measured_capacity(summary, measured);
    // Past the measured capacity the table's `stable` says false too (the JSON keeps the model's own verdict, with
    // the note and the measured figure beside it).
    let cells = || {
        let mut c = columns(summary);
        if over.is_some() {
            if let Some(cell) = c.iter_mut().find(|(k, _)| *k == "stable") {
                cell.1 = "false".to_owned();
            }
        }
        c
    };
    let note = no_steady_state(summary).or(over.clone());
    if output.json {
        let mut v = serde_json::to_value(summary).expect("summaries serialise");
        if let Some(map) = v.as_object_mut() {
            if let Some(e) = exact_reference(scenario) {
                map.insert(
                    "exact".into(),
                    serde_json::to_value(e).expect("references serialise"),
                );
            }
            if let Some(note) = &note {
                map.insert("note".into(), serde_json::Value::String(note.clone()));
            }
            if let Some(m) = measured {
                map.insert("measured_saturation_throughput".into(), m.into());
            }
        }
        println!("{v}");
    } else if output.csv {
        if let Some(note) = &note {
            eprintln!("goodput-sim: {note}");
        }
        print!("{}", render(&[cells()], true));
    } else {
        if let Some(note) = &note {
            println!("{note}\n");
        }
        for (k, v) in cells() {
            if note.is_none() || !v.is_empty() {
                println!("{k:>26}  {v}");
            }
        }
        if let Some(m) = measured {
            println!("{:>26}  {m:.6}", "measured_saturation");
        }
    }
}

pub fn print_sweep(points: &[SweepPoint], output: &OutputArgs) {
    if output.json {
        println!(
            "{}",
            serde_json::to_string(points).expect("sweeps serialise")
        );
    } else {
        let rows: Vec<_> = points.iter().map(|p| columns(&p.summary)).collect();
        print!("{}", render(&rows, output.csv));
    }
}
