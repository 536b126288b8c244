//! The parsed inputs gathered for the fit: each one's rows (linear in the step-time coefficients), its summary for
//! the report, the request lengths it lists, and the arrivals' burstiness. Two `/metrics` scrapes in a row make a
//! window; a scrape left without a later one is refused, since it counts since the server started.

use super::fit::Row;
use super::inputs::{self, Life, Parsed};
use super::observations::{self, Shape};
use super::{scrapes, CalibrateError, InputSummary};
use crate::model::scenario::{Arrivals, LengthDist, MAX_EMPIRICAL_LENGTHS};

/// What the inputs give the fit and the report.
pub(super) struct Gathered {
    /// The fit's rows, each naming its input by index into `summaries`.
    pub rows: Vec<Row>,
    /// One per input (one per window for scrapes), residuals filled by [`Gathered::add_residuals`].
    pub summaries: Vec<InputSummary>,
    /// The parsed input whose experiment each summary repeats in the check (none for a window between scrapes).
    pub experiments: Vec<Option<usize>>,
    /// The arrivals' coefficient of variation, from the first result that gives a burstiness.
    pub cv: Option<f64>,
    prompts: Vec<u32>,
    outputs: Vec<u32>,
    /// Request-weighted sums of the mean prompt and output lengths, and the weight.
    mean_prompt: f64,
    mean_output: f64,
    weight: f64,
}

/// Gathers every parsed input in order.
pub(super) fn gather(
    parsed: &[inputs::Input],
    shape: &Shape,
    window_seconds: Option<f64>,
) -> Result<Gathered, CalibrateError> {
    let mut g = Gathered {
        rows: Vec::new(),
        summaries: Vec::new(),
        experiments: Vec::new(),
        cv: None,
        prompts: Vec::new(),
        outputs: Vec::new(),
        mean_prompt: 0.0,
        mean_output: 0.0,
        weight: 0.0,
    };
    let mut pending_page: Option<(&str, &crate::cluster::metrics::Exposition)> = None;
    let mut windows = 0;
    for (index, input) in parsed.iter().enumerate() {
        let name = input.name.as_str();
        match &input.parsed {
            Parsed::Bench(bench) => g.bench(index, name, bench, shape)?,
            Parsed::Trace(lives) => g.trace(index, name, lives, shape),
            Parsed::Metrics(page) => match pending_page.take() {
                None => pending_page = Some((name, page)),
                Some((earlier_name, earlier)) => {
                    let name = format!("{earlier_name} → {name}");
                    let window = scrapes::window(&name, earlier, page, window_seconds)
                        .map_err(|e| CalibrateError::read(&name, e))?;
                    g.window(name, &window, shape);
                    windows += 1;
                    // The later page may start the next window.
                    pending_page = Some((input.name.as_str(), page));
                }
            },
        }
    }
    match pending_page {
        Some((name, _)) if windows == 0 => Err(CalibrateError::Input {
            name: name.to_owned(),
            problem: "one /metrics scrape counts since the server started; give a second, later scrape of the same \
                      server"
                .to_owned(),
        }),
        _ => Ok(g),
    }
}

/// Leaves out the inference-perf summaries when any other result is given with them: a summary mixes every stage of
/// its run, which the stage files give one rate at a time. The report's line for each one left out.
pub(super) fn leave_out_whole_runs(parsed: &mut Vec<inputs::Input>) -> Vec<String> {
    let by_rate = parsed
        .iter()
        .any(|input| !input.whole_run && matches!(input.parsed, Parsed::Bench(_)));
    if !by_rate {
        return Vec::new();
    }
    let notes = parsed
        .iter()
        .filter(|input| input.whole_run)
        .map(|input| {
            format!(
                "{} left out: an inference-perf summary mixes every stage of its run, and the results given with \
                 it show one rate each",
                input.name
            )
        })
        .collect();
    parsed.retain(|input| !input.whole_run);
    notes
}

impl Gathered {
    fn bench(
        &mut self,
        index: usize,
        name: &str,
        bench: &inputs::BenchResult,
        shape: &Shape,
    ) -> Result<(), CalibrateError> {
        let source = self.summaries.len();
        let before = self.rows.len();
        self.rows
            .extend(observations::bench_rows(source, bench, shape));
        if self.rows.len() == before {
            return Err(CalibrateError::Input {
                name: name.to_owned(),
                problem: "shows no TTFT or TPOT to fit".to_owned(),
            });
        }
        self.experiments.push(Some(index));
        if let Some(lives) = &bench.lives {
            self.collect_lengths(lives);
        }
        let n = bench.completed as f64;
        self.mean_prompt += bench.mean_prompt * n;
        self.mean_output += bench.mean_output * n;
        self.weight += n;
        self.cv = self
            .cv
            .or(bench.burstiness.map(Arrivals::cv_from_burstiness));
        self.summaries.push(InputSummary {
            name: name.to_owned(),
            kind: bench_kind(bench),
            requests: bench.completed,
            // A closed loop's arrivals keep pace with its completions.
            rate: bench
                .request_rate
                .or(bench.closed_loop_users().map(|_| bench.request_throughput)),
            residuals: Vec::new(),
            check: None,
        });
        Ok(())
    }

