//! One reading of a vLLM `/metrics` scrape, or of the window between two: each label set's signals, its knee verdict
//! and a Little's Law replica suggestion. `goodput-sim metrics` prints it ([`super::report`]) and the page's metrics
//! reader renders it, so the two read a page the same way and say the same.
//!
//! Reading a page ([`Scrape::read`]) is apart from reading the window ([`read`]): the page parses a box once when
//! its text changes, and only the window is read again when the seconds between the scrapes change.
//!
//! ```
//! use goodput::cluster::reading::{read, Scrape};
//! use goodput::cluster::vllm::SloTargets;
//! let page = Scrape::read("vllm:num_requests_running 3\nvllm:num_requests_waiting 0\n").unwrap();
//! let slo = SloTargets { ttft_p99: 0.5, tpot_p95: 0.04 };
//! let reading = read(&page, None, None, &slo);
//! assert_eq!(reading.servers[0].signals.waiting, Some(0.0));
//! assert!(reading.summary().starts_with("Read 1 label set: "));
//! ```

use super::metrics::{parse, Exposition};
use super::sizing::{suggest_from_scrape, ScrapeSuggestion};
use super::vllm::{assess, find_signals, Assessment, KneeVerdict, ServerSignals, SloTargets, Span};
use super::window::between;

/// The headroom of the replica suggestion: the lesson's 80%.
pub const SUGGESTION_HEADROOM: f64 = 0.8;
/// How much of an offending line a refused page quotes.
pub const QUOTED_LINE_CHARS: usize = 160;

/// A page that parsed and carries vLLM signals.
#[derive(Clone, Debug, PartialEq)]
pub struct Scrape {
    page: Exposition,
    signals: Vec<ServerSignals>,
}

/// Why a page cannot be read.
#[derive(Clone, Debug, PartialEq)]
pub enum PageProblem {
    /// The parser refused it: its message, and the offending line (its number, and its first
    /// [`QUOTED_LINE_CHARS`] characters) when there is one.
    Refused {
        message: String,
        line: Option<(usize, String)>,
    },
    /// It parsed, but carries none of the signals.
    NotVllm,
}

impl PageProblem {
    /// The problem as a sentence about the page called `name`, e.g. "before.prom has no vLLM metrics: …".
    pub fn about(&self, name: &str) -> String {
        match self {
            Self::Refused { message, .. } => format!("{name}: {message}"),
            Self::NotVllm => format!(
                "{name} has no vLLM metrics: no vllm:num_requests_running or _waiting gauge, no TTFT, TPOT or ITL \
                 histogram"
            ),
        }
    }
}

impl Scrape {
    /// Parses `text` and finds its signals, or says why it cannot be read.
    pub fn read(text: &str) -> Result<Scrape, PageProblem> {
        let page = parse(text).map_err(|error| PageProblem::Refused {
            line: error.line().map(|number| {
                let quoted = text
                    .split('\n')
                    .nth(number.saturating_sub(1))
                    .unwrap_or_default()
                    .chars()
                    .take(QUOTED_LINE_CHARS)
                    .collect();
                (number, quoted)
            }),
            message: error.to_string(),
        })?;
        let signals = find_signals(&page);
        if signals.is_empty() {
            return Err(PageProblem::NotVllm);
        }
        Ok(Scrape { page, signals })
    }

    /// The parsed page.
    pub fn page(&self) -> &Exposition {
        &self.page
    }
}

/// One label set's reading.
#[derive(Clone, Debug, PartialEq)]
pub struct ServerReading {
    /// Its signals over the reading's span.
    pub signals: ServerSignals,
    /// Its knee verdict against the SLOs, with the reasons.
    pub assessment: Assessment,
    /// Replicas by Little's Law at [`SUGGESTION_HEADROOM`], when the page has both the running and waiting gauges.
    pub suggestion: Option<ScrapeSuggestion>,
}

/// A reading of one scrape (since the server started) or of the window between two.
#[derive(Clone, Debug, PartialEq)]
pub struct Reading {
    /// One entry per label set, in the (later) page's order.
    pub servers: Vec<ServerReading>,
    /// With two scrapes: the label sets only the earlier one has.
    pub gone: Vec<Vec<(String, String)>>,
}

/// Reads `first` alone, or the window from `first` to `later`, `seconds` apart when known.
pub fn read(
    first: &Scrape,
    later: Option<&Scrape>,
    seconds: Option<f64>,
    slo: &SloTargets,
) -> Reading {
    let (servers, gone) = match later {
        None => (first.signals.clone(), Vec::new()),
        Some(later) => {
            let window = between(&first.page, &later.page, seconds);
            (window.servers, window.gone)
        }
    };
    let servers = servers
        .into_iter()
        .map(|signals| ServerReading {
            assessment: assess(&signals, slo),
            suggestion: signals
                .running
                .zip(signals.waiting)
                .and_then(|(running, waiting)| {
                    suggest_from_scrape(running, waiting, SUGGESTION_HEADROOM)
                }),
            signals,
        })
        .collect();
    Reading { servers, gone }
}

impl Reading {
    /// "Read 3 label sets: 1 past the knee, 2 below the knee." — the verdict itself for a single set; "… over the
    /// window between the two scrapes" for two.
    pub fn summary(&self) -> String {
        let worst_first = [
            KneeVerdict::PastTheKnee,
            KneeVerdict::AtTheKnee,
            KneeVerdict::BelowTheKnee,
            KneeVerdict::NotEnoughData,
        ];
        let servers = &self.servers;
        let parts: Vec<String> = worst_first
            .iter()
            .filter_map(|verdict| {
                let count = servers
                    .iter()
                    .filter(|s| s.assessment.verdict == *verdict)
                    .count();
                match (count, servers.len()) {
                    (0, _) => None,
                    (_, 1) => Some(verdict.describe().to_owned()),
                    (count, _) => Some(format!("{count} {}", verdict.describe())),
                }
            })
            .collect();
        let sets = if servers.len() == 1 {
            "label set"
        } else {
            "label sets"
        };
        let window = servers
            .iter()
            .any(|s| !matches!(s.signals.span, Span::SinceStart));
        let over = if window {
            " over the window between the two scrapes"
        } else {
            ""
        };
        format!("Read {} {sets}{over}: {}.", servers.len(), parts.join(", "))
    }

    /// The label sets only the earlier scrape has, each as its labels read (`engine="1", model_name="m"`).
    pub fn gone_labels(&self) -> Vec<String> {
        self.gone
            .iter()
            .map(|labels| {
                ServerSignals {
                    labels: labels.clone(),
                    ..ServerSignals::default()
                }
                .describe_labels()
            })
            .collect()
    }
}

/// The seconds typed between two scrapes: `Ok(None)` when nothing is typed, an error unless a positive number.
pub fn typed_seconds(text: &str) -> Result<Option<f64>, &'static str> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    match text.parse::<f64>() {
        Ok(seconds) if seconds.is_finite() && seconds > 0.0 => Ok(Some(seconds)),
        _ => Err("Not a positive number of seconds: the window's length stays unknown."),
    }
}
