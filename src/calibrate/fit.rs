//! The least-squares fit of the step-time coefficients. Each observation (a request's TTFT or TPOT, a run's or a
//! window's mean) is linear in the coefficients once it is known whether the prefill step it contains is bound by
//! memory or by compute (the model's step is the larger of the two), so the fit alternates: solve by SVD (nalgebra),
//! pick each prefill's larger branch with the new coefficients, solve again, until no branch changes. A
//! coefficient the data cannot tell apart from another (a near-zero singular value) or that comes out below 0 is
//! set to 0 and named, rather than guessed.
//!
//! With an [`Anchor`] (the step time physics gives for the model on its GPUs, see `super::prior`) the fit adjusts
//! it rather than replacing it: each coefficient is also observed once at the anchor's value, with the anchor's
//! spread, so what the inputs measure moves it and what they cannot tell (the compute cost with one prompt
//! length, the growth of a decode step to a full batch) stays at physics. Each coefficient then says how much of
//! it came from the inputs ([`Fitted::from_inputs`]).

use nalgebra::{DMatrix, DVector};

/// The coefficients fitted, in the order of a row's columns.
pub const COEFFICIENTS: [&str; 4] = [
    "iteration.fixed",
    "iteration.per_context_token",
    "iteration.compute.per_token",
    "frontend_overhead",
];

/// Index of the step's fixed cost (memory-bound: weights read once a step).
pub const FIXED: usize = 0;
/// Index of the cost per context token of the decoding sequences (their KV cache read).
pub const PER_CONTEXT_TOKEN: usize = 1;
/// Index of the compute cost per token processed (prefill tokens and decoding sequences).
pub const PER_TOKEN: usize = 2;
/// Index of the front end's time before the scheduler sees a request.
pub const FRONTEND: usize = 3;

/// Which latency an observation measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Figure {
    /// Time to first token.
    Ttft,
    /// Time per output token.
    Tpot,
    /// Prefill time (first token − scheduled), as vLLM's histogram has it.
    Prefill,
}

impl Figure {
    /// The figure's name in the report.
    pub fn name(self) -> &'static str {
        match self {
            Figure::Ttft => "TTFT",
            Figure::Tpot => "TPOT",
            Figure::Prefill => "prefill time",
        }
    }
}

/// One observation: `y ≈ base·θ + max(memory·θ, compute·θ)` (the last two zero for a figure with no prefill).
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Index of the input file.
    pub source: usize,
    /// What it measures.
    pub figure: Figure,
    /// The measured value, seconds.
    pub y: f64,
    /// The part linear in every regime.
    pub base: [f64; 4],
    /// The prefill step(s) when bound by memory.
    pub memory: [f64; 4],
    /// The prefill step(s) when bound by compute.
    pub compute: [f64; 4],
}

fn dot(a: &[f64; 4], b: &[f64; 4]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

impl Row {
    /// The value the coefficients give.
    pub fn value(&self, theta: &[f64; 4]) -> f64 {
        dot(&self.base, theta) + dot(&self.memory, theta).max(dot(&self.compute, theta))
    }

    fn design(&self, memory_bound: bool) -> [f64; 4] {
        let branch = if memory_bound {
            &self.memory
        } else {
            &self.compute
        };
        std::array::from_fn(|k| self.base[k] + branch[k])
    }
}

/// Longest latency a row may hold, seconds: a day. A TTFT or TPOT beyond it is a broken file, not a slow server.
pub const MAX_LATENCY_SECONDS: f64 = 86_400.0;
/// Largest load term a row may hold (tokens or sequences of a batch: 65 536 sequences of 10 M tokens are 6.6e11).
pub const MAX_LOAD_TERM: f64 = 1e12;

impl Row {
    /// Why the row cannot enter the fit, if it cannot: a latency that is not a finite time of at most
    /// [`MAX_LATENCY_SECONDS`], or a load term (from the file's throughput, lengths or times) that is not finite or
    /// is beyond any server ([`MAX_LOAD_TERM`]). The SVD must never see such a row: a NaN panics inside it, an
    /// infinity can keep it from converging.
    pub fn problem(&self) -> Option<String> {
        let name = self.figure.name();
        if !(self.y.is_finite() && self.y > 0.0 && self.y <= MAX_LATENCY_SECONDS) {
            return Some(format!(
                "a {name} of {:e} s, outside 0 to {MAX_LATENCY_SECONDS} s",
                self.y
            ));
        }
        let terms = self.base.iter().chain(&self.memory).chain(&self.compute);
        if terms
            .clone()
            .any(|x| !(x.is_finite() && x.abs() <= MAX_LOAD_TERM))
        {
            return Some(format!(
                "a {name} whose load (its throughput, lengths or the times around it) comes to more than any \
                 server carries"
            ));
        }
        None
    }
}

/// A coefficient and how well the data determine it.
#[derive(Clone, Debug, PartialEq)]
pub struct Fitted {
    /// Its value, seconds (per unit).
    pub value: f64,
    /// Its standard error ÷ its value, when fitted; `None` when the data could not determine it.
    pub relative_error: Option<f64>,
    /// Why it is not fitted, when it is not.
    pub not_determined: Option<String>,
    /// The anchor's value, when the fit had one.
    pub anchor: Option<f64>,
    /// How much of what is known of it the inputs gave, from 0 (the anchor alone) to 1 (the inputs alone): one
    /// less the ratio of its variance after the fit to the anchor's. `None` without an anchor.
    pub from_inputs: Option<f64>,
}

impl Fitted {
    /// Whether the inputs, more than the anchor, set it.
    pub fn measured(&self) -> bool {
        self.from_inputs.is_none_or(|share| share >= 0.5)
    }
}

/// What the fit starts from: each coefficient's value before any measurement, and how far off it may be (a
/// relative standard deviation: 0.3 is ±30%).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Anchor {
    /// The values, in [`COEFFICIENTS`]' order.
    pub value: [f64; 4],
    /// Their relative spreads.
    pub spread: [f64; 4],
}

