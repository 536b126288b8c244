//! A calibrated server as the page keeps it (the calibration worker writes it, the lab reads it back from the
//! browser's storage): a header line, then numbers.
//!
//! Why not the scenario's JSON: reading that JSON in the page would link the scenario's serde deserializer into the
//! page's wasm, 7.2 kB brotli measured, a third of what a first visit may still grow. These numbers hold only what the
//! lab runs, and reading them takes one loop over `f64`s. The JSON scenario file is still what the learner downloads
//! and what `goodput-sim run --scenario` reads. The loop is the lab's to set, so a closed-loop scenario is kept
//! open-loop.
//!
//! After `goodput your-server 1`, whitespace-separated, `NaN` for an absent option, one group a line:
//!
//! ```text
//! replicas  max_num_seqs  max_num_batched_tokens  chunked (1/0)  prefix caching (1/0)  front end (s)
//! fixed  per_prefill_token  per_decode_seq  per_context_token  compute.fixed  compute.per_token   (s; NaN NaN: no compute term)
//! kv_cache_tokens  max_num_queued_reqs  max_num_queued_tokens                                    (NaN: unlimited)
//! offered_load  cv  slo.ttft  slo.tpot  requests  warm_up  capacity_ratio
//! prompt lengths:  kind (0 fixed, 1 uniform, 2 geometric, 3 empirical)  count  values…
//! output lengths:  the same
//! measured runs:  count, then each: rate, TTFT p50, p99 (NaN: not given), TPOT p50, throughput, measured then model
//! shared_prefix_tokens                                                   (absent in servers kept before it: 0)
//! band: 0 for none, or 1, capacity low central high, knee low central high (NaN: none), highest measured rate
//!   (NaN: none), count, then each point: rate, p50 TTFT low high, p99 TTFT low high    (absent before it: none)
//! prefill first (1/0): vLLM V0's scheduler, prompts in steps of their own             (absent before it: 0)
//! ```

use crate::scenario::{
    Arrivals, ComputeTime, IterationModel, KvCache, LengthDist, LlmFleet, Scenario, ServiceKind,
    Slo,
};
use crate::your_server::{Band, BandPoint, MeasuredRun, Range, YourServer};
use crate::BenchFigures;

/// The offered load a closed-loop scenario is kept with: the lab sets the loop and the load itself.
const CLOSED_AS_OPEN_LOAD: f64 = 0.8;

/// The first words, with the format's version.
const HEADER: &str = "goodput your-server 1";

/// Writes numbers a group a line.
fn line(out: &mut String, numbers: &[f64]) {
    out.push('\n');
    let words: Vec<String> = numbers.iter().map(f64::to_string).collect();
    out.push_str(&words.join(" "));
}

fn option(value: Option<f64>) -> f64 {
    value.unwrap_or(f64::NAN)
}

/// The server in the handoff form; `None` for a textbook scenario (only LLM fleets are calibrated).
pub fn encode(server: &YourServer) -> Option<String> {
    let ServiceKind::Llm(fleet) = &server.scenario.service else {
        return None;
    };
    let scenario = &server.scenario;
    let flag = |on: bool| f64::from(u8::from(on));
    let step = &fleet.iteration;
    let (load, cv) = match scenario.arrivals {
        Arrivals::Open { offered_load, cv } => (offered_load, cv),
        Arrivals::Closed { .. } => (CLOSED_AS_OPEN_LOAD, crate::scenario::POISSON_CV),
    };
    let mut out = String::from(HEADER);
    line(
        &mut out,
        &[
            f64::from(fleet.replicas),
            f64::from(fleet.max_num_seqs),
            f64::from(fleet.max_num_batched_tokens),
            flag(fleet.chunked_prefill),
            flag(fleet.prefix_caching),
            fleet.frontend_overhead,
        ],
    );
    line(
        &mut out,
        &[
            step.fixed,
            step.per_prefill_token,
            step.per_decode_seq,
            step.per_context_token,
            option(step.compute.as_ref().map(|c| c.fixed)),
            option(step.compute.as_ref().map(|c| c.per_token)),
        ],
    );
    line(
        &mut out,
        &[
            option(fleet.kv_cache.tokens().map(|t| t as f64)),
            option(fleet.max_num_queued_reqs.map(f64::from)),
            option(fleet.max_num_queued_tokens.map(|t| t as f64)),
        ],
    );
    line(
        &mut out,
        &[
            load,
            cv,
            scenario.slo.ttft,
            scenario.slo.tpot,
            scenario.customers as f64,
            scenario.warm_up as f64,
            server.capacity_ratio,
        ],
    );
    for lengths in [&fleet.prompt_tokens, &fleet.output_tokens] {
        let (kind, values): (f64, Vec<f64>) = match lengths {
            LengthDist::Fixed { tokens } => (0.0, vec![f64::from(*tokens)]),
            LengthDist::Uniform { min, max } => (1.0, vec![f64::from(*min), f64::from(*max)]),
            LengthDist::Geometric { mean, max } => (2.0, vec![*mean, option(max.map(f64::from))]),
            LengthDist::Empirical { tokens } => {
                (3.0, tokens.iter().map(|&t| f64::from(t)).collect())
            }
        };
        line(
            &mut out,
            &[[kind, values.len() as f64].as_slice(), &values].concat(),
        );
    }
    let mut runs = vec![server.measured.len() as f64];
    for run in &server.measured {
        runs.push(run.rate);
        for f in [&run.measured, &run.model] {
            runs.extend([f.ttft_p50, option(f.ttft_p99), f.tpot_p50, f.throughput]);
        }
    }
    line(&mut out, &runs);
    line(&mut out, &[f64::from(fleet.shared_prefix_tokens)]);
    line(&mut out, &band_numbers(server.band.as_ref()));
    line(&mut out, &[flag(fleet.prefill_first)]);
    out.push('\n');
    Some(out)
}

