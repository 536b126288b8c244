//! Two `/metrics` scrapes of one server as the means of the window between them: vLLM's histograms' `_sum` and
//! `_count` differences (all label sets together), its prompt and generation length histograms as empirical lengths,
//! and the running gauge when the window's length is unknown.

use super::observations::WindowMeans;
use super::{MAX_WINDOW_SECONDS, MIN_WINDOW_SECONDS};
use crate::cluster::metrics::Exposition;
use crate::cluster::window::seconds_between_timestamps;
use crate::model::scenario::MAX_TOKENS;

/// The total of every sample called `name` on a page (all label sets), `None` when there is none.
fn total(page: &Exposition, name: &str) -> Option<f64> {
    let mut found = false;
    let mut sum = 0.0;
    for sample in page.families.iter().flat_map(|f| &f.samples) {
        if sample.name == name {
            found = true;
            sum += sample.value;
        }
    }
    found.then_some(sum)
}

/// The increase of `name` between the pages (negative when the server restarted: [`check_no_restart`] refuses
/// that first).
fn increase(earlier: &Exposition, later: &Exposition, name: &str) -> Option<f64> {
    Some(total(later, name)? - total(earlier, name)?)
}

/// The counters and histograms the window reads, which only grow while the server runs.
const COUNTERS: [&str; 14] = [
    "vllm:time_to_first_token_seconds_count",
    "vllm:time_to_first_token_seconds_sum",
    "vllm:request_time_per_output_token_seconds_count",
    "vllm:time_per_output_token_seconds_count",
    "vllm:inter_token_latency_seconds_count",
    "vllm:request_prompt_tokens_count",
    "vllm:request_prompt_tokens_sum",
    "vllm:request_generation_tokens_count",
    "vllm:request_generation_tokens_sum",
    "vllm:prompt_tokens_total",
    "vllm:generation_tokens_total",
    "vllm:request_queue_time_seconds_count",
    "vllm:request_prefill_time_seconds_count",
    "vllm:request_decode_time_seconds_count",
];

/// Refuses two pages across a restart, as `goodput-sim metrics` names it: a vLLM histogram that changed or fell
/// (the metrics reader's own window), a new process start time, or a counter the window reads that went down.
fn check_no_restart(name: &str, earlier: &Exposition, later: &Exposition) -> Result<(), String> {
    use crate::cluster::vllm::{find_signals, Span};
    // A label set new on the later page (an engine that joined) is no restart of the others.
    let before: Vec<_> = find_signals(earlier)
        .into_iter()
        .map(|s| s.labels)
        .collect();
    let window = crate::cluster::window::between(earlier, later, None);
    let restart = window.servers.iter().find_map(|s| match &s.span {
        Span::Restarted { evidence } if before.contains(&s.labels) => Some(evidence),
        _ => None,
    });
    if let Some(evidence) = restart {
        return Err(format!(
            "{name}: the server restarted between the scrapes ({evidence}), so they make no window; take two \
             scrapes of one run of the server"
        ));
    }
    for counter in COUNTERS {
        if let (Some(then), Some(now)) = (total(earlier, counter), total(later, counter)) {
            if now < then {
                return Err(restarted(name, counter, then, now));
            }
        }
    }
    Ok(())
}

/// The window's mean of the histogram `base` (the first of the names a page has), with its count.
fn histogram_mean(earlier: &Exposition, later: &Exposition, bases: &[&str]) -> Option<(f64, f64)> {
    bases.iter().find_map(|base| {
        let count = increase(earlier, later, &format!("{base}_count"))?;
        let sum = increase(earlier, later, &format!("{base}_sum"))?;
        (count > 0.0).then(|| (sum / count, count))
    })
}

/// Lengths a histogram's window is spread into (about; a bucket's share rounds).
const LENGTH_DRAWS: f64 = 1000.0;