/// The relative misfit an input's figure is expected to keep (the step-time model is not exact): an anchor's
/// one-spread deviation costs the fit as much as this misfit of one input's figure.
const FIGURE_MISFIT: f64 = 0.1;

impl Anchor {
    /// The weight of coefficient `k`'s observation at the anchor (0 when it has none: a value or spread of 0).
    fn weight(&self, k: usize) -> f64 {
        let sd = self.value[k] * self.spread[k];
        if sd.is_finite() && sd > 0.0 {
            FIGURE_MISFIT / sd
        } else {
            0.0
        }
    }
}

/// The fit's outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct Fit {
    /// The coefficients, in [`COEFFICIENTS`]' order.
    pub coefficients: [Fitted; 4],
    /// Rows used.
    pub rows: usize,
}

impl Fit {
    /// The coefficients' values.
    pub fn theta(&self) -> [f64; 4] {
        std::array::from_fn(|k| self.coefficients[k].value)
    }
}

/// Below this ratio of the smallest to the largest singular value (columns scaled to unit length), two coefficients
/// move the observations the same way and the data cannot tell them apart.
const INDISTINCT: f64 = 1e-3;

/// Which coefficient gives way first when the data cannot determine them all: the front end's constant, then the
/// context cost, then the compute cost; the fixed step cost last.
const GIVE_WAY: [usize; 4] = [FRONTEND, PER_CONTEXT_TOKEN, PER_TOKEN, FIXED];

/// Most iterations of the SVD's QR sweeps (nalgebra's default, 0, is unbounded).
const SVD_ITERATIONS: usize = 10_000;

/// The weighted least-squares system of `rows` over `columns`, each prefill on the branch `memory_bound` says, and
/// below it one row per column observing it at the anchor's value.
fn system(
    rows: &[Row],
    weight: &[f64],
    memory_bound: &[bool],
    columns: &[usize],
    anchor: Option<&Anchor>,
) -> (DMatrix<f64>, DVector<f64>) {
    let extra = if anchor.is_some() { columns.len() } else { 0 };
    let mut a = DMatrix::zeros(rows.len() + extra, columns.len());
    let mut b = DVector::zeros(rows.len() + extra);
    for (i, row) in rows.iter().enumerate() {
        let design = row.design(memory_bound[i]);
        for (c, &k) in columns.iter().enumerate() {
            a[(i, c)] = design[k] * weight[i];
        }
        b[i] = row.y * weight[i];
    }
    if let Some(anchor) = anchor {
        for (c, &k) in columns.iter().enumerate() {
            let w = anchor.weight(k);
            a[(rows.len() + c, c)] = w;
            b[rows.len() + c] = anchor.value[k] * w;
        }
    }
    (a, b)
}

/// Fits the rows; `None` when no coefficient can be determined (no rows, or a row [`Row::problem`] refuses).
pub fn fit(rows: &[Row]) -> Option<Fit> {
    fit_around(rows, None)
}

