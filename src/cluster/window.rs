//! The present from two scrapes. Every histogram and counter on a vLLM page counts since the server started, so one
//! scrape of a server that has run for a day says little about the last five minutes. The difference between an
//! earlier and a later scrape is exactly what happened in between: subtract the bucket counts and the percentiles of
//! the difference are the window's (Prometheus's `histogram_quantile(0.99, rate(…_bucket[5m]))` does the same). The
//! gauges (running, waiting, KV usage) are snapshots, so the window reads them off the later page.
//!
//! A counter that went down means the server restarted between the scrapes; the window then says so and shows the
//! later page's counts since the restart, never a negative difference.
//!
//! ```
//! use goodput::cluster::{metrics::parse, vllm::Span, window::between};
//! let page = |count: u32| format!(
//!     "# TYPE vllm:time_to_first_token_seconds histogram\n\
//!      vllm:time_to_first_token_seconds_bucket{{le=\"0.1\"}} {count}\n\
//!      vllm:time_to_first_token_seconds_bucket{{le=\"+Inf\"}} {count}\n");
//! let window = between(&parse(&page(100)).unwrap(), &parse(&page(130)).unwrap(), Some(10.0));
//! assert_eq!(window.servers[0].requests(), Some(30.0));
//! assert_eq!(window.servers[0].span, Span::Window { seconds: Some(10.0) });
//! ```

use super::metrics::Exposition;
use super::vllm::{
    find_signals, format_count, Bucket, HistogramSeries, Latency, Named, ServerSignals, Span,
    PREEMPTIONS_METRIC,
};
use std::collections::HashMap;

/// The process gauge Prometheus clients export: a new value means a new process.
const PROCESS_START_METRIC: &str = "process_start_time_seconds";

/// Two scrapes read as one window.
#[derive(Clone, Debug, PartialEq)]
pub struct Window {
    /// One entry per label set on the later page, in its order: [`Span::Window`] with the differences, or
    /// [`Span::Restarted`] with the later page's own counts.
    pub servers: Vec<ServerSignals>,
    /// Label sets on the earlier page that the later one no longer has (an engine or model that went away).
    pub gone: Vec<Vec<(String, String)>>,
}

/// The window between an `earlier` and a `later` scrape of the same server, `seconds` apart when known.
pub fn between(earlier: &Exposition, later: &Exposition, seconds: Option<f64>) -> Window {
    let seconds = seconds.filter(|s| s.is_finite() && *s > 0.0);
    let before = find_signals(earlier);
    let after = find_signals(later);
    let page_restart = process_restarted(earlier, later);
    let by_labels: HashMap<&[(String, String)], &ServerSignals> =
        before.iter().map(|s| (s.labels.as_slice(), s)).collect();
    let mut servers: Vec<ServerSignals> = after
        .iter()
        .map(|now| {
            let Some(then) = by_labels.get(now.labels.as_slice()) else {
                return restarted(now, "this label set is not on the earlier page".to_owned());
            };
            if let Some(evidence) = &page_restart {
                return restarted(now, evidence.clone());
            }
            match difference(then, now, seconds) {
                Ok(window) => window,
                Err(evidence) => restarted(now, evidence),
            }
        })
        .collect();
    super::vllm::settle(&mut servers);
    let later_labels: std::collections::HashSet<&[(String, String)]> =
        after.iter().map(|s| s.labels.as_slice()).collect();
    let gone = before
        .iter()
        .filter(|s| !later_labels.contains(s.labels.as_slice()))
        .map(|s| s.labels.clone())
        .collect();
    Window { servers, gone }
}

/// Seconds between two scrapes from their sample timestamps (the latest on each page), when both pages carry them
/// and the later one is later. vLLM itself writes no timestamps; pages saved from Prometheus's `/federate` do.
pub fn seconds_between_timestamps(earlier: &Exposition, later: &Exposition) -> Option<f64> {
    let latest = |page: &Exposition| {
        page.families
            .iter()
            .flat_map(|f| &f.samples)
            .filter_map(|s| s.timestamp_ms)
            .max()
    };
    let (then, now) = (latest(earlier)?, latest(later)?);
    // In i128: timestamps from a hostile page may sit at both ends of i64.
    (now > then).then(|| (i128::from(now) - i128::from(then)) as f64 / 1e3)
}

