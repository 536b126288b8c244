//! Accuracy on servers the fit never saw, over every public dataset of `../shared/data/` (README there) and the
//! vendored trace: the four vLLM 0.11.0 traces (`tests/fixtures/vllm-otel/`, `inference-sim/`, cut into the stages of
//! their guidellm sweeps), DistServe's OPT-13B sweep (one trace a rate), the two GPUs of IOG's vLLM 0.8.5 results
//! (one summary a rate) and the GuideLLM report of a CodeLlama-34B sweep. Each server is left out of everything
//! but its own light load: `calibrate` sees only its synchronous stage (when it has one) and its lightest constant
//! rate (the two lightest rates when it has no synchronous stage), as the files `goodput-sim calibrate` reads, with
//! the model and GPU named so the fit starts from physics; every other stage is run in the calibrated model (a
//! trace's own arrivals and lengths replayed; a summary's rate and request count simulated) and compared with what
//! the server did. Nothing in the model or the prior was fitted to any of these stages.
//!
//! `cargo test --release -p goodput-calibrate --test accuracy_unseen -- --nocapture` prints one table per server and the summary that
//! `BENCHMARKS.md` ("Accuracy on servers the fit never saw") carries. The assertions hold the model to what it
//! reaches today, so a change that makes it worse fails here.

#[path = "support/datasets.rs"]
mod datasets;
#[path = "support/unseen.rs"]
mod unseen;

use goodput_calibrate::inputs::{parse, InputFile, Parsed};
use goodput_calibrate::{calibrate, check, Calibration, ServerFlags};
use unseen::{
    figures, read, replayed, servers, stages, trace_file, Figures, Load, Measured, Server,
};

/// One stage, measured and predicted.
struct Row {
    load: Load,
    requests: usize,
    calibrated: bool,
    measured: Figures,
    model: Figures,
}

/// A server's rows and its calibration.
struct Outcome {
    name: String,
    rows: Vec<Row>,
    calibration: Calibration,
}

/// The stages `calibrate` sees: the synchronous one and the lightest constant rate, or the two lightest rates.
fn light_stages(loads: &[Load]) -> Vec<usize> {
    let mut constant: Vec<(usize, f64)> = loads
        .iter()
        .enumerate()
        .filter_map(|(k, load)| match load {
            Load::Constant(rate) => Some((k, *rate)),
            _ => None,
        })
        .collect();
    constant.sort_by(|a, b| a.1.total_cmp(&b.1));
    match loads.iter().position(|l| *l == Load::Synchronous) {
        Some(sync) => vec![sync, constant[0].0],
        None => vec![constant[0].0, constant[1].0],
    }
}

fn calibrated(files: &[InputFile], flags: &ServerFlags) -> Calibration {
    calibrate(files, flags)
        .expect("the light stages calibrate")
        .with_uncertainty()
}

/// A server whose stages are traces: each replayed with its own arrivals and lengths.
fn trace_outcome(name: String, stages: Vec<(Load, Vec<Measured>)>, flags: &ServerFlags) -> Outcome {
    let loads: Vec<Load> = stages.iter().map(|s| s.0).collect();
    let light = light_stages(&loads);
    let files: Vec<InputFile> = light
        .iter()
        .map(|&k| trace_file(format!("stage-{k}.jsonl"), &stages[k].1))
        .collect();
    let calibration = calibrated(&files, flags);
    let rows = stages
        .iter()
        .enumerate()
        .map(|(k, (load, requests))| Row {
            load: *load,
            requests: requests.len(),
            calibrated: light.contains(&k),
            measured: figures(requests),
            model: figures(&replayed(&calibration.scenario, requests)),
        })
        .collect();
    Outcome {
        name,
        rows,
        calibration,
    }
}

/// A stage's summary figures as the table's (its median TPOT in the TPOT column; saturated: a median TTFT over a
/// second, which no stable stage of these servers comes near).
fn summary_figures(f: &check::BenchFigures) -> Figures {
    Figures {
        ttft_p50: f.ttft_p50,
        ttft_p99: f.ttft_p99.unwrap_or(f64::NAN),
        tpot_mean: f.tpot_p50,
        throughput: f.throughput,
        saturated: f.ttft_p50 > 1.0,
    }
}

