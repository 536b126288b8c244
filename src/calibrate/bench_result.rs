//! What the readers of every format give: one benchmark run's figures ([`BenchResult`]) and its requests' lives
//! ([`Life`]). Below both the readers (`vllm_result`, `guidellm`, `inference_perf`, `otel`) and the recognising of a file
//! (`inputs`), so neither reaches into the other.

/// One request's life as a file shows it, in seconds on the file's own clock.
#[derive(Clone, Debug, PartialEq)]
pub struct Life {
    /// When it was sent (`None` in a result file, which keeps no send times).
    pub arrival: Option<f64>,
    /// Prompt tokens.
    pub prompt: u32,
    /// Output tokens.
    pub output: u32,
    /// Time to first token, when known.
    pub ttft: Option<f64>,
    /// Time from sending to the last token, when known.
    pub e2e: Option<f64>,
}

/// One benchmark run, as its result file reports it (times in seconds): a `vllm bench serve` result, one of a
/// GuideLLM report's benchmarks, or an inference-perf stage or summary.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchResult {
    /// What it is, in words ("vllm bench serve result", "GuideLLM benchmark", "inference-perf stage").
    pub kind: String,
    /// The rate asked for, requests per second; `None` for `"inf"` (everything sent at once, or as fast as
    /// `max_concurrency` lets them).
    pub request_rate: Option<f64>,
    /// `--max-concurrency`: at most this many requests in flight. With no rate (`"inf"`) the run is a closed
    /// loop of this many clients, each sending its next request when the last one ends.
    pub max_concurrency: Option<u32>,
    /// Requests that completed.
    pub completed: u64,
    /// Seconds from the first request to the last completion.
    pub duration: f64,
    /// Completed requests ÷ duration.
    pub request_throughput: f64,
    /// Mean prompt tokens per completed request.
    pub mean_prompt: f64,
    /// Mean output tokens per completed request.
    pub mean_output: f64,
    /// Mean TTFT.
    pub ttft_mean: f64,
    /// Median TTFT (the mean when the file has no median).
    pub ttft_median: f64,
    /// 99th-percentile TTFT, when saved.
    pub ttft_p99: Option<f64>,
    /// Mean TPOT.
    pub tpot_mean: f64,
    /// Median TPOT (the mean when the file has no median).
    pub tpot_median: f64,
    /// Mean end-to-end latency: measured, or derived when the file has none (see `derived`).
    pub e2el_mean: f64,
    /// The figures the file lacked and how they were had instead, in words (empty when it had them all).
    pub derived: Vec<String>,
    /// Requests per second that met every `--goodput` SLO, when the run gave any.
    pub goodput: Option<f64>,
    /// Per-request lengths and latencies, with `--save-detailed` (send times too from vLLM 0.15's
    /// `start_times`) or from a GuideLLM report.
    pub lives: Option<Vec<Life>>,
    /// `--burstiness` B, the gamma shape of the gaps (1: Poisson; infinite: evenly spaced), when saved.
    pub burstiness: Option<f64>,
}

impl BenchResult {
    /// The clients of a closed-loop run: `max_concurrency` with no rate.
    pub fn closed_loop_users(&self) -> Option<u32> {
        self.max_concurrency.filter(|_| self.request_rate.is_none())
    }

    /// Whether every request kept has its send time and token times, as a trace has.
    pub fn is_timed(&self) -> bool {
        self.lives.as_ref().is_some_and(|lives| {
            !lives.is_empty() && lives.iter().all(|l| l.arrival.is_some() && l.e2e.is_some())
        })
    }
}