/// A length histogram's buckets on one page, all label sets together: (upper bound, cumulative count) by bound.
fn length_buckets(page: &Exposition, name: &str) -> Option<Vec<(f64, f64)>> {
    let mut by_bound: Vec<(f64, f64)> = Vec::new();
    for sample in page.families.iter().flat_map(|f| &f.samples) {
        if sample.name != name {
            continue;
        }
        let bound = match sample.label("le")? {
            "+Inf" => f64::INFINITY,
            le => le.parse().ok()?,
        };
        match by_bound.iter_mut().find(|(b, _)| *b == bound) {
            Some(entry) => entry.1 += sample.value,
            None => by_bound.push((bound, sample.value)),
        }
    }
    by_bound.sort_by(|a, b| a.0.total_cmp(&b.0));
    Some(by_bound)
}

/// A length histogram's window as a list of about [`LENGTH_DRAWS`] lengths, spread evenly inside each bucket;
/// `Ok(None)` when a page lacks it or the window saw no request. Refused when the two pages' buckets differ (the
/// server was started again with other settings) or a count fell (it restarted): no window exists then.
fn lengths(
    name: &str,
    earlier: &Exposition,
    later: &Exposition,
    base: &str,
) -> Result<Option<Vec<u32>>, String> {
    let bucket = format!("{base}_bucket");
    let (Some(before), Some(after)) = (
        length_buckets(earlier, &bucket),
        length_buckets(later, &bucket),
    ) else {
        return Ok(None);
    };
    if before.is_empty() || after.is_empty() {
        return Ok(None);
    }
    let bounds = |b: &[(f64, f64)]| b.iter().map(|e| e.0).collect::<Vec<_>>();
    if bounds(&before) != bounds(&after) {
        return Err(format!(
            "{name}: {bucket} has other bucket bounds on the later page ({} buckets, {} before), so the server was \
             restarted with other settings between the scrapes; take two scrapes of one run",
            after.len(),
            before.len()
        ));
    }
    // Each bucket's own count in the window (the pages' counts are cumulative over the bounds).
    let mut counts = Vec::with_capacity(after.len());
    let mut below = 0.0;
    for (&(bound, now), &(_, then)) in after.iter().zip(&before) {
        let cumulative = now - then;
        if !(cumulative.is_finite() && cumulative >= below) {
            return Err(restarted(name, &bucket, then, now));
        }
        counts.push((bound, cumulative - below));
        below = cumulative;
    }
    let total = below;
    if total < 1.0 {
        return Ok(None);
    }
    let mut out = Vec::new();
    let mut lower = 0.0_f64;
    for (bound, count) in counts {
        // The +Inf bucket: its lengths are at least the last bound.
        let upper = if bound.is_finite() { bound } else { lower };
        let draws = (count / total * LENGTH_DRAWS).round() as usize;
        for k in 0..draws {
            let x = lower + (upper - lower) * (k as f64 + 0.5) / draws as f64;
            out.push(x.round().clamp(1.0, f64::from(MAX_TOKENS)) as u32);
        }
        lower = upper;
    }
    Ok((!out.is_empty()).then_some(out))
}

/// The error for a count that fell between the scrapes.
fn restarted(name: &str, metric: &str, then: f64, now: f64) -> String {
    format!(
        "{name}: the server restarted between the scrapes ({metric} fell from {then} to {now}), so they make no \
         window; take two scrapes of one run of the server"
    )
}

/// What the window shows, for the fit and the lengths.
pub struct ScrapeWindow {
    /// The means.
    pub means: WindowMeans,
    /// Prompt lengths from the histogram, when the page has it.
    pub prompt_lengths: Option<Vec<u32>>,
    /// Output lengths from the histogram, when the page has it.
    pub output_lengths: Option<Vec<u32>>,
    /// Where the window's length came from.
    pub seconds_from: &'static str,
}

