//! From a sizing to an autoscaler: a Prometheus alert rule and a KEDA `ScaledObject` on `vllm:num_requests_waiting`,
//! and SLO suggestions for common workloads.
//!
//! The lesson's advice is "autoscale on the queue, size with Little's Law". vLLM only queues a request when every
//! batch slot is taken, so `num_requests_waiting > 0` means a replica is at its cap; the question is how long a queue
//! to tolerate. A queue of `w` requests on a replica that completes `cap ÷ latency` requests/s adds about
//! `w × latency ÷ cap` of wait, so the threshold `w = cap × (1 − headroom)` tolerates a queue that adds the same
//! fraction of the latency as the headroom leaves spare (20% for headroom 0.8).
//!
//! ```
//! use goodput::cluster::{autoscale, sizing};
//! let sizing = sizing::size(&sizing::SizingInput { max_num_seqs: 64.0, latency_seconds: 8.0, peak_qps: 30.0, headroom: 0.8 }).unwrap();
//! let plan = autoscale::plan(&sizing, 2.0);
//! assert_eq!((plan.waiting_threshold, plan.min_replicas, plan.max_replicas), (13, 5, 10));
//! assert!(autoscale::keda_scaled_object(&plan, "my-model").contains("threshold: \"13\""));
//! ```

use super::metrics::escape_label_value;
use super::sizing::Sizing;
use super::vllm::SloTargets;
use crate::charts::format::{format_latency, format_number, format_percent};

/// Replica bounds and the queue threshold derived from a sizing.
#[derive(Clone, Debug, PartialEq)]
pub struct ScalingPlan {
    /// The sizing it came from.
    pub sizing: Sizing,
    /// Waiting requests per replica that trigger scaling: `ceil(cap × (1 − headroom))`, at least 1.
    pub waiting_threshold: u64,
    /// The sized replica count: enough for the forecast peak at the target headroom.
    pub min_replicas: u64,
    /// Replicas for `surge ×` the forecast peak at the same headroom.
    pub max_replicas: u64,
    /// How far above the forecast peak the fleet may grow (e.g. 2 = twice the peak).
    pub surge: f64,
    /// Where each number came from, one line each; the YAML repeats these as comments.
    pub provenance: Vec<String>,
}

/// Derives the scaling plan. `surge` is clamped to 1..=100 (a non-finite surge counts as 1).
pub fn plan(sizing: &Sizing, surge: f64) -> ScalingPlan {
    let surge = if surge.is_finite() {
        surge.clamp(1.0, 100.0)
    } else {
        1.0
    };
    let input = &sizing.input;
    let spare_slots = input.max_num_seqs * (1.0 - input.headroom);
    let waiting_threshold = (spare_slots.ceil() as u64).max(1);
    let min_replicas = sizing.replicas;
    let surge_replicas = (input.peak_qps * surge / sizing.per_replica_target_qps - 1e-9).ceil();
    let max_replicas = (surge_replicas as u64).max(min_replicas);
    let provenance = vec![
        format!(
            "threshold {waiting_threshold} waiting per replica = ceil(cap {} × (1 − headroom {})): a queue that adds about {} of the {} latency",
            format_number(input.max_num_seqs),
            format_number(input.headroom),
            format_percent(1.0 - input.headroom),
            format_latency(input.latency_seconds)
        ),
        format!(
            "minReplicas {min_replicas} = ceil(peak {} ÷ ({} requests/s per replica × {}))",
            format_number(input.peak_qps),
            format_number(sizing.per_replica_max_qps),
            format_number(input.headroom)
        ),
        format!(
            "maxReplicas {max_replicas} = the same for {} × the peak ({} requests/s)",
            format_number(surge),
            format_number(input.peak_qps * surge)
        ),
    ];
    ScalingPlan {
        sizing: sizing.clone(),
        waiting_threshold,
        min_replicas,
        max_replicas,
        surge,
        provenance,
    }
}

fn comment_block(plan: &ScalingPlan, indent: &str) -> String {
    let mut out = format!(
        "{indent}# From the Little's Law sizer: cap {}, latency {}, peak {} requests/s, headroom {}.\n",
        format_number(plan.sizing.input.max_num_seqs),
        format_latency(plan.sizing.input.latency_seconds),
        format_number(plan.sizing.input.peak_qps),
        format_number(plan.sizing.input.headroom)
    );
    for line in &plan.provenance {
        out.push_str(&format!("{indent}# {line}\n"));
    }
    out
}

/// A YAML double-quoted scalar: JSON's string syntax (serde_json's escapes are all YAML escapes), plus `\uXXXX` for
/// the few characters JSON leaves bare but YAML does not accept in a scalar or reads as a line break (DEL, C1
/// controls, U+2028/U+2029, the byte-order mark, U+FFFE/U+FFFF). So a model name with quotes, backslashes, newlines
/// or tabs stays one line of valid YAML that reads back as itself.
fn yaml_quoted(text: &str) -> String {
    let json = serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_owned());
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        let bare = matches!(c, '\u{20}'..='\u{7E}' | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
            && !matches!(c, '\u{2028}' | '\u{2029}' | '\u{FEFF}');
        if bare {
            out.push(c);
        } else {
            out.push_str(&format!("\\u{:04X}", u32::from(c)));
        }
    }
    out
}

/// The PromQL selector for one model, e.g. `vllm:num_requests_waiting{model_name="m"}`.
fn waiting_selector(model_name: &str) -> String {
    format!(
        "vllm:num_requests_waiting{{model_name=\"{}\"}}",
        escape_label_value(model_name)
    )
}

