//! The readouts as the page prints them: which readout is which ([`ReadoutKey`]), each as a label and a value
//! ([`Readouts::lines`]), and the sentence that explains them ([`Readouts::explanation`]).

use super::Readouts;
use crate::charts::LatencyMetric;

/// Which readout a line is: its stable name in the page (`data-readout`, for tests and styling) and where it sits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadoutKey {
    Load,
    P50,
    P99,
    Ratio,
    Slo,
    Attainment,
    Throughput,
    Goodput,
    TurnedAway,
    Little,
    KvCache,
    Preemptions,
    Users,
    UnqueuedRate,
    EffectiveRate,
    WaitingAtEnd,
    Growth,
}

impl ReadoutKey {
    /// The name the page writes in `data-readout`, e.g. `p99`.
    pub fn as_str(self) -> &'static str {
        match self {
            ReadoutKey::Load => "load",
            ReadoutKey::P50 => "p50",
            ReadoutKey::P99 => "p99",
            ReadoutKey::Ratio => "ratio",
            ReadoutKey::Slo => "slo",
            ReadoutKey::Attainment => "attainment",
            ReadoutKey::Throughput => "throughput",
            ReadoutKey::Goodput => "goodput",
            ReadoutKey::TurnedAway => "turned-away",
            ReadoutKey::Little => "little",
            ReadoutKey::KvCache => "kv-cache",
            ReadoutKey::Preemptions => "preemptions",
            ReadoutKey::Users => "users",
            ReadoutKey::UnqueuedRate => "unqueued-rate",
            ReadoutKey::EffectiveRate => "effective-rate",
            ReadoutKey::WaitingAtEnd => "waiting-at-end",
            ReadoutKey::Growth => "growth",
        }
    }

    /// Whether the full lab shows this readout beside its load slider, where the learner watches it while dragging:
    /// the few that carry the story (the tail against the median, the SLO, goodput, and with a queue cap what it
    /// turned away), or, with no steady state, the queue that grows instead. The rest are folded under the charts.
    pub fn beside_the_slider(self) -> bool {
        matches!(
            self,
            ReadoutKey::P50
                | ReadoutKey::P99
                | ReadoutKey::Ratio
                | ReadoutKey::Slo
                | ReadoutKey::Goodput
                | ReadoutKey::TurnedAway
                | ReadoutKey::WaitingAtEnd
                | ReadoutKey::Growth
        )
    }

    /// Whether the goodput-only chart shows this readout (it has no latency chart).
    pub fn in_goodput_chart(self) -> bool {
        matches!(
            self,
            ReadoutKey::Throughput
                | ReadoutKey::Goodput
                | ReadoutKey::Attainment
                | ReadoutKey::TurnedAway
        )
    }
}

/// One readout as the page prints it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadoutLine {
    /// Which readout it is.
    pub key: ReadoutKey,
    /// What it is, e.g. "p99 TTFT".
    pub label: String,
    /// The value with its unit, e.g. "1.5 s".
    pub value: String,
}

