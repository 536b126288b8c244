//! A prompt prefix every request shares (a system prompt, a few-shot preamble), found in the data: with prefix
//! caching on, vLLM computes it once and every later prefill skips it. A request that found the server idle has a TTFT
//! of the front end plus the prefill of the tokens it computes, so across prompts of different lengths its TTFT grows
//! along a line that reaches zero at a positive prompt length — the shared prefix — instead of starting at the front
//! end's constant. Found only when that crossing is well clear of zero: the idle TTFTs' least-squares line must cross
//! at [`MIN_PREFIX_TOKENS`] or more, with its intercept below zero by more than three standard errors.

use super::inputs::Life;

/// The smallest prefix reported: a shorter crossing is within what a prefill's slight curvature (attention grows
/// with the prompt) produces on its own.
pub const MIN_PREFIX_TOKENS: f64 = 256.0;

/// Fewest idle requests the line is fitted to.
const MIN_IDLE: usize = 8;

/// The shared prefix found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SharedPrefix {
    /// Its length, whole KV blocks of 16 tokens.
    pub tokens: u32,
    /// Idle requests the line was fitted to.
    pub requests: usize,
}

/// `(prompt, TTFT)` of the requests that found the server idle: no other request in flight between their arrival and
/// their first token.
fn idle(lives: &[Life]) -> Vec<(f64, f64)> {
    let mut timed: Vec<(f64, f64, f64, u32)> = lives
        .iter()
        .filter_map(|l| {
            Some((
                l.arrival?,
                l.arrival? + l.ttft?,
                l.arrival? + l.e2e?,
                l.prompt,
            ))
        })
        .filter(|t| t.1 > t.0)
        .collect();
    timed.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut busy_until = f64::NEG_INFINITY;
    let mut out = Vec::new();
    for (i, &(arrival, first, last, prompt)) in timed.iter().enumerate() {
        let next_arrival = timed.get(i + 1).map_or(f64::INFINITY, |t| t.0);
        if busy_until <= arrival && next_arrival >= first {
            out.push((f64::from(prompt), first - arrival));
        }
        busy_until = busy_until.max(last);
    }
    out
}

/// The shared prefix the inputs' idle TTFTs show, if any.
pub fn shared_prefix(inputs: &[&[Life]]) -> Option<SharedPrefix> {
    let points: Vec<(f64, f64)> = inputs.iter().flat_map(|lives| idle(lives)).collect();
    let n = points.len();
    if n < MIN_IDLE {
        return None;
    }
    let mean = |f: fn(&(f64, f64)) -> f64| points.iter().map(f).sum::<f64>() / n as f64;
    let (mx, my) = (mean(|p| p.0), mean(|p| p.1));
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    if sxx <= 0.0 {
        return None;
    }
    let slope = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum::<f64>() / sxx;
    let intercept = my - slope * mx;
    let residual: f64 = points
        .iter()
        .map(|p| (p.1 - intercept - slope * p.0).powi(2))
        .sum();
    let variance = residual / (n - 2) as f64;
    let intercept_error = (variance * (1.0 / n as f64 + mx * mx / sxx)).sqrt();
    let crossing = -intercept / slope;
    let shortest = points.iter().map(|p| p.0).fold(f64::INFINITY, f64::min);
    if !(slope > 0.0 && intercept < -3.0 * intercept_error && crossing >= MIN_PREFIX_TOKENS) {
        return None;
    }
    // Whole blocks only are cached; at least one token of the shortest prompt is computed.
    let tokens = ((crossing.min(shortest - 1.0) / 16.0).floor() * 16.0) as u32;
    (tokens > 0).then_some(SharedPrefix {
        tokens,
        requests: n,
    })
}