/// A server whose stages are result summaries: each one's rate and request count simulated in the model.
fn result_outcome(
    name: String,
    stages: Vec<datasets::ResultStage>,
    flags: &ServerFlags,
) -> Outcome {
    let loads: Vec<Load> = stages.iter().map(|s| s.load).collect();
    let light = light_stages(&loads);
    let files: Vec<InputFile> = light.iter().map(|&k| stages[k].file.clone()).collect();
    let calibration = calibrated(&files, flags);
    let rows = stages
        .iter()
        .enumerate()
        .map(|(k, stage)| {
            let parsed = parse(&stage.file).expect("one run a stage");
            let Parsed::Bench(bench) = &parsed else {
                panic!("{}: a result", stage.file.name);
            };
            let repeat = check::check(&calibration.scenario, &parsed).expect("the stage runs");
            Row {
                load: stage.load,
                requests: bench.completed as usize,
                calibrated: light.contains(&k),
                measured: summary_figures(&repeat.measured),
                model: summary_figures(&repeat.model),
            }
        })
        .collect();
    Outcome {
        name,
        rows,
        calibration,
    }
}

fn inference_sim_outcome(server: &Server) -> Outcome {
    let stages = stages(&read(server.file))
        .into_iter()
        .map(|s| (s.load, s.requests))
        .collect();
    trace_outcome(server.name.to_owned(), stages, &server.flags)
}

/// Every server whose data are here.
fn outcomes() -> Vec<Outcome> {
    let inference_sim = servers();
    let mut out: Vec<Outcome> = inference_sim.iter().map(inference_sim_outcome).collect();
    if let Some((stages, flags)) = datasets::distserve() {
        let stages = stages.into_iter().map(|s| (s.load, s.requests)).collect();
        out.push(trace_outcome(
            "OPT-13B, one A100 (DistServe's vLLM baseline)".to_owned(),
            stages,
            &flags,
        ));
    }
    for (gpu, name) in [
        (
            "NVIDIA-H100-PCIe",
            "Llama-3-8B, one H100 PCIe (vLLM 0.8.5 results)",
        ),
        (
            "NVIDIA-GeForce-RTX-4090",
            "Llama-3-8B, one RTX 4090 (vLLM 0.8.5 results)",
        ),
    ] {
        if let Some((stages, flags)) = datasets::iog(gpu) {
            out.push(result_outcome(name.to_owned(), stages, &flags));
        }
    }
    let prefill = inference_sim
        .iter()
        .find(|s| s.file.contains("prefill-llama7b"))
        .map(|s| s.flags.clone());
    if let Some((stages, flags)) = prefill.and_then(datasets::guidellm) {
        out.push(result_outcome(
            "CodeLlama-34B, long prompts (GuideLLM's report of the same sweep)".to_owned(),
            stages,
            &flags,
        ));
    }
    out
}

fn error(model: f64, measured: f64) -> f64 {
    (model - measured) / measured * 100.0
}

fn cell(model: f64, measured: f64, digits: usize) -> String {
    format!(
        "{:+.0}% ({model:.digits$} vs {measured:.digits$})",
        error(model, measured)
    )
}

fn stage_name(row: &Row) -> String {
    let load = match row.load {
        Load::Synchronous => "synchronous".to_owned(),
        Load::AllAtOnce => "all at once".to_owned(),
        Load::Constant(rate) => format!("{rate:.3} req/s"),
    };
    if row.calibrated {
        format!("{load} (calibrated)")
    } else {
        load
    }
}

fn verdict(saturated: bool) -> &'static str {
    if saturated {
        "saturated"
    } else {
        "stable"
    }
}

/// The knee: the lowest constant rate from which on the p99 TTFT stays at least twice the lightest constant rate's
/// (a single slow request in a short stage doubles its p99 without the server being past its knee).
fn knee(rows: &[Row], pick: fn(&Row) -> &Figures) -> Option<f64> {
    let mut constant: Vec<(f64, f64)> = rows
        .iter()
        .filter_map(|r| match r.load {
            Load::Constant(rate) => Some((rate, pick(r).ttft_p99)),
            _ => None,
        })
        .collect();
    constant.sort_by(|a, b| a.0.total_cmp(&b.0));
    let light = constant.first()?.1;
    let above = constant
        .iter()
        .rposition(|p| p.1 < 2.0 * light)
        .map_or(0, |last_below| last_below + 1);
    constant.get(above).map(|p| p.0)
}

fn knee_text(knee: Option<f64>, rows: &[Row]) -> String {
    let highest = rows
        .iter()
        .filter_map(|r| match r.load {
            Load::Constant(rate) => Some(rate),
            _ => None,
        })
        .fold(0.0, f64::max);
    knee.map_or(format!("above {highest:.3} req/s"), |k| {
        format!("{k:.3} req/s")
    })
}

