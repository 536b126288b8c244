//! Two `/metrics` scrapes of one server as the means of the window between them: vLLM's histograms' `_sum` and
//! `_count` differences (all label sets together), its prompt and generation length histograms as empirical lengths,
//! and the running gauge when the window's length is unknown.

use super::observations::WindowMeans;
use crate::cluster::metrics::Exposition;
use crate::cluster::window::seconds_between_timestamps;

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

/// The increase of `name` between the pages.
fn increase(earlier: &Exposition, later: &Exposition, name: &str) -> Option<f64> {
    Some(total(later, name)? - total(earlier, name)?)
}

/// The window's mean of the histogram `base` (the first of the names a page has), with its count.
fn histogram_mean(earlier: &Exposition, later: &Exposition, bases: &[&str]) -> Option<(f64, f64)> {
    bases.iter().find_map(|base| {
        let count = increase(earlier, later, &format!("{base}_count"))?;
        let sum = increase(earlier, later, &format!("{base}_sum"))?;
        (count > 0.0).then(|| (sum / count, count))
    })
}

/// A length histogram's window as a list of lengths (about a thousand), spread evenly inside each bucket.
fn lengths(earlier: &Exposition, later: &Exposition, base: &str) -> Option<Vec<u32>> {
    let name = format!("{base}_bucket");
    let buckets = |page: &Exposition| {
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
    };
    let (before, after) = (buckets(earlier)?, buckets(later)?);
    let total = after.last()?.1 - before.last().map_or(0.0, |b| b.1);
    if total < 1.0 {
        return None;
    }
    let mut out = Vec::new();
    let (mut lower, mut below) = (0.0_f64, 0.0_f64);
    for &(bound, cumulative) in &after {
        let earlier_cumulative = before
            .iter()
            .find(|(b, _)| *b == bound)
            .map_or(0.0, |b| b.1);
        let count = (cumulative - earlier_cumulative - below).max(0.0);
        below += count;
        // The +Inf bucket: its lengths are at least the last bound.
        let upper = if bound.is_finite() { bound } else { lower };
        let draws = (count / total * 1000.0).round() as usize;
        for k in 0..draws {
            let x = lower + (upper - lower) * (k as f64 + 0.5) / draws as f64;
            out.push(x.round().max(1.0) as u32);
        }
        lower = upper;
    }
    (!out.is_empty()).then_some(out)
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
        prompt_lengths: lengths(earlier, later, "vllm:request_prompt_tokens"),
        output_lengths: lengths(earlier, later, "vllm:request_generation_tokens"),
        seconds_from,
    })
}