/// [`fit`], around `anchor` when given.
pub fn fit_around(rows: &[Row], anchor: Option<&Anchor>) -> Option<Fit> {
    if rows.is_empty() || rows.iter().any(|r| r.problem().is_some()) {
        return None;
    }
    let weight = weights(rows);
    let mut shares = [None; 4];
    let mut active = [true; 4];
    let mut why: [Option<String>; 4] = Default::default();
    // Start compute-bound: a prefill of any length is compute-bound on a GPU, short ones aside.
    let mut memory_bound = vec![false; rows.len()];
    let mut theta = [0.0; 4];
    let mut errors = [None; 4];
    for _ in 0..40 {
        let columns: Vec<usize> = (0..4).filter(|&k| active[k]).collect();
        if columns.is_empty() {
            return None;
        }
        let (a, b) = system(rows, &weight, &memory_bound, &columns, anchor);
        let norms: Vec<f64> = (0..columns.len()).map(|c| a.column(c).norm()).collect();
        // A coefficient no row depends on is not determined at all.
        if let Some(c) = norms.iter().position(|&n| n == 0.0) {
            active[columns[c]] = false;
            why[columns[c]] = Some("no input depends on it".to_owned());
            continue;
        }
        let scaled = DMatrix::from_fn(a.nrows(), a.ncols(), |i, c| a[(i, c)] / norms[c]);
        // A NaN would panic inside the SVD's sort ("Singular value was NaN"): never hand it one.
        if scaled.iter().chain(b.iter()).any(|x| !x.is_finite()) {
            return None;
        }
        // Bounded: a matrix that does not converge (never one of checked rows) ends the fit instead of looping.
        let svd = scaled
            .clone()
            .try_svd(true, true, f64::EPSILON, SVD_ITERATIONS)?;
        let singular = &svd.singular_values;
        let (smallest, largest) = (singular.min(), singular.max());
        if columns.len() > a.nrows() || smallest < INDISTINCT * largest {
            // The right singular vector of the smallest value says which coefficients move together.
            let v_t = svd.v_t.as_ref().expect("asked for V");
            let weakest = (0..singular.len())
                .min_by(|&i, &j| singular[i].total_cmp(&singular[j]))
                .unwrap_or(0);
            let involved: Vec<usize> = (0..columns.len())
                .filter(|&c| columns.len() > a.nrows() || v_t[(weakest, c)].abs() > 0.3)
                .map(|c| columns[c])
                .collect();
            let drop = GIVE_WAY
                .iter()
                .copied()
                .find(|k| involved.contains(k))
                .unwrap_or(columns[columns.len() - 1]);
            let partners: Vec<&str> = involved
                .iter()
                .filter(|&&k| k != drop)
                .map(|&k| COEFFICIENTS[k])
                .collect();
            active[drop] = false;
            why[drop] = Some(if partners.is_empty() {
                "the inputs do not determine it".to_owned()
            } else {
                format!(
                    "the inputs cannot tell it apart from {}",
                    partners.join(" and ")
                )
            });
            continue;
        }
        let solution = svd.solve(&b, 0.0);
        let Ok(solution) =
            solution.map(|s| DVector::from_fn(columns.len(), |c, _| s[c] / norms[c]))
        else {
            return None;
        };
        // A coefficient below 0 has no meaning here: the inputs show no such cost. But with no more figures than
        // coefficients nothing is left over to judge by: the solution merely passes through every figure, and a
        // sign says only that two coefficients trade places, so the first of them to give way does.
        if let Some(c) = (0..columns.len())
            .filter(|&c| solution[c] < 0.0)
            .min_by(|&i, &j| solution[i].total_cmp(&solution[j]))
        {
            let exact = a.nrows() <= columns.len();
            let drop = if exact {
                GIVE_WAY
                    .iter()
                    .copied()
                    .find(|k| columns.contains(k))
                    .unwrap_or(columns[c])
            } else {
                columns[c]
            };
            active[drop] = false;
            why[drop] = Some(if exact && drop != columns[c] {
                format!(
                    "the inputs cannot tell it apart from {}: with as many coefficients as figures, the fit put \
                     that one below 0",
                    COEFFICIENTS[columns[c]]
                )
            } else {
                format!(
                    "fitted below 0 ({:.3e}): the inputs show no such cost",
                    solution[c]
                )
            });
            continue;
        }
        theta = [0.0; 4];
        for (c, &k) in columns.iter().enumerate() {
            theta[k] = solution[c];
        }
        // Standard errors: the residual variance times the diagonal of (AᵀA)⁻¹ = V Σ⁻² Vᵀ (scaled back).
        let residual = &b - &a * &solution;
        let dof = a.nrows().saturating_sub(columns.len()).max(1) as f64;
        let variance = residual.norm_squared() / dof;
        let v_t = svd.v_t.as_ref().expect("asked for V");
        errors = [None; 4];
        shares = [None; 4];
        for (c, &k) in columns.iter().enumerate() {
            let diagonal: f64 = (0..singular.len())
                .map(|s| (v_t[(s, c)] / singular[s]).powi(2))
                .sum();
            let se = (variance * diagonal).sqrt() / norms[c];
            // With no more figures than coefficients there is no residual to estimate an error from.
            errors[k] = (theta[k] > 0.0 && a.nrows() > columns.len()).then(|| se / theta[k]);
            // The anchor alone would leave a variance of 1 / weight²; the inputs shrink it.
            shares[k] = anchor.map(|anchor| {
                let w = anchor.weight(k);
                (1.0 - diagonal / (norms[c] * norms[c]) * w * w).clamp(0.0, 1.0)
            });
        }
        let next: Vec<bool> = rows
            .iter()
            .map(|r| dot(&r.memory, &theta) >= dot(&r.compute, &theta))
            .collect();
        if next == memory_bound {
            break;
        }
        memory_bound = next;
    }
    let coefficients = std::array::from_fn(|k| Fitted {
        value: theta[k],
        relative_error: if active[k] { errors[k] } else { None },
        not_determined: why[k].clone(),
        anchor: anchor.map(|anchor| anchor.value[k]),
        from_inputs: if active[k] { shares[k] } else { None },
    });
    Some(Fit {
        coefficients,
        rows: rows.len(),
    })
}