fn print_table(outcome: &Outcome) {
    println!("\n#### {}\n", outcome.name);
    println!(
        "| stage | requests | TTFT p50 | TTFT p99 | TPOT | throughput | queue (measured / model) |"
    );
    println!("| --- | --: | --: | --: | --: | --: | --- |");
    for row in &outcome.rows {
        let (m, p) = (&row.measured, &row.model);
        println!(
            "| {} | {} | {} | {} | {} | {} | {} / {} |",
            stage_name(row),
            row.requests,
            cell(p.ttft_p50, m.ttft_p50, 3),
            cell(p.ttft_p99, m.ttft_p99, 3),
            cell(p.tpot_mean, m.tpot_mean, 4),
            cell(p.throughput, m.throughput, 3),
            verdict(m.saturated),
            verdict(p.saturated),
        );
    }
    println!(
        "\nKnee (p99 TTFT twice the lightest constant rate's): measured {}, model {}.",
        knee_text(knee(&outcome.rows, |r| &r.measured), &outcome.rows),
        knee_text(knee(&outcome.rows, |r| &r.model), &outcome.rows)
    );
    let (measured, model) = capacities(outcome);
    match measured {
        Some(measured) => println!(
            "Capacity: model {model:.3} req/s, measured saturation throughput {measured:.3} req/s ({:+.0}%).",
            error(model, measured)
        ),
        None => println!(
            "Capacity: model {model:.3} req/s; the server never saturated (highest throughput {:.3} req/s).",
            outcome.rows.iter().map(|r| r.measured.throughput).fold(0.0, f64::max)
        ),
    }
}

/// The tolerances, in the order of [`errors`]: TTFT p50 30%, TTFT p99 50%, TPOT 20%, throughput 10%.
const TOLERANCES: [f64; 4] = [30.0, 50.0, 20.0, 10.0];
const FIGURES: [&str; 4] = ["TTFT p50", "TTFT p99", "TPOT", "throughput"];

/// A stage's absolute errors, per figure (`None` where the file lacks the figure).
fn errors(row: &Row) -> [Option<f64>; 4] {
    let (m, p) = (&row.measured, &row.model);
    [
        (m.ttft_p50, p.ttft_p50),
        (m.ttft_p99, p.ttft_p99),
        (m.tpot_mean, p.tpot_mean),
        (m.throughput, p.throughput),
    ]
    .map(|(measured, model)| Some(error(model, measured).abs()).filter(|e| e.is_finite()))
}

/// The predicted constant-rate stages up to the measured knee (all of them when the server has none).
fn up_to_the_knee(outcome: &Outcome) -> Vec<&Row> {
    let knee = knee(&outcome.rows, |r| &r.measured).unwrap_or(f64::INFINITY);
    outcome
        .rows
        .iter()
        .filter(|r| !r.calibrated && matches!(r.load, Load::Constant(rate) if rate <= knee))
        .collect()
}

/// Of `rows`, per figure: how many have the figure, and how many of those are within its tolerance.
fn within(rows: &[&Row]) -> [(usize, usize); 4] {
    let mut out = [(0, 0); 4];
    for row in rows {
        for (k, e) in errors(row).iter().enumerate() {
            if let Some(e) = e {
                out[k].0 += 1;
                out[k].1 += usize::from(*e <= TOLERANCES[k]);
            }
        }
    }
    out
}

/// Stages of `rows` with every figure they have within its tolerance.
fn all_within(rows: &[&Row]) -> usize {
    rows.iter()
        .filter(|row| {
            errors(row)
                .iter()
                .zip(TOLERANCES)
                .all(|(e, t)| e.is_none_or(|e| e <= t))
        })
        .count()
}

/// The measured saturation throughput (the highest throughput of a stage whose queue grew all through it, when
/// any did) and the capacity the calibrated model measures.
fn capacities(outcome: &Outcome) -> (Option<f64>, f64) {
    let measured = outcome
        .rows
        .iter()
        .filter(|r| r.measured.saturated)
        .map(|r| r.measured.throughput)
        .reduce(f64::max);
    let model = goodput_model::measured_saturation_throughput(&outcome.calibration.scenario, 1)
        .expect("the calibrated model saturates");
    (measured, model)
}

fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

