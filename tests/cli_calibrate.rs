//! `goodput-sim calibrate`, the command line over the calibration (its library's own tests are in
//! `src/calibrate/tests/`): the scenario it prints runs, its report goes to standard error, a missing file is one
//! line; the model and GPU it names or is given, and figures typed in for one the tables lack.

#[path = "support/sim_cli.rs"]
mod sim_cli;
use sim_cli::{sim, sim_with_input};

#[path = "support/synthetic_server.rs"]
mod synthetic_server;
use synthetic_server::synthetic_result;

#[test]
fn the_command_prints_a_scenario_run_accepts_and_the_report_on_standard_error() {
    // Removed when the test ends, passed or failed.
    let scratch = tempfile::Builder::new()
        .prefix("goodput-calibrate-")
        .tempdir()
        .unwrap();
    let dir = scratch.path();
    let light = dir.join("rate-0.1.json");
    let heavier = dir.join("rate-0.3.json");
    std::fs::write(&light, synthetic_result(0.1, 300, 1, true)).unwrap();
    std::fs::write(&heavier, synthetic_result(0.3, 300, 2, true)).unwrap();
    let out = sim_with_input(
        &[
            "calibrate",
            "--max-num-seqs",
            "64",
            "--max-num-batched-tokens",
            "4096",
            light.to_str().unwrap(),
            heavier.to_str().unwrap(),
        ],
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = String::from_utf8(out.stderr).unwrap();
    assert!(report.contains("iteration.compute.per_token"), "{report}");
    assert!(
        report.contains("the same experiment in the model"),
        "{report}"
    );
    let run = sim_with_input(
        &[
            "run",
            "--scenario",
            "-",
            "--rate",
            "0.2",
            "--requests",
            "50",
            "--json",
        ],
        &out.stdout,
    );
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let summary: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(summary["requests"], 50);

    let missing = sim_with_input(
        &["calibrate", dir.join("nothing.json").to_str().unwrap()],
        b"",
    );
    assert_eq!(missing.status.code(), Some(2));
    let line = String::from_utf8(missing.stderr).unwrap();
    assert_eq!(line.lines().count(), 1, "{line}");
    assert!(line.starts_with("goodput-sim: cannot read"), "{line}");
}

fn data_path(path: &str) -> String {
    format!("{}/../shared/data/{path}", env!("CARGO_MANIFEST_DIR"))
}

/// `goodput-sim calibrate` takes the prior from the result file's `model_id` and `gpu_name`, from --model and --gpu,
/// or from figures typed in for a GPU the table lacks ("other"); a name the table lacks is one line listing the
/// table's names.
#[test]
fn the_command_line_names_the_model_and_gpu_or_takes_their_figures() {
    let file = data_path(
        "vllm-bench-0.8.5/vllm_200prompts1qps_Meta-Llama-3-8B-Instruct_sharegpt_1xNVIDIA-GeForce-RTX-4090.json",
    );
    if !std::path::Path::new(&file).exists() {
        eprintln!("left out, not here: {file} (tests/fixtures/PUBLIC-DATA.md)");
        return;
    }
    let report = |args: &[&str]| {
        let out = sim(args);
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(out.status.success(), "{args:?}: {err}");
        err
    };
    let from_file = report(&["calibrate", &file]);
    assert!(
        from_file.contains("Llama 3 8B on 1 × GeForce RTX 4090")
            && from_file.contains("GPU GeForce RTX 4090 (the result file's)"),
        "{from_file}"
    );
    // The same GPU typed in: the same prior, named as typed.
    let typed = report(&[
        "calibrate",
        "--gpu",
        "my 4090",
        "--gpu-figures",
        "memory-gib=24,bandwidth-tb-s=1.008,bf16-tflops=165.2",
        &file,
    ]);
    assert!(
        typed.contains("Llama 3 8B on 1 × my 4090: figures given"),
        "{typed}"
    );
    let physics = |text: &str| {
        text.lines()
            .find(|l| l.contains("physics: 16.1 GB of weights"))
            .map(str::to_owned)
    };
    assert_eq!(physics(&typed), physics(&from_file), "{typed}");
    for (args, flag, known) in [
        (vec!["--gpu", "B999"], "--gpu", "H100 SXM"),
        (
            vec!["--model", "acme/llama-9"],
            "--model",
            "facebook/opt-13b",
        ),
        (
            vec![
                "--model",
                "acme/llama-9",
                "--gpu-figures",
                "memory-gib=24,bandwidth-tb-s=1,bf16-tflops=165",
            ],
            "--model",
            "Qwen/Qwen2.5-7B",
        ),
        (
            vec!["--model-figures", "parameters=8e9,layers=32"],
            "--model-figures",
            "hidden-size missing",
        ),
    ] {
        let mut all = vec!["calibrate"];
        all.extend(&args);
        all.push(&file);
        let out = sim(&all);
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(flag) && err.contains(known), "{args:?}: {err}");
    }
}
