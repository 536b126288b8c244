//! From what a file shows to the fit's rows. Each TTFT is the front end, half a step of waiting when a batch is
//! running, and the prefill step(s) (compute-bound: the prompt and the batch's decodes; or memory-bound: the step's
//! fixed cost and the batch's context); each TPOT is a decode step (its fixed cost and the batch's context) plus its
//! share of the prefills that ran while the request decoded.

use super::fit::{Figure, Row, FIXED, FRONTEND, PER_CONTEXT_TOKEN, PER_TOKEN};
use super::inputs::{BenchResult, Life};

/// The server's flags the rows depend on.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    /// Replicas sharing the load.
    pub replicas: f64,
    /// The step's token budget, for the prefill's chunks.
    pub max_num_batched_tokens: u32,
    /// Whether a long prompt is cut into chunks.
    pub chunked_prefill: bool,
}

impl Shape {
    fn chunks(&self, prompt: f64) -> f64 {
        if self.chunked_prefill {
            (prompt / f64::from(self.max_num_batched_tokens))
                .ceil()
                .max(1.0)
        } else {
            1.0
        }
    }
}

fn unit(k: usize, x: f64) -> [f64; 4] {
    let mut v = [0.0; 4];
    v[k] = x;
    v
}

/// A TTFT (or a prefill time, without the front end) of a prompt of `prompt` tokens with `decoding` sequences of
/// `context` tokens in all running beside it. With a batch running (probability `busy`), the request first waits
/// for the decode step under way to end: half a step on average.
#[allow(clippy::too_many_arguments)]
fn prefill_row(
    source: usize,
    figure: Figure,
    y: f64,
    shape: &Shape,
    prompt: f64,
    decoding: f64,
    context: f64,
    busy: f64,
) -> Row {
    let chunks = shape.chunks(prompt);
    let mut base = [0.0; 4];
    if figure == Figure::Ttft {
        base[FRONTEND] = 1.0;
        base[FIXED] = busy / 2.0;
        base[PER_CONTEXT_TOKEN] = busy / 2.0 * context;
    }
    let mut memory = unit(FIXED, chunks);
    memory[PER_CONTEXT_TOKEN] = chunks * context;
    Row {
        source,
        figure,
        y,
        base,
        memory,
        compute: unit(PER_TOKEN, prompt + chunks * decoding),
    }
}

/// A TPOT: the mean of a request's decode steps over `context` tokens of the batch, `prefill_steps` of which (per
/// step) also carry a prefill chunk, with `prefill_tokens` tokens (per step) processed in those: such a step lasts
/// the larger of its memory and compute time, the others their memory time.
fn decode_row(source: usize, y: f64, context: f64, prefill_steps: f64, prefill_tokens: f64) -> Row {
    let q = prefill_steps.clamp(0.0, 1.0);
    let mut base = unit(FIXED, 1.0 - q);
    base[PER_CONTEXT_TOKEN] = (1.0 - q) * context;
    let mut memory = unit(FIXED, q);
    memory[PER_CONTEXT_TOKEN] = q * context;
    Row {
        source,
        figure: Figure::Tpot,
        y,
        base,
        memory,
        compute: unit(PER_TOKEN, prefill_tokens),
    }
}

/// Run-level load: mean decoding sequences per replica, the requests per second each replica gets, and the mean
/// context of a decoding sequence.
struct Load {
    decoding: f64,
    rate: f64,
    context_each: f64,
    prompt: f64,
}

impl Load {
    /// A TPOT of `y` for a request of `own` context tokens on average: it sees itself and, arrivals being random,
    /// the time-average of the others; prefills arrive at the run's rate, each in its chunks.
    fn decode_row(&self, source: usize, y: f64, own: f64, shape: &Shape) -> Row {
        let chunks = shape.chunks(self.prompt);
        let prefill_steps = self.rate * y * chunks;
        decode_row(
            source,
            y,
            own + self.decoding * self.context_each,
            prefill_steps,
            self.rate * y * (self.prompt + chunks * (1.0 + self.decoding)),
        )
    }
}

