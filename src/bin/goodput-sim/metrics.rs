//! `goodput-sim metrics`: the four signals of a vLLM `/metrics` page as text, with the same parser as the page.

use super::input::{display_name, read_text};
use goodput::charts::format::{format_ms, format_number};
use goodput::cluster::metrics::{parse, MAX_INPUT_BYTES};
use goodput::cluster::vllm::{assess, find_signals, Percentiles, SloTargets};

fn percentiles(name: &str, found: Option<Percentiles>, metric: &str) -> String {
    match found {
        Some(p) => format!(
            "  {name}  p50 ≈ {}   p95 ≈ {}   p99 ≈ {}\n",
            p.p50.describe(),
            p.p95.describe(),
            p.p99.describe()
        ),
        None => format!("  {name}  no {metric} histogram\n"),
    }
}

/// The report for the page at `source`, or a one-line reason it cannot be read.
pub fn run(source: &str, slo_ttft_ms: f64, slo_tpot_ms: f64) -> Result<String, String> {
    for (flag, value) in [
        ("--slo-ttft-ms", slo_ttft_ms),
        ("--slo-tpot-ms", slo_tpot_ms),
    ] {
        if !(value.is_finite() && value > 0.0) {
            return Err(format!("{flag} must be a positive number of milliseconds"));
        }
    }
    let slo = SloTargets {
        ttft_p99: slo_ttft_ms / 1e3,
        tpot_p95: slo_tpot_ms / 1e3,
    };
    let text = read_text(
        source,
        MAX_INPUT_BYTES,
        "a vLLM /metrics page is usually under 100 kB",
    )?;
    let name = display_name(source);
    let page = parse(&text).map_err(|e| format!("{name}: {e}"))?;
    let servers = find_signals(&page);
    if servers.is_empty() {
        return Err(format!(
            "{name} has no vLLM metrics (no vllm:num_requests_running/waiting gauges, no TTFT or TPOT histograms)"
        ));
    }
    let mut out = String::new();
    for server in &servers {
        let assessment = assess(server, &slo);
        out.push_str(&server.describe_labels());
        out.push('\n');
        out.push_str(&percentiles(
            "TTFT",
            assessment.ttft,
            "vllm:time_to_first_token_seconds",
        ));
        out.push_str(&percentiles(
            "TPOT",
            assessment.tpot,
            "vllm:time_per_output_token_seconds",
        ));
        let gauge = |value: Option<f64>| value.map_or("—".to_owned(), format_number);
        out.push_str(&format!(
            "  running {}   waiting {}\n",
            gauge(server.running),
            gauge(server.waiting)
        ));
        out.push_str(&format!(
            "  verdict: {} — SLOs p99 TTFT ≤ {}, p95 TPOT ≤ {}\n",
            assessment.verdict.describe(),
            format_ms(slo.ttft_p99),
            format_ms(slo.tpot_p95)
        ));
    }
    out.push_str("Percentiles are estimates from the histogram buckets: linear interpolation within the bucket that holds the rank, as Prometheus's histogram_quantile does.\n");
    Ok(out)
}