#[test]
fn calibrated_on_light_load_the_model_predicts_unseen_servers_heavier_rates() {
    let outcomes = outcomes();
    for outcome in &outcomes {
        print_table(outcome);
    }
    println!("\n| server | stages up to the knee | TTFT p50 within 30% | TTFT p99 within 50% | TPOT within 20% | throughput within 10% | all four | capacity, model vs measured |");
    println!("| --- | --: | --: | --: | --: | --: | --: | --- |");
    let mut everything: Vec<&Row> = Vec::new();
    let mut capacity_errors = Vec::new();
    for outcome in &outcomes {
        let rows = up_to_the_knee(outcome);
        let shares = within(&rows);
        let (measured, model) = capacities(outcome);
        let capacity = match measured {
            Some(m) => {
                capacity_errors.push((outcome.name.clone(), error(model, m)));
                format!("{model:.2} vs {m:.2} req/s ({:+.0}%)", error(model, m))
            }
            None => format!("{model:.2} req/s; never saturated"),
        };
        let cells: Vec<String> = shares.iter().map(|(n, ok)| format!("{ok}/{n}")).collect();
        println!(
            "| {} | {} | {} | {} | {} | {} | {}/{} | {capacity} |",
            outcome.name,
            rows.len(),
            cells[0],
            cells[1],
            cells[2],
            cells[3],
            all_within(&rows),
            rows.len()
        );
        everything.extend(rows);
    }
    let shares = within(&everything);
    println!("\n| figure ({} predicted stages up to the knee, {} servers) | within tolerance | median error | worst |", everything.len(), outcomes.len());
    println!("| --- | --: | --: | --: |");
    for (k, name) in FIGURES.iter().enumerate() {
        let e: Vec<f64> = everything.iter().filter_map(|r| errors(r)[k]).collect();
        println!(
            "| {name} (±{:.0}%) | {}/{} ({:.0}%) | {:.0}% | {:.0}% |",
            TOLERANCES[k],
            shares[k].1,
            shares[k].0,
            100.0 * shares[k].1 as f64 / shares[k].0 as f64,
            median(&e),
            e.iter().copied().fold(0.0, f64::max)
        );
    }
    let all = all_within(&everything);
    println!(
        "| all four | {all}/{} ({:.0}%) | | |",
        everything.len(),
        100.0 * all as f64 / everything.len() as f64
    );
    println!("\nCapacity against the measured saturation throughput: {capacity_errors:?}");
    let misjudged: Vec<String> = outcomes
        .iter()
        .flat_map(|o| o.rows.iter().map(move |r| (o, r)))
        .filter(|(_, r)| r.measured.saturated != r.model.saturated)
        .map(|(o, r)| format!("{}: {}", o.name, stage_name(r)))
        .collect();
    println!("\nStages whose queue the model misjudges (stable vs saturated): {misjudged:?}");
    for outcome in &outcomes {
        println!(
            "\n{}\n{}",
            outcome.name,
            goodput_calibrate::report::render(&outcome.calibration)
        );
    }
    // The targets that hold over all the servers here: each figure within its tolerance for at least 80%
    // of the predicted stages up to the knee, and no stable stage called saturated.
    for (k, name) in FIGURES.iter().enumerate() {
        let (n, ok) = shares[k];
        assert!(
            5 * ok >= 4 * n,
            "{name}: {ok} of {n} stages within ±{}%",
            TOLERANCES[k]
        );
    }
    let stable_called_saturated: Vec<String> = outcomes
        .iter()
        .flat_map(|o| o.rows.iter().map(move |r| (o, r)))
        .filter(|(_, r)| r.model.saturated && !r.measured.saturated)
        .map(|(o, r)| format!("{}: {}", o.name, stage_name(r)))
        .collect();
    assert!(
        stable_called_saturated.is_empty(),
        "{stable_called_saturated:?}"
    );
    let saturated_called_stable: Vec<String> = outcomes
        .iter()
        .flat_map(|o| o.rows.iter().map(move |r| (o, r)))
        .filter(|(_, r)| r.measured.saturated && !r.model.saturated)
        .map(|(o, r)| format!("{}: {}", o.name, stage_name(r)))
        .collect();
    assert!(
        saturated_called_stable.is_empty(),
        "{saturated_called_stable:?}"
    );
    // No server worse than measured when this test was written (BENCHMARKS.md): per figure, no fewer stages within
    // tolerance, and the capacity no further off.
    for outcome in &outcomes {
        let bound = MEASURED
            .iter()
            .find(|b| b.server == outcome.name)
            .unwrap_or_else(|| panic!("{}: no measured bound", outcome.name));
        let rows = up_to_the_knee(outcome);
        let shares = within(&rows);
        for (k, name) in FIGURES.iter().enumerate() {
            assert!(
                shares[k].1 >= bound.within[k],
                "{}: {name} within tolerance for {} of {} stages, {} before",
                outcome.name,
                shares[k].1,
                shares[k].0,
                bound.within[k]
            );
        }
        if let (Some(measured), model) = capacities(outcome) {
            let e = error(model, measured).abs();
            assert!(
                e <= bound.capacity,
                "{}: capacity off by {e:.0}%, at most {}% before",
                outcome.name,
                bound.capacity
            );
        }
    }
}