    fn trace(&mut self, index: usize, name: &str, lives: &[Life], shape: &Shape) {
        let source = self.summaries.len();
        self.experiments.push(Some(index));
        self.collect_lengths(lives);
        let before = self.rows.len();
        self.rows
            .extend(observations::trace_rows(source, lives, shape));
        let timed = self.rows.len() > before;
        let span = lives.last().and_then(|l| l.arrival).unwrap_or(0.0);
        self.summaries.push(InputSummary {
            name: name.to_owned(),
            kind: if timed {
                "request trace with token times".to_owned()
            } else {
                "request trace, lengths only".to_owned()
            },
            requests: lives.len() as u64,
            rate: (span > 0.0).then(|| (lives.len() - 1) as f64 / span),
            residuals: Vec::new(),
            check: None,
        });
    }

    fn window(&mut self, name: String, w: &scrapes::ScrapeWindow, shape: &Shape) {
        let source = self.summaries.len();
        self.experiments.push(None);
        self.rows
            .extend(observations::window_rows(source, &w.means, shape));
        if let Some(p) = &w.prompt_lengths {
            self.prompts.extend(p);
        }
        if let Some(o) = &w.output_lengths {
            self.outputs.extend(o);
        }
        self.mean_prompt += w.means.prompt * w.means.requests;
        self.mean_output += w.means.output * w.means.requests;
        self.weight += w.means.requests;
        self.summaries.push(InputSummary {
            name,
            kind: format!("two /metrics scrapes (window length {})", w.seconds_from),
            requests: w.means.requests.round() as u64,
            rate: (w.means.rate > 0.0).then_some(w.means.rate),
            residuals: Vec::new(),
            check: None,
        });
    }

    fn collect_lengths(&mut self, lives: &[Life]) {
        self.prompts.extend(lives.iter().map(|l| l.prompt));
        self.outputs.extend(lives.iter().map(|l| l.output));
    }

    /// Each input's figures, measured and fitted with `theta`, averaged over its rows.
    pub fn add_residuals(&mut self, theta: &[f64; 4]) {
        for (index, summary) in self.summaries.iter_mut().enumerate() {
            let mut by_figure: Vec<(super::Figure, f64, f64, f64)> = Vec::new();
            for row in self.rows.iter().filter(|r| r.source == index) {
                match by_figure.iter_mut().find(|e| e.0 == row.figure) {
                    Some(e) => {
                        e.1 += row.y;
                        e.2 += row.value(theta);
                        e.3 += 1.0;
                    }
                    None => by_figure.push((row.figure, row.y, row.value(theta), 1.0)),
                }
            }
            summary.residuals = by_figure
                .into_iter()
                .map(|(figure, y, fitted, n)| (figure, y / n, fitted / n))
                .collect();
        }
    }

    /// The prompt and output lengths: the inputs' own per-request lengths when they list any, else fixed at their
    /// means; and where they came from, in words.
    pub fn lengths(&mut self) -> (LengthDist, LengthDist, String) {
        if !self.prompts.is_empty() {
            return (
                empirical(std::mem::take(&mut self.prompts)),
                empirical(std::mem::take(&mut self.outputs)),
                "empirical: the inputs' own per-request lengths".to_owned(),
            );
        }
        let weight = self.weight.max(1.0);
        let fixed = |mean: f64| LengthDist::Fixed {
            tokens: (mean / weight).round().max(1.0) as u32,
        };
        (
            fixed(self.mean_prompt),
            fixed(self.mean_output),
            "fixed at the inputs' means: they list no per-request lengths".to_owned(),
        )
    }
}

/// A result as the report describes it: its source, what it keeps, how it was run, and what had to be derived.
fn bench_kind(bench: &inputs::BenchResult) -> String {
    let mut kind = bench.kind.clone();
    kind.push_str(match (&bench.lives, bench.is_timed()) {
        (_, true) => ", per request with send times",
        (Some(_), false) => ", per request",
        (None, _) => ", summary",
    });
    if let Some(users) = bench.closed_loop_users() {
        kind.push_str(&format!(
            ", closed loop of {users} (each request sent as one ends)"
        ));
    }
    for derived in &bench.derived {
        kind.push_str("; ");
        kind.push_str(derived);
    }
    kind
}

/// An empirical distribution of at most [`MAX_EMPIRICAL_LENGTHS`] lengths (every k-th when there are more).
fn empirical(mut tokens: Vec<u32>) -> LengthDist {
    if tokens.len() > MAX_EMPIRICAL_LENGTHS {
        let step = tokens.len().div_ceil(MAX_EMPIRICAL_LENGTHS);
        tokens = tokens.into_iter().step_by(step).collect();
    }
    LengthDist::Empirical { tokens }
}