/// Each row's weight: relative errors, each input's figure weighing the same however many requests it has.
fn weights(rows: &[Row]) -> Vec<f64> {
    let mut group_sizes = std::collections::HashMap::new();
    for r in rows {
        *group_sizes.entry((r.source, r.figure)).or_insert(0usize) += 1;
    }
    rows.iter()
        .map(|r| 1.0 / (r.y.abs().max(1e-6) * (group_sizes[&(r.source, r.figure)] as f64).sqrt()))
        .collect()
}

/// The fitted coefficients' covariance, seconds² (0 in the rows and columns of a coefficient not fitted): the
/// residual variance times `(AᵀA)⁻¹` of the weighted design at the fit's solution, each prefill on the branch the
/// fit settled on. `None` with no more rows than fitted coefficients (no residual to estimate it from) or a design
/// that cannot be inverted. With an anchor, its observations count as rows.
pub fn covariance(rows: &[Row], fit: &Fit, anchor: Option<&Anchor>) -> Option<[[f64; 4]; 4]> {
    let theta = fit.theta();
    let columns: Vec<usize> = (0..4)
        .filter(|&k| fit.coefficients[k].not_determined.is_none() && theta[k] > 0.0)
        .collect();
    let weight = weights(rows);
    let memory_bound: Vec<bool> = rows
        .iter()
        .map(|r| dot(&r.memory, &theta) >= dot(&r.compute, &theta))
        .collect();
    let (a, b) = system(rows, &weight, &memory_bound, &columns, anchor);
    if columns.is_empty() || a.nrows() <= columns.len() {
        return None;
    }
    let solution = DVector::from_fn(columns.len(), |c, _| theta[columns[c]]);
    let residual = &b - &a * &solution;
    let mut variance = residual.norm_squared() / (a.nrows() - columns.len()) as f64;
    if anchor.is_some() {
        // The anchor's spreads are stated against this misfit: a closer fit of a few inputs does not make the
        // coefficients the inputs cannot tell any surer than physics is.
        variance = variance.max(FIGURE_MISFIT * FIGURE_MISFIT);
    }
    // Columns scaled to unit length before inverting, for the conditioning.
    let norms: Vec<f64> = (0..columns.len()).map(|c| a.column(c).norm()).collect();
    if norms.iter().any(|n| !(n.is_finite() && *n > 0.0)) {
        return None;
    }
    let scaled = DMatrix::from_fn(a.nrows(), a.ncols(), |i, c| a[(i, c)] / norms[c]);
    let inverse = (scaled.transpose() * &scaled).try_inverse()?;
    let mut out = [[0.0; 4]; 4];
    for (i, &ki) in columns.iter().enumerate() {
        for (j, &kj) in columns.iter().enumerate() {
            out[ki][kj] = variance * inverse[(i, j)] / (norms[i] * norms[j]);
        }
    }
    out.iter().flatten().all(|v| v.is_finite()).then_some(out)
}