/// Rows of a result file: per request with `--save-detailed` lengths and times, else the run's means.
pub fn bench_rows(source: usize, bench: &BenchResult, shape: &Shape) -> Vec<Row> {
    let decode_time = (bench.e2el_mean - bench.ttft_mean).max(0.0);
    let load = Load {
        decoding: bench.request_throughput * decode_time / shape.replicas,
        rate: bench.request_throughput / shape.replicas,
        context_each: bench.mean_prompt + bench.mean_output / 2.0,
        prompt: bench.mean_prompt,
    };
    let busy = load.decoding.min(1.0);
    let mut rows = Vec::new();
    match &bench.lives {
        Some(lives) if !lives.is_empty() => {
            for life in lives {
                let (prompt, output) = (f64::from(life.prompt), f64::from(life.output));
                let Some(ttft) = life.ttft else { continue };
                if ttft > 0.0 {
                    rows.push(prefill_row(
                        source,
                        Figure::Ttft,
                        ttft,
                        shape,
                        prompt,
                        load.decoding,
                        load.decoding * load.context_each,
                        busy,
                    ));
                }
                if let (Some(e2e), true) = (life.e2e, life.output > 1) {
                    let tpot = (e2e - ttft) / (output - 1.0);
                    if tpot > 0.0 {
                        let own = prompt + 1.0 + (output - 1.0) / 2.0;
                        rows.push(load.decode_row(source, tpot, own, shape));
                    }
                }
            }
        }
        _ => {
            if bench.ttft_mean > 0.0 {
                rows.push(prefill_row(
                    source,
                    Figure::Ttft,
                    bench.ttft_mean,
                    shape,
                    bench.mean_prompt,
                    load.decoding,
                    load.decoding * load.context_each,
                    busy,
                ));
            }
            if bench.tpot_mean > 0.0 {
                rows.push(load.decode_row(source, bench.tpot_mean, load.context_each, shape));
            }
        }
    }
    rows
}

/// A request of a trace with both times, on the trace's clock.
#[derive(Clone, Copy)]
struct Timed {
    arrival: f64,
    first: f64,
    last: f64,
    prompt: f64,
    output: f64,
}

impl Timed {
    fn tpot(&self) -> Option<f64> {
        (self.output > 1.0 && self.last > self.first)
            .then(|| (self.last - self.first) / (self.output - 1.0))
    }

    /// Its context at `t` while it decodes: the prompt, the first token and one more token every TPOT.
    fn context_at(&self, t: f64, tpot: f64) -> f64 {
        self.prompt + 1.0 + (t - self.first) / tpot
    }
}