/// What a server reached when last measured: stages within tolerance up to the knee (TTFT p50, TTFT p99, TPOT,
/// throughput), and the capacity's largest error against the measured saturation throughput, per cent (15, the
/// issue's target, where it holds).
struct Bound {
    server: &'static str,
    within: [usize; 4],
    capacity: f64,
}

const MEASURED: [Bound; 8] = [
    Bound {
        server: "CodeLlama-34B, 4 096-token budget, long outputs",
        within: [9, 9, 9, 9],
        capacity: 15.0,
    },
    Bound {
        server: "CodeLlama-34B, 4 096-token budget, long prompts, short outputs",
        within: [2, 2, 2, 2],
        capacity: 15.0,
    },
    Bound {
        server: "CodeLlama-34B, 64-token budget, 32 sequences, long prompts",
        within: [2, 2, 2, 2],
        capacity: 15.0,
    },
    Bound {
        server: "Llama-2-7B, 4 096-token budget",
        within: [9, 8, 9, 9],
        capacity: 15.0,
    },
    Bound {
        server: "OPT-13B, one A100 (DistServe's vLLM baseline)",
        // V0's scheduler modelled (prompts in steps of their own, the decodes waiting): capacity +18% -> +13%, TPOT
        // at 3 req/s -22% -> -12%.
        within: [4, 3, 2, 4],
        capacity: 15.0,
    },
    Bound {
        server: "Llama-3-8B, one H100 PCIe (vLLM 0.8.5 results)",
        within: [2, 3, 2, 1],
        capacity: 15.0,
    },
    Bound {
        server: "Llama-3-8B, one RTX 4090 (vLLM 0.8.5 results)",
        // TPOT held at 8 req/s (-7%); at 16 req/s +26% since attention's KV read adds to the step rather than
        // hiding under the compute bound (it was +19%), which made OPT-13B's capacity +18% (from +26%) and its
        // 3.5 req/s stage saturated, as measured.
        within: [1, 1, 1, 0],
        capacity: 15.0,
    },
    Bound {
        server: "CodeLlama-34B, long prompts (GuideLLM's report of the same sweep)",
        within: [2, 1, 2, 2],
        capacity: 15.0,
    },
];

/// The shared prompt prefix is found where the sweep had one (1 024 tokens, the prompts' first; the line crosses a
/// little short of it) and nowhere else.
#[test]
fn a_shared_prefix_is_found_only_where_the_prompts_share_one() {
    for server in servers() {
        let calibration = inference_sim_outcome(&server).calibration;
        let goodput_model::ServiceKind::Llm(fleet) = &calibration.scenario.service else {
            panic!("an LLM fleet");
        };
        let expected = server.file.contains("prefill");
        assert_eq!(fleet.shared_prefix_tokens > 0, expected, "{}", server.name);
        if expected {
            assert!(
                (768..=1024).contains(&fleet.shared_prefix_tokens),
                "{}: {}",
                server.name,
                fleet.shared_prefix_tokens
            );
        }
    }
}

/// The report gives the capacity and the knee as ranges around the central fit.
#[test]
fn the_capacity_and_the_knee_come_as_ranges() {
    for server in servers() {
        let calibration = inference_sim_outcome(&server).calibration;
        let u = calibration.uncertainty.as_ref().expect("an uncertainty");
        assert!(u.capacity.low <= u.capacity.central && u.capacity.central <= u.capacity.high);
        assert!(
            u.capacity.low < u.capacity.high,
            "{}: {:?}",
            server.name,
            u.capacity
        );
        if let Some(knee) = u.knee {
            assert!(knee.low <= knee.central && knee.central <= knee.high);
            assert!(knee.central <= u.capacity.central * 1.01);
        }
        let report = goodput_calibrate::report::render(&calibration);
        assert!(
            report.contains("capacity ") && report.contains("(range "),
            "{report}"
        );
    }
}