impl Readouts {
    /// The readouts as label/value lines, in the order the page shows them. Values that do not exist at this setting
    /// (no steady state, no SLO on the metric, open loop) are left out rather than shown as zero. Before the first
    /// estimate the headline lines hold a placeholder, so the layout does not jump (and a projected screen does not
    /// refit its type) when the numbers arrive.
    pub fn lines(&self) -> Vec<ReadoutLine> {
        use crate::charts::format::{format_latency, format_number, format_percent, format_ratio};
        use ReadoutKey as K;
        const HEADLINE: [ReadoutKey; 7] = [
            K::P50,
            K::P99,
            K::Ratio,
            K::Slo,
            K::Attainment,
            K::Throughput,
            K::Goodput,
        ];
        let metric = self.metric.label();
        let mut lines = Vec::new();
        let pending = self.pending;
        // Little's Law and the arrival rate are read from every steady run, the KV cache and its preemptions from
        // every run with a budget: their places are held too, so the readouts keep their rows.
        let held = |key: ReadoutKey| {
            HEADLINE.contains(&key)
                || matches!(key, K::Little | K::EffectiveRate)
                || (matches!(key, K::KvCache | K::Preemptions) && self.has_kv_cache)
                || (key == K::TurnedAway && self.queue_cap.is_some())
        };
        let mut push = |key: ReadoutKey, label: String, value: Option<String>| {
            let placeholder = || (pending && held(key)).then(|| placeholder(key).to_owned());
            if let Some(value) = value.or_else(placeholder) {
                lines.push(ReadoutLine { key, label, value });
            }
        };
        push(
            K::Load,
            "Offered load".into(),
            Some(format_percent(self.load)),
        );
        // Past saturation a finite run's latencies are floors and its goodput a ceiling: each says which way it moves.
        let growing = self.growing;
        let latency = |value: f64| {
            if growing {
                format!("≥ {} and growing", format_latency(value))
            } else {
                format_latency(value)
            }
        };
        let so_far = if growing { " so far" } else { "" };
        push(K::P50, format!("p50 {metric}"), self.p50_s.map(latency));
        push(K::P99, format!("p99 {metric}"), self.p99_s.map(latency));
        push(
            K::Ratio,
            "p99 ÷ p50".into(),
            self.tail_ratio()
                .map(|ratio| format!("{}{so_far}", format_ratio(ratio))),
        );
        if let Some(slo) = self.slo {
            let verdict = |value: f64| match (value > slo.threshold_s, growing) {
                (true, _) => format!("missed ({})", latency(value)),
                (false, false) => format!("met ({})", format_latency(value)),
                (false, true) => format!("met so far ({})", latency(value)),
            };
            push(
                K::Slo,
                format!(
                    "SLO: {} {metric} ≤ {}",
                    slo.percentile.label(),
                    format_latency(slo.threshold_s)
                ),
                self.slo_value_s.map(verdict),
            );
        }
        push(
            K::Attainment,
            "Requests meeting both SLOs".into(),
            self.slo_attainment
                .map(|share| format!("{}{so_far}", format_percent(share))),
        );
        push(
            K::Throughput,
            "Throughput".into(),
            self.throughput
                .map(|x| format!("{} req/s", format_number(x))),
        );
        push(
            K::Goodput,
            "Goodput".into(),
            self.goodput.map(|g| match self.goodput_share() {
                Some(share) => format!(
                    "{} req/s ({} of throughput)",
                    format_number(g),
                    format_percent(share)
                ),
                None if growing => format!("{} req/s and falling", format_number(g)),
                None => format!("{} req/s", format_number(g)),
            }),
        );
        push(
            K::TurnedAway,
            "Turned away (queue full)".into(),
            self.turned_away_share.map(|share| {
                let rate = self
                    .turned_away_rate
                    .map(|r| format!(" ({} req/s)", format_number(r)))
                    .unwrap_or_default();
                format!("{} of arrivals{rate}", format_percent(share))
            }),
        );
        push(
            K::Little,
            "Little's Law: L vs λ·W".into(),
            match (
                self.little_l,
                self.throughput,
                self.mean_latency_s,
                self.little_lambda_w,
            ) {
                (Some(l), Some(x), Some(w), Some(lw)) => Some(format!(
                    "{} in the system; {} req/s × {} = {}",
                    format_number(l),
                    format_number(x),
                    format_latency(w),
                    format_number(lw)
                )),
                _ => None,
            },
        );
        push(
            K::KvCache,
            "KV cache in use".into(),
            match (self.kv_usage_mean, self.kv_usage_peak) {
                (Some(mean), Some(peak)) => Some(format!(
                    "{} on average, {} at peak",
                    format_percent(mean),
                    format_percent(peak)
                )),
                _ => None,
            },
        );
        push(
            K::Preemptions,
            "Preemptions (KV cache full)".into(),
            match (self.preemptions, self.preemption_rate) {
                (Some(0), _) => Some("none".to_owned()),
                (Some(n), Some(rate)) => Some(format!("{n} ({} per second)", format_number(rate))),
                _ => None,
            },
        );
        push(
            K::Users,
            "Users (closed loop)".into(),
            self.users.map(|n| n.to_string()),
        );
        push(
            K::UnqueuedRate,
            "Rate they would send if nothing queued".into(),
            self.unqueued_rate
                .map(|x| format!("{} req/s", format_number(x))),
        );
        push(
            K::EffectiveRate,
            if self.users.is_some() {
                "Rate they actually send"
            } else {
                "Arrival rate"
            }
            .into(),
            self.effective_arrival_rate
                .map(|x| format!("{} req/s", format_number(x))),
        );
        push(
            K::WaitingAtEnd,
            "Still waiting at the end of the run".into(),
            self.waiting_at_end.map(|n| format!("{n} requests")),
        );
        push(
            K::Growth,
            "Waiting queue grows by".into(),
            self.queue_growth_rate
                .map(|x| format!("{} req/s, without bound", format_number(x))),
        );
        lines
    }