/// The window between `earlier` and `later` (named `name` in errors), `seconds` long when given.
pub fn window(
    name: &str,
    earlier: &Exposition,
    later: &Exposition,
    seconds: Option<f64>,
) -> Result<ScrapeWindow, String> {
    check_no_restart(name, earlier, later)?;
    let (ttft, requests) = histogram_mean(earlier, later, &["vllm:time_to_first_token_seconds"])
        .ok_or_else(|| {
            format!("{name}: no request got its first token between the two scrapes (vllm:time_to_first_token_seconds)")
        })?;
    let tpot = histogram_mean(
        earlier,
        later,
        &[
            "vllm:request_time_per_output_token_seconds",
            "vllm:time_per_output_token_seconds",
            "vllm:inter_token_latency_seconds",
        ],
    )
    .ok_or_else(|| format!("{name}: the scrapes show no time per output token (vllm:request_time_per_output_token_seconds)"))?
    .0;
    let prompt = histogram_mean(earlier, later, &["vllm:request_prompt_tokens"])
        .map(|m| m.0)
        .or_else(|| Some(increase(earlier, later, "vllm:prompt_tokens_total")? / requests))
        .filter(|p| *p >= 1.0)
        .ok_or_else(|| {
            format!("{name}: the scrapes show no prompt lengths (vllm:prompt_tokens_total)")
        })?;
    let output = histogram_mean(earlier, later, &["vllm:request_generation_tokens"])
        .map(|m| m.0)
        .or_else(|| Some(increase(earlier, later, "vllm:generation_tokens_total")? / requests))
        .filter(|o| *o >= 1.0)
        .ok_or_else(|| {
            format!("{name}: the scrapes show no output lengths (vllm:generation_tokens_total)")
        })?;
    let queue = histogram_mean(earlier, later, &["vllm:request_queue_time_seconds"]).map(|m| m.0);
    // Without the queue's histogram a queueing server's TTFT is mostly its wait, which says nothing of its steps.
    let waiting = total(later, "vllm:num_requests_waiting").unwrap_or(0.0);
    let running = total(later, "vllm:num_requests_running").unwrap_or(0.0);
    if queue.is_none() && waiting > 0.0 && waiting >= running {
        return Err(format!(
            "{name}: the server was queueing ({waiting} waiting, {running} running) and the pages have no \
             vllm:request_queue_time_seconds to take the wait out of TTFT; scrape it at light load"
        ));
    }
    let prefill =
        histogram_mean(earlier, later, &["vllm:request_prefill_time_seconds"]).map(|m| m.0);
    let decode_mean = histogram_mean(earlier, later, &["vllm:request_decode_time_seconds"])
        .map(|m| m.0)
        .unwrap_or(tpot * (output - 1.0).max(0.0));
    let (seconds, seconds_from) = match seconds.filter(|s| s.is_finite() && *s > 0.0) {
        Some(s) => (Some(s), "given"),
        None => match seconds_between_timestamps(earlier, later) {
            Some(s) if !(MIN_WINDOW_SECONDS..=MAX_WINDOW_SECONDS).contains(&s) => {
                return Err(format!(
                    "{name}: the samples' timestamps put the scrapes {s} s apart, outside {MIN_WINDOW_SECONDS} s to \
                     a year; give the seconds between them"
                ));
            }
            Some(s) => (Some(s), "the samples' timestamps"),
            None => (
                None,
                "unknown: the running gauge stands in for the concurrency",
            ),
        },
    };
    let (decoding, rate) = match seconds {
        Some(s) => (requests * decode_mean / s, requests / s),
        None => {
            let running = total(later, "vllm:num_requests_running").ok_or_else(|| {
                format!(
                    "{name}: the window's length is unknown (give the seconds between the scrapes) and the page has \
                     no vllm:num_requests_running"
                )
            })?;
            let rate = if decode_mean > 0.0 {
                running / decode_mean
            } else {
                0.0
            };
            (running, rate)
        }
    };
    Ok(ScrapeWindow {
        means: WindowMeans {
            requests,
            prompt,
            output,
            ttft,
            tpot,
            queue,
            prefill,
            decoding,
            rate,
        },
        prompt_lengths: lengths(name, earlier, later, "vllm:request_prompt_tokens")?,
        output_lengths: lengths(name, earlier, later, "vllm:request_generation_tokens")?,
        seconds_from,
    })
}