/// A ready-to-paste Prometheus alerting rule: fires when the average queue per replica stays above the threshold
/// for five minutes, i.e. when the fleet has been past the knee long enough that scaling has not caught up.
pub fn prometheus_alert_rule(plan: &ScalingPlan, model_name: &str) -> String {
    let expr = format!(
        "avg({}) > {}",
        waiting_selector(model_name),
        plan.waiting_threshold
    );
    format!(
        "{comments}groups:\n  - name: vllm-knee\n    rules:\n      - alert: VllmQueueGrowing\n        expr: {expr}\n        for: 5m\n        labels:\n          severity: warning\n        annotations:\n          summary: {summary}\n          description: {description}\n",
        comments = comment_block(plan, ""),
        expr = yaml_quoted(&expr),
        summary = yaml_quoted(&format!("vLLM {model_name}: queue past the knee")),
        description = yaml_quoted(&format!(
            "More than {} requests wait per replica: the fleet is past the knee. Sized for {} requests/s on {} replicas.",
            plan.waiting_threshold,
            format_number(plan.sizing.input.peak_qps),
            plan.min_replicas
        )),
    )
}

/// A KEDA `ScaledObject` scaling a Deployment (assumed to be named `vllm`) on the queue: KEDA's Prometheus trigger
/// averages the query over replicas, so it adds replicas while the queue per replica exceeds the threshold.
pub fn keda_scaled_object(plan: &ScalingPlan, model_name: &str) -> String {
    let query = format!("sum({})", waiting_selector(model_name));
    format!(
        "{comments}apiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata:\n  name: vllm-queue\nspec:\n  scaleTargetRef:\n    name: vllm\n  minReplicaCount: {min}\n  maxReplicaCount: {max}\n  cooldownPeriod: 300\n  triggers:\n    - type: prometheus\n      metricType: AverageValue\n      metadata:\n        serverAddress: http://prometheus.monitoring:9090\n        query: {query}\n        threshold: \"{threshold}\"\n",
        comments = comment_block(plan, ""),
        min = plan.min_replicas,
        max = plan.max_replicas,
        query = yaml_quoted(&query),
        threshold = plan.waiting_threshold,
    )
}

/// A kind of workload the SLO table covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workload {
    /// A person reads the answer as it streams.
    Chat,
    /// Retrieval-augmented generation: long prompts of retrieved context, short answers, a person waiting.
    Rag,
    /// Completions in an editor: a short suggestion shown whole, while someone types.
    CodeCompletion,
    /// An agent: a chain of model calls and tool calls that a person waits for as a whole.
    Agent,
    /// Offline summarisation of many documents: nobody watches the tokens.
    BatchSummarisation,
}

/// A suggested pair of SLOs with the reasoning behind it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SloSuggestion {
    /// The workload.
    pub workload: Workload,
    /// Its name as the page shows it.
    pub name: &'static str,
    /// The suggested SLOs.
    pub slo: SloTargets,
    /// Why these numbers.
    pub reasoning: &'static str,
}

/// Suggested SLOs for chat, RAG, code completion, agents and batch summarisation — starting points to argue with,
/// not standards.
pub const SLO_SUGGESTIONS: [SloSuggestion; 5] = [
    SloSuggestion {
        workload: Workload::Chat,
        name: "Chat",
        slo: SloTargets {
            ttft_p99: 0.5,
            tpot_p95: 0.05,
        },
        reasoning: "A person is watching. A first token within half a second feels like an immediate reply; \
                    50 ms per token is 20 tokens/s, about three times reading speed, so the stream never makes \
                    anyone wait. Chat prompts are short, so TTFT is mostly queueing: it is the first SLO to break \
                    past the knee.",
    },
    SloSuggestion {
        workload: Workload::Rag,
        name: "RAG",
        slo: SloTargets {
            ttft_p99: 1.5,
            tpot_p95: 0.05,
        },
        reasoning: "Prompts carry thousands of tokens of retrieved context, so prefill alone takes hundreds of \
                    milliseconds and users expect a search-like pause; 1.5 s p99 leaves room for prefill plus a \
                    short queue. The answer still streams to a reader, so TPOT stays at chat's 50 ms.",
    },
    SloSuggestion {
        workload: Workload::CodeCompletion,
        name: "Code completion",
        slo: SloTargets {
            ttft_p99: 0.3,
            tpot_p95: 0.02,
        },
        reasoning: "The suggestion appears whole, as grey text at the cursor, so what counts is TTFT plus every \
                    token: 300 ms plus 30 tokens at 20 ms is under a second, and a suggestion later than the next \
                    keystroke is thrown away. Short prompts and short outputs keep the batch light, so both \
                    targets are reachable below the knee.",
    },
    SloSuggestion {
        workload: Workload::Agent,
        name: "Agents",
        slo: SloTargets {
            ttft_p99: 1.0,
            tpot_p95: 0.03,
        },
        reasoning: "An agent chains ten or twenty calls and a person waits for the whole chain, so every call's \
                    latency adds up: a 1 s p99 TTFT per step already means tens of seconds of waiting at the tail. \
                    A program, not a reader, takes the tokens, so TPOT counts only as part of each step's end to \
                    end time; 30 ms keeps a 200-token tool call under 7 s.",
    },
    SloSuggestion {
        workload: Workload::BatchSummarisation,
        name: "Batch summarisation",
        slo: SloTargets {
            ttft_p99: 60.0,
            tpot_p95: 0.2,
        },
        reasoning: "Nobody watches the tokens; what matters is that the job finishes in its window at the lowest \
                    cost. Loose latency SLOs let the fleet run close to the knee, where throughput per GPU is \
                    highest; the 200 ms TPOT bound only catches a server so overloaded that the job would overrun.",
    },
];