fn band_numbers(band: Option<&Band>) -> Vec<f64> {
    let Some(band) = band else {
        return vec![0.0];
    };
    let range = |r: Option<&Range>| r.map_or([f64::NAN; 3], |r| [r.low, r.central, r.high]);
    let mut numbers = vec![1.0];
    numbers.extend(range(Some(&band.capacity)));
    numbers.extend(range(band.knee.as_ref()));
    numbers.push(option(band.highest_measured));
    numbers.push(band.points.len() as f64);
    for p in &band.points {
        numbers.extend([p.rate, p.p50.0, p.p50.1, p.p99.0, p.p99.1]);
    }
    numbers
}

/// The numbers after the header, read in order.
struct Numbers {
    numbers: Vec<f64>,
    at: usize,
}

impl Numbers {
    fn next(&mut self) -> Result<f64, String> {
        let value = self.numbers.get(self.at).copied().ok_or_else(|| {
            format!(
                "ends after {} numbers, before the server is complete",
                self.at
            )
        })?;
        self.at += 1;
        Ok(value)
    }

    /// `None` for `NaN`.
    fn optional(&mut self) -> Result<Option<f64>, String> {
        Ok(Some(self.next()?).filter(|x| !x.is_nan()))
    }

    /// A whole number that fits `T`.
    fn whole<T: TryFrom<u64>>(&mut self) -> Result<T, String> {
        let x = self.next()?;
        let fits = (x >= 0.0 && x.fract() == 0.0)
            .then(|| T::try_from(x as u64).ok())
            .flatten();
        fits.ok_or_else(|| format!("number {}: {x} is not a whole number here", self.at))
    }

    fn optional_whole<T: TryFrom<u64>>(&mut self) -> Result<Option<T>, String> {
        if self.numbers.get(self.at).is_some_and(|x| x.is_nan()) {
            self.at += 1;
            return Ok(None);
        }
        self.whole().map(Some)
    }

    fn range(&mut self) -> Result<Option<Range>, String> {
        let (low, central, high) = (self.optional()?, self.optional()?, self.optional()?);
        Ok(match (low, central, high) {
            (Some(low), Some(central), Some(high)) => Some(Range { low, central, high }),
            _ => None,
        })
    }

    /// A scheduler: 0 for vLLM V1's, 1 for V0's, prompts first ([`LlmFleet::prefill_first`]).
    fn prefill_first(&mut self) -> Result<bool, String> {
        let at = self.at + 1;
        match self.whole::<u8>()? {
            0 => Ok(false),
            1 => Ok(true),
            other => Err(format!(
                "number {at}: {other} is not 0 (V1's scheduler) or 1 (V0's)"
            )),
        }
    }

    /// What [`band_numbers`] wrote.
    fn band(&mut self) -> Result<Option<Band>, String> {
        let at = self.at + 1;
        match self.whole::<u8>()? {
            0 => return Ok(None),
            1 => {}
            other => return Err(format!("number {at}: {other} is not 0 (no band) or 1")),
        }
        let at = self.at;
        let capacity = self
            .range()?
            .ok_or_else(|| format!("number {at}: a band without its capacity"))?;
        let (knee, highest_measured) = (self.range()?, self.optional()?);
        let count: usize = self.whole()?;
        let mut points = Vec::with_capacity(count.min(64));
        for _ in 0..count {
            points.push(BandPoint {
                rate: self.next()?,
                p50: (self.next()?, self.next()?),
                p99: (self.next()?, self.next()?),
            });
        }
        Ok(Some(Band {
            capacity,
            knee,
            highest_measured,
            points,
        }))
    }

