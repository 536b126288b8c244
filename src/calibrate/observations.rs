//! From what a file shows to the fit's rows. Each TTFT is the front end, half a step of waiting when a batch is
//! running, and the prefill step(s) (compute-bound: the prompt and the batch's decodes; or memory-bound: the step's
//! fixed cost and the batch's context); each TPOT is a decode step (its fixed cost and the batch's context) plus its
//! share of the prefills that ran while the request decoded.

use super::beside::{Beside, Timed};
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
    /// V0's scheduler without chunks: prompts run in steps of their own, and the decodes wait
    /// ([`crate::model::LlmFleet::prefill_first`]).
    pub prefill_first: bool,
    /// Leading tokens of every prompt the prefix cache already holds (see [`super::prefix`]): not computed.
    pub cached_prefix: f64,
}

impl Shape {
    /// Tokens of a prompt its prefill computes: the prompt less the cached prefix, at least one.
    fn computed(&self, prompt: f64) -> f64 {
        (prompt - self.cached_prefix).max(1.0)
    }

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
    let prompt = shape.computed(prompt);
    let chunks = shape.chunks(prompt);
    let mut base = [0.0; 4];
    if figure == Figure::Ttft {
        base[FRONTEND] = 1.0;
        base[FIXED] = busy / 2.0;
        base[PER_CONTEXT_TOKEN] = busy / 2.0 * context;
    }
    // V0's prefill step runs the prompts alone; otherwise the batch's decodes ride in it.
    let (decoding, context) = if shape.prefill_first {
        (0.0, 0.0)
    } else {
        (decoding, context)
    };
    // Attention reads the batch's KV cache in a kernel of its own, after the matrix products: its time adds to
    // the step's whichever bound those are under.
    base[PER_CONTEXT_TOKEN] += chunks * context;
    Row {
        source,
        figure,
        y,
        base,
        memory: unit(FIXED, chunks),
        compute: unit(PER_TOKEN, prompt + chunks * decoding),
    }
}

/// A TPOT: the mean of a request's decode steps over `context` tokens of the batch, `prefill_steps` of which (per
/// step) also carry a prefill chunk, with `prefill_tokens` tokens (per step) processed in those: such a step lasts
/// the larger of its memory and compute time, the others their memory time. Under V0's scheduler
/// ([`Shape::prefill_first`]) the prefill steps come on top: every token takes a decode step, and the prefills'
/// steps add theirs.
fn decode_row(
    source: usize,
    y: f64,
    context: f64,
    prefill_steps: f64,
    prefill_tokens: f64,
    shape: &Shape,
) -> Row {
    let q = prefill_steps.clamp(0.0, 1.0);
    let decode_steps = if shape.prefill_first { 1.0 } else { 1.0 - q };
    let mut base = unit(FIXED, decode_steps);
    base[PER_CONTEXT_TOKEN] = context;
    Row {
        source,
        figure: Figure::Tpot,
        y,
        base,
        memory: unit(FIXED, q),
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
        let computed = shape.computed(self.prompt);
        let chunks = shape.chunks(computed);
        let prefill_steps = self.rate * y * chunks;
        // The batch's decodes ride in a prefill's steps, except under V0's scheduler.
        let riding = if shape.prefill_first {
            0.0
        } else {
            chunks * (1.0 + self.decoding)
        };
        decode_row(
            source,
            y,
            own + self.decoding * self.context_each,
            prefill_steps,
            self.rate * y * (computed + riding),
            shape,
        )
    }
}

/// Rows of a result file: as a trace's when it keeps every request's send and token times (vLLM 0.15's
/// `start_times`, a GuideLLM benchmark), else per request with `--save-detailed` lengths and times, else the run's
/// means. A closed loop (`--max-concurrency`) needs nothing of its own here: the batch beside a request is the run's
/// throughput × decode time (Little's law) whether the clients or the rate set the pace.
pub fn bench_rows(source: usize, bench: &BenchResult, shape: &Shape) -> Vec<Row> {
    if let (true, Some(lives)) = (bench.is_timed(), &bench.lives) {
        return trace_rows(source, lives, shape);
    }
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

/// Rows of a trace with first and last token times: the batch each request shared is rebuilt from the others'
/// times (one replica assumed per `shape.replicas`: the concurrency is shared evenly), by running sums
/// ([`Beside`]), in O(n log n).
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
    let mut beside = Beside::new(&timed, 1.0 / shape.replicas, |prompt| {
        let computed = shape.computed(prompt);
        (computed, shape.chunks(computed))
    });
    let mut rows = Vec::with_capacity(2 * timed.len());
    // TTFTs that waited for a running batch's step, kept apart: the wait's length is modelled only on average.
    let mut busy_ttfts = Vec::new();
    for (i, me) in timed.iter().enumerate() {
        let at = beside.at_prefill(i);
        let ttft = me.first - me.arrival;
        // A prefill that shared its time with another's waited in ways the rows do not model: leave it out.
        if !at.contended && ttft > 0.0 {
            let row = prefill_row(
                source,
                Figure::Ttft,
                ttft,
                shape,
                me.prompt,
                at.decoding,
                at.context,
                at.decoding.min(1.0),
            );
            if at.ran_beside {
                busy_ttfts.push(row);
            } else {
                rows.push(row);
            }
        }
        let Some(my_tpot) = me.tpot() else { continue };
        // The batch's context averaged over my decoding, and the prefills that finished inside it.
        let over = beside.over_decode(i, my_tpot);
        let span = me.last - me.first;
        let steps = me.output - 1.0;
        let riding = if shape.prefill_first {
            0.0
        } else {
            over.chunks * over.occupancy / span
        };
        rows.push(decode_row(
            source,
            my_tpot,
            over.integral / span,
            over.chunks / steps,
            (over.prefilled + riding) / steps,
            shape,
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