fn restarted(now: &ServerSignals, evidence: String) -> ServerSignals {
    ServerSignals {
        span: Span::Restarted { evidence },
        ..now.clone()
    }
}

/// The process start time on a page, when it has exactly one (one process).
fn process_start(page: &Exposition) -> Option<f64> {
    let family = page.family(PROCESS_START_METRIC)?;
    match family.samples.as_slice() {
        [only] if only.value.is_finite() => Some(only.value),
        _ => None,
    }
}

fn process_restarted(earlier: &Exposition, later: &Exposition) -> Option<String> {
    let (then, now) = (process_start(earlier)?, process_start(later)?);
    (then != now).then(|| format!("{PROCESS_START_METRIC} changed from {then} to {now}"))
}

/// The label set's counts between the scrapes, or what shows that the server restarted in between.
fn difference(
    then: &ServerSignals,
    now: &ServerSignals,
    seconds: Option<f64>,
) -> Result<ServerSignals, String> {
    let mut window = ServerSignals {
        span: Span::Window { seconds },
        ..now.clone()
    };
    for latency in Latency::ALL {
        let slot = window.histogram_mut(latency);
        match (then.histogram(latency), now.histogram(latency)) {
            (Some(old), Some(new)) if old.metric == new.metric => {
                *slot = Some(Named {
                    metric: new.metric,
                    value: histogram_difference(new.metric, &old.value, &new.value)?,
                });
            }
            (None, None) => {}
            (old, new) => {
                let names = |h: Option<&Named<HistogramSeries>>| h.map_or("none", |h| h.metric);
                return Err(format!(
                    "its {} histogram changed from {} to {}, so the server was restarted, perhaps on another version",
                    latency.short_name(),
                    names(old),
                    names(new)
                ));
            }
        }
    }
    window.preemptions = match (then.preemptions, now.preemptions) {
        (Some(old), Some(new)) if new < old => {
            return Err(format!(
                "{PREEMPTIONS_METRIC} fell from {} to {}",
                format_count(old),
                format_count(new)
            ))
        }
        (Some(old), Some(new)) => Some(new - old),
        _ => None,
    };
    window.refusals = match (&then.refusals, &now.refusals) {
        (Some(old), Some(new)) => Some(new.since(old)?),
        // A labelled counter appears at its first increment: everything it counts happened after the earlier scrape.
        (None, Some(new)) => Some(new.clone()),
        (_, None) => None,
    };
    window.prefix_cache = match (then.prefix_cache, now.prefix_cache) {
        (Some(old), Some(new)) => Some(new.since(&old)?),
        _ => None,
    };
    Ok(window)
}

/// A bucket bound as the page writes it: `0.5`, `+Inf`.
fn format_bound(bound: f64) -> String {
    if bound == f64::INFINITY {
        "+Inf".to_owned()
    } else {
        bound.to_string()
    }
}

/// `new − old`, bucket by bucket; an error when the bounds differ or a count fell (a restart).
fn histogram_difference(
    metric: &str,
    old: &HistogramSeries,
    new: &HistogramSeries,
) -> Result<HistogramSeries, String> {
    let same_bounds = old.buckets.len() == new.buckets.len()
        && old
            .buckets
            .iter()
            .zip(&new.buckets)
            .all(|(a, b)| a.upper_bound == b.upper_bound);
    if !same_bounds {
        return Err(format!("the bucket bounds of {metric} changed"));
    }
    if new.count() < old.count() {
        return Err(format!(
            "{metric}_count fell from {} to {}",
            format_count(old.count()),
            format_count(new.count())
        ));
    }
    let mut buckets = Vec::with_capacity(new.buckets.len());
    for (a, b) in old.buckets.iter().zip(&new.buckets) {
        if b.cumulative < a.cumulative {
            return Err(format!(
                "the le=\"{}\" bucket of {metric} fell from {} to {}",
                format_bound(a.upper_bound),
                format_count(a.cumulative),
                format_count(b.cumulative)
            ));
        }
        buckets.push(Bucket {
            upper_bound: b.upper_bound,
            cumulative: b.cumulative - a.cumulative,
        });
    }
    let sum = old.sum.zip(new.sum).map(|(a, b)| b - a);
    Ok(HistogramSeries { buckets, sum })
}