    fn lengths(&mut self) -> Result<LengthDist, String> {
        let (kind, count) = (self.next()?, self.whole::<u32>()?);
        let at = self.at;
        let dist = match (kind as u8, count) {
            (0, 1) => LengthDist::Fixed {
                tokens: self.whole()?,
            },
            (1, 2) => LengthDist::Uniform {
                min: self.whole()?,
                max: self.whole()?,
            },
            (2, 2) => LengthDist::Geometric {
                mean: self.next()?,
                max: self.optional_whole()?,
            },
            (3, n) => LengthDist::Empirical {
                tokens: (0..n).map(|_| self.whole()).collect::<Result<_, _>>()?,
            },
            _ => {
                return Err(format!(
                    "number {at}: no length distribution is {kind} with {count} values"
                ))
            }
        };
        Ok(dist)
    }
}

/// Reads what [`encode`] wrote; the scenario is validated as any scenario file is. An error is one line.
pub fn decode(text: &str) -> Result<YourServer, String> {
    let body = text
        .strip_prefix(HEADER)
        .ok_or_else(|| format!("not a calibrated server (it does not start \"{HEADER}\")"))?;
    let numbers = body
        .split_whitespace()
        .enumerate()
        .map(|(at, word)| {
            word.parse()
                .map_err(|_| format!("number {}: {word:?} is not a number", at + 1))
        })
        .collect::<Result<Vec<f64>, String>>()?;
    let mut n = Numbers { numbers, at: 0 };
    let (replicas, max_num_seqs, max_num_batched_tokens) = (n.whole()?, n.whole()?, n.whole()?);
    let (chunked_prefill, prefix_caching) = (n.next()? == 1.0, n.next()? == 1.0);
    let frontend_overhead = n.next()?;
    let (fixed, per_prefill_token, per_decode_seq, per_context_token) =
        (n.next()?, n.next()?, n.next()?, n.next()?);
    let compute = match (n.optional()?, n.optional()?) {
        (Some(fixed), Some(per_token)) => Some(ComputeTime { fixed, per_token }),
        _ => None,
    };
    let kv_cache = n
        .optional_whole()?
        .map_or(KvCache::Unlimited, KvCache::Tokens);
    let (max_num_queued_reqs, max_num_queued_tokens) = (n.optional_whole()?, n.optional_whole()?);
    let (offered_load, cv, ttft, tpot) = (n.next()?, n.next()?, n.next()?, n.next()?);
    let (customers, warm_up) = (n.whole()?, n.whole()?);
    let capacity_ratio = n.next()?;
    let (prompt_tokens, output_tokens) = (n.lengths()?, n.lengths()?);
    let runs: usize = n.whole()?;
    let mut measured = Vec::with_capacity(runs.min(64));
    for _ in 0..runs {
        let rate = n.next()?;
        let mut figures = || -> Result<BenchFigures, String> {
            Ok(BenchFigures {
                ttft_p50: n.next()?,
                ttft_p99: n.optional()?,
                tpot_p50: n.next()?,
                throughput: n.next()?,
            })
        };
        let (measured_figures, model) = (figures()?, figures()?);
        measured.push(MeasuredRun {
            rate,
            measured: measured_figures,
            model,
        });
    }
    // Added after the first servers were kept: a server kept before has no shared prefix.
    let shared_prefix_tokens = if n.at < n.numbers.len() {
        n.whole()?
    } else {
        0
    };
    // Added later still: a server kept before has no band.
    let band = if n.at < n.numbers.len() {
        n.band()?
    } else {
        None
    };
    // And later again: a server kept before ran vLLM V1's scheduler.
    let prefill_first = n.at < n.numbers.len() && n.prefill_first()?;
    if n.at < n.numbers.len() {
        return Err(format!(
            "number {}: more numbers than a server holds",
            n.at + 1
        ));
    }
    let scenario = Scenario {
        service: ServiceKind::Llm(LlmFleet {
            replicas,
            max_num_seqs,
            max_num_batched_tokens,
            chunked_prefill,
            prefill_first,
            iteration: IterationModel {
                fixed,
                per_prefill_token,
                per_decode_seq,
                per_context_token,
                compute,
            },
            prompt_tokens,
            output_tokens,
            kv_cache,
            prefix_caching,
            frontend_overhead,
            max_num_queued_reqs,
            max_num_queued_tokens,
            shared_prefix_tokens,
        }),
        arrivals: Arrivals::Open { offered_load, cv },
        slo: Slo { ttft, tpot },
        customers,
        warm_up,
    };
    scenario.validate().map_err(|e| e.to_string())?;
    Ok(YourServer {
        scenario,
        measured,
        capacity_ratio,
        band,
    })
}