/// Rows of a trace with first and last token times: the batch each request shared is rebuilt from the others'
/// times (one replica assumed per `shape.replicas`: the concurrency is shared evenly).
pub fn trace_rows(source: usize, lives: &[Life], shape: &Shape) -> Vec<Row> {
    let mut timed: Vec<Timed> = lives
        .iter()
        .filter_map(|l| {
            let arrival = l.arrival?;
            Some(Timed {
                arrival,
                first: arrival + l.ttft?,
                last: arrival + l.e2e?,
                prompt: f64::from(l.prompt),
                output: f64::from(l.output),
            })
        })
        .collect();
    timed.sort_by(|a, b| a.first.total_cmp(&b.first));
    let longest = timed.iter().map(|t| t.last - t.first).fold(0.0, f64::max);
    let longest_ttft = timed
        .iter()
        .map(|t| t.first - t.arrival)
        .fold(0.0, f64::max);
    let share = 1.0 / shape.replicas;
    let mut rows = Vec::with_capacity(2 * timed.len());
    // TTFTs that waited for a running batch's step, kept apart: the wait's length is modelled only on average.
    let mut busy_ttfts = Vec::new();
    for (i, me) in timed.iter().enumerate() {
        // Everyone whose decoding could overlap: first token no earlier than `longest` before mine.
        let from = timed.partition_point(|t| t.first < me.first - longest);
        // Decoding beside my prefill (its end, my first token).
        let (mut decoding, mut context, mut ran_beside) = (0.0, 0.0, false);
        for other in &timed[from..] {
            if other.first >= me.first {
                break;
            }
            ran_beside |= other.last > me.arrival;
            if let (Some(tpot), true) = (other.tpot(), other.last > me.first) {
                decoding += share;
                context += share * other.context_at(me.first, tpot);
            }
        }
        // A prefill that shared its time with another's waited in ways the rows do not model: leave it out.
        // Only those whose first token is within the longest TTFT after mine can have arrived before it (twice
        // that, against rounding): the scan stops there instead of running to the end of the trace.
        let contended = timed[from..]
            .iter()
            .take_while(|o| o.first <= me.first + 2.0 * longest_ttft)
            .enumerate()
            .any(|(j, o)| from + j != i && o.arrival < me.first && o.first > me.arrival);
        let ttft = me.first - me.arrival;
        if !contended && ttft > 0.0 {
            let row = prefill_row(
                source,
                Figure::Ttft,
                ttft,
                shape,
                me.prompt,
                decoding,
                context,
                decoding.min(1.0),
            );
            if ran_beside {
                busy_ttfts.push(row);
            } else {
                rows.push(row);
            }
        }
        let Some(my_tpot) = me.tpot() else { continue };
        // The batch's context averaged over my decoding, and the prefills that finished inside it.
        let (mut integral, mut occupancy, mut prefilled, mut chunks) = (0.0, 0.0, 0.0, 0.0);
        for (j, other) in timed[from..].iter().enumerate() {
            if other.first >= me.last {
                break;
            }
            let mine = from + j == i;
            let weight = if mine { 1.0 } else { share };
            if let Some(tpot) = other.tpot() {
                let (start, end) = (me.first.max(other.first), me.last.min(other.last));
                if end > start {
                    let (s, e) = (start - other.first, end - other.first);
                    integral += weight
                        * ((end - start) * (other.prompt + 1.0) + (e * e - s * s) / (2.0 * tpot));
                    occupancy += weight * (end - start);
                }
            }
            if !mine && other.first > me.first {
                prefilled += share * other.prompt;
                chunks += share * shape.chunks(other.prompt);
            }
        }
        let span = me.last - me.first;
        let steps = me.output - 1.0;
        rows.push(decode_row(
            source,
            my_tpot,
            integral / span,
            chunks / steps,
            (prefilled + chunks * occupancy / span) / steps,
        ));
    }
    // Requests that found the server idle time the prefill exactly; with too few of them, the others stand in.
    let idle = rows.iter().filter(|r| r.figure == Figure::Ttft).count();
    if idle < MIN_IDLE_TTFTS {
        rows.extend(busy_ttfts);
    }
    rows
}

/// Fewest TTFTs of requests that found the server idle for the fit to rest on them alone.
const MIN_IDLE_TTFTS: usize = 20;

/// The means of a window between two `/metrics` scrapes.
#[derive(Clone, Debug, PartialEq)]
pub struct WindowMeans {
    /// Requests finished in the window.
    pub requests: f64,
    /// Mean prompt and output tokens.
    pub prompt: f64,
    /// Mean output tokens.
    pub output: f64,
    /// Mean TTFT.
    pub ttft: f64,
    /// Mean per-request TPOT.
    pub tpot: f64,
    /// Mean time waiting, when the page has it.
    pub queue: Option<f64>,
    /// Mean prefill time, when the page has it.
    pub prefill: Option<f64>,
    /// Mean decoding sequences, fleet-wide.
    pub decoding: f64,
    /// Requests per second, fleet-wide.
    pub rate: f64,
}

/// Rows of a window: its mean TTFT (less the queue), mean prefill time and mean TPOT.
pub fn window_rows(source: usize, w: &WindowMeans, shape: &Shape) -> Vec<Row> {
    let load = Load {
        decoding: w.decoding / shape.replicas,
        rate: w.rate / shape.replicas,
        context_each: w.prompt + w.output / 2.0,
        prompt: w.prompt,
    };
    let busy = load.decoding.min(1.0);
    let beside = load.decoding * load.context_each;
    let mut rows = Vec::new();
    let ttft = w.ttft - w.queue.unwrap_or(0.0);
    if ttft > 0.0 {
        rows.push(prefill_row(
            source,
            Figure::Ttft,
            ttft,
            shape,
            w.prompt,
            load.decoding,
            beside,
            busy,
        ));
    }
    if let Some(prefill) = w.prefill.filter(|p| *p > 0.0) {
        rows.push(prefill_row(
            source,
            Figure::Prefill,
            prefill,
            shape,
            w.prompt,
            load.decoding,
            beside,
            0.0,
        ));
    }
    if w.tpot > 0.0 {
        rows.push(load.decode_row(source, w.tpot, load.context_each, shape));
    }
    rows
}