    /// Why the numbers look the way they do, in the lesson's terms: one sentence, and one more when the KV cache
    /// ran out.
    pub fn explanation(&self) -> String {
        let mut text = self.queue_explanation();
        if let Some(n) = self.preemptions.filter(|&n| n > 0) {
            text += &format!(
                " The KV cache filled up too: {n} running sequences were preempted, sent back to the front of the \
                 queue, and recomputed their prefill when readmitted — work the server does twice."
            );
        }
        text
    }

    fn queue_explanation(&self) -> String {
        use crate::charts::format::{format_latency, format_number, format_percent};
        if let (Some(cap), Some(share)) = (self.queue_cap, self.turned_away_share) {
            if share > 0.0 {
                let p99 = match (self.metric, self.p99_s) {
                    (LatencyMetric::Ttft, Some(p99)) => {
                        format!(" (p99 TTFT {})", format_latency(p99))
                    }
                    _ => String::new(),
                };
                return format!(
                    "The queue is capped at {cap} requests waiting or running, so the server sheds instead of \
                     queueing: it turns away {} of arrivals at once, and the wait for a first token stays bounded{p99}, \
                     at most the time to get through a full queue, however far the load goes. {} of requests meet both \
                     SLOs: a turned-away request counts as a miss, and an admitted one may still have waited behind a \
                     full queue.",
                    format_percent(share),
                    format_percent(self.slo_attainment.unwrap_or(0.0))
                );
            }
        }
        if let Some(growth) = self.queue_growth_rate {
            let waiting = self.waiting_at_end.unwrap_or(0);
            return format!(
                "At {} there is no slack left: every burst adds to the queue and nothing ever drains it. After {} of \
                 simulated time {waiting} requests were still waiting (growing by {} req/s on average), so no \
                 percentile settles: run it longer and p99 only gets worse.",
                format_percent(self.load),
                format_duration(self.duration_s),
                format_number(growth)
            );
        }
        if let (Some(users), Some(unqueued), Some(actual)) =
            (self.users, self.unqueued_rate, self.effective_arrival_rate)
        {
            return format!(
                "Closed loop: {users} users each wait for their answer before sending again, so when responses slow \
                 they send less ({} instead of {} req/s). The load backs off by itself and the queue cannot run away.",
                format_number(actual),
                format_number(unqueued)
            );
        }
        let attainment = self.slo_attainment.unwrap_or(1.0);
        match self.tail_ratio() {
            Some(ratio) if ratio < 4.0 && attainment < 0.5 => format!(
                "Open loop, well past the knee: even the median request queues (p50 {}), so p99 is only {ratio:.1}× \
                 the median — the whole distribution has moved up, and {} of requests meet both SLOs.",
                self.p50_s.map_or_else(String::new, format_latency),
                format_percent(attainment)
            ),
            Some(ratio) if ratio >= 4.0 => format!(
                "Open loop: arrivals keep coming whatever the server does, so bursts queue behind full batches. p99 \
                 is {ratio:.1}× the median: the tail has torn away from the typical request."
            ),
            Some(_) => "Open loop, below the knee: most requests find a free slot and wait only for their own \
                        prefill, so p99 stays close to the median."
                .to_owned(),
            None => "Waiting for the simulation…".to_owned(),
        }
    }
}

/// What a readout shows before the first estimate: the shape of its value with "…" for the numbers, so it wraps
/// as the value will and its row keeps its height when the numbers arrive.
fn placeholder(key: ReadoutKey) -> &'static str {
    match key {
        ReadoutKey::Slo => "… (…)",
        ReadoutKey::Throughput | ReadoutKey::EffectiveRate => "… req/s",
        ReadoutKey::Goodput => "… req/s (…% of throughput)",
        ReadoutKey::TurnedAway => "…% of arrivals (… req/s)",
        ReadoutKey::Little => "… in the system; … req/s × … s = …",
        ReadoutKey::KvCache => "…% on average, …% at peak",
        _ => "…",
    }
}

/// A simulated time span for sentences: "14 min", "52 s".
fn format_duration(seconds: f64) -> String {
    if seconds >= 120.0 {
        format!("{:.0} min", seconds / 60.0)
    } else {
        format!("{seconds:.0} s")
    }
}
