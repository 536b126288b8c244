//! The page's metrics reader as HTML: what it shows for the two boxes' pages — the error of a page it cannot read,
//! the status line, and a report per label set (verdict, percentile estimates against the SLOs, gauges, reasons,
//! the replica suggestion). The reading itself is [`super::reading`]'s, the one `goodput-sim metrics` prints.
//!
//! It runs in the page's `server-worker` (`src/bin/server-worker/`), not in the page's own wasm: parsing and reading
//! a scrape is code only a learner with a `/metrics` page needs, so a first visit does not download it. Pure, and
//! tested natively (`tests/cluster_reading.rs`).

use super::reading::{read, PageProblem, Reading, Scrape, ServerReading, SUGGESTION_HEADROOM};
use super::report::refusals_text;
use super::sizing::ScrapeSuggestion;
use super::vllm::{format_count, KneeVerdict, Latency, SloTargets, Span, ITL_VS_TPOT};
use crate::charts::format::{format_latency, format_percent};
use crate::html_writer::HtmlWriter;

/// Label sets drawn in full at a time: a page can list thousands, and drawing them all at once would stall the page
/// for seconds. The status line counts the verdicts of all of them.
pub const REPORTS_PER_STEP: usize = 12;

/// What the page marks a "show more" button with; a click on it asks for [`REPORTS_PER_STEP`] more.
pub const SHOW_MORE_ATTRIBUTE: &str = "data-reader-more";

/// Which of the two boxes a message is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Which {
    /// The page (the earlier scrape).
    First,
    /// The later scrape.
    Later,
}

impl Which {
    fn name(self) -> &'static str {
        match self {
            Self::First => "this page",
            Self::Later => "the later scrape",
        }
    }
}

/// What the reader makes of the two boxes.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Nothing pasted yet.
    Empty,
    /// A later scrape without the earlier one.
    NoEarlier,
    /// A page that cannot be read, and which box it is in.
    Unreadable(Which, PageProblem),
    /// The reading, one entry per label set.
    Read(Reading),
}

/// One box's page, parsed: `None` while the box is empty.
pub type ParsedBox = Option<Result<Scrape, PageProblem>>;

/// A box's text, parsed.
pub fn parse_box(text: &str) -> ParsedBox {
    (!text.trim().is_empty()).then(|| Scrape::read(text))
}

/// The outcome of the two parsed boxes, `seconds` apart.
pub fn outcome(
    first: &ParsedBox,
    later: &ParsedBox,
    seconds: Option<f64>,
    slo: &SloTargets,
) -> Outcome {
    match (first, later) {
        (None, None) => Outcome::Empty,
        (None, Some(_)) => Outcome::NoEarlier,
        (Some(Err(problem)), _) => Outcome::Unreadable(Which::First, problem.clone()),
        (Some(Ok(_)), Some(Err(problem))) => Outcome::Unreadable(Which::Later, problem.clone()),
        (Some(Ok(first)), later) => {
            let later = later.as_ref().and_then(|later| later.as_ref().ok());
            Outcome::Read(read(first, later, seconds, slo))
        }
    }
}

/// The reader's two live regions as HTML.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReaderHtml {
    /// The error of a page that cannot be read (empty when there is none).
    pub alert: String,
    /// The status line and, once a page is read, its reports: the first `shown` label sets.
    pub result: String,
}

/// The status line of an empty reader: what the page shows before anything is pasted.
pub const EMPTY_STATUS: &str = "Nothing read yet: paste a page or load a sample.";

/// The HTML of `outcome`, drawing the first `shown` label sets in full.
pub fn render(outcome: &Outcome, slo: &SloTargets, shown: usize) -> ReaderHtml {
    let mut alert = HtmlWriter::new();
    if let Outcome::Unreadable(which, PageProblem::Refused { message, line }) = outcome {
        alert.element("div", &[("class", "reader-alert")], |m| {
            m.text_element(
                "p",
                &[],
                &format!("Cannot read {}: {message}", which.name()),
            );
            if let Some((number, text)) = line {
                m.element("p", &[("class", "reader-quoted")], |m| {
                    m.text(&format!("Line {number}: "));
                    m.text_element("code", &[], text);
                });
            }
        });
    }
    let mut result = HtmlWriter::new();
    result.element("div", &[("class", "reader-result")], |m| {
        m.text_element(
            "p",
            &[("class", "reader-status"), ("role", "status")],
            &status(outcome),
        );
        if let Outcome::Read(reading) = outcome {
            reports(m, reading, slo, shown);
        }
    });
    ReaderHtml {
        alert: alert.finish(),
        result: result.finish(),
    }
}

fn status(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Empty => EMPTY_STATUS.to_owned(),
        Outcome::NoEarlier => {
            "A later scrape needs the earlier one: paste that in the first box.".to_owned()
        }
        Outcome::Unreadable(Which::First, PageProblem::Refused { .. }) => {
            "The page could not be read; see the error above.".to_owned()
        }
        Outcome::Unreadable(Which::Later, PageProblem::Refused { .. }) => {
            "The later scrape could not be read; see the error above.".to_owned()
        }
        Outcome::Unreadable(which, problem) => format!(
            "{}.",
            problem.about(match which {
                Which::First => "The page",
                Which::Later => "The later scrape",
            })
        ),
        Outcome::Read(reading) => reading.summary(),
    }
}

fn reports(m: &mut HtmlWriter, reading: &Reading, slo: &SloTargets, shown: usize) {
    let servers = &reading.servers;
    m.text_element(
        "p",
        &[("class", "reader-estimate-note")],
        "Percentiles are estimates from the histogram buckets: the rank (say 99% of the count) falls in one bucket, \
         and the value is interpolated linearly between that bucket's bounds, as Prometheus's histogram_quantile \
         does. So each is only as precise as its bucket is wide; a rank in the +Inf bucket is reported as \
         \"above the last finite bound\". One scrape counts every request since the server started; with a later \
         scrape the figures are the window between the two.",
    );
    for server in servers.iter().take(shown) {
        server_report(m, server, slo);
    }
    let more = servers.len().saturating_sub(shown);
    if more > 0 {
        m.element("p", &[("class", "reader-more")], |m| {
            m.text(&format!(
                "Showing the first {shown} of {} label sets. ",
                servers.len()
            ));
            m.text_element(
                "button",
                &[
                    ("type", "button"),
                    ("class", "widget-button"),
                    (SHOW_MORE_ATTRIBUTE, ""),
                ],
                &format!("Show {} more", more.min(REPORTS_PER_STEP)),
            );
        });
    }
    let gone = reading.gone_labels();
    if !gone.is_empty() {
        m.text_element(
            "p",
            &[("class", "reader-more")],
            &format!(
                "Only on the earlier scrape (no longer reported): {}.",
                gone.join("; ")
            ),
        );
    }
}

fn verdict_class(verdict: KneeVerdict) -> &'static str {
    match verdict {
        KneeVerdict::BelowTheKnee => "reader-verdict verdict-below",
        KneeVerdict::AtTheKnee => "reader-verdict verdict-at",
        KneeVerdict::PastTheKnee => "reader-verdict verdict-past",
        KneeVerdict::NotEnoughData => "reader-verdict verdict-none",
    }
}

/// One label set: what its figures cover, the verdict, percentiles against the SLOs, the gauges, the reasons and
/// the replica suggestion.
fn server_report(m: &mut HtmlWriter, server: &ServerReading, slo: &SloTargets) {
    let ServerReading {
        signals,
        assessment,
        suggestion,
    } = server;
    let labels = signals.describe_labels();
    let not_on_page = || "not on the page".to_owned();
    let gauge = |value: Option<f64>| value.map_or_else(not_on_page, format_count);
    let kv = signals
        .kv_cache_usage
        .as_ref()
        .map_or_else(not_on_page, |kv| format_percent(kv.value));
    let preemptions = signals.preemptions.map_or_else(not_on_page, |p| {
        format!("{} {}", format_count(p), signals.span.qualifier())
    });
    let caption = match signals.span {
        Span::SinceStart => "Estimated from the histogram buckets, since the server started",
        Span::Window { .. } => "Estimated from the bucket differences between the two scrapes",
        Span::Restarted { .. } => "Estimated from the later scrape's buckets, since the restart",
    };
    let region = format!("Label set {labels}");
    m.element(
        "section",
        &[("class", "reader-server"), ("aria-label", &region)],
        |m| {
            m.element("h3", &[("class", "reader-labels")], |m| {
                m.text_element("code", &[], &labels);
            });
            m.text_element(
                "p",
                &[("class", "reader-span")],
                &signals.span.describe(signals.requests()),
            );
            m.element("p", &[("class", verdict_class(assessment.verdict))], |m| {
                m.text("Verdict: ");
                m.text_element("strong", &[], assessment.verdict.describe());
            });
            m.element(
                "div",
                &[
                    ("class", "scroll-x"),
                    ("tabindex", "0"),
                    ("role", "region"),
                    ("aria-label", "Percentile estimates against the SLOs"),
                ],
                |m| {
                    m.element("table", &[("class", "reader-table")], |m| {
                        m.text_element("caption", &[], caption);
                        m.element("thead", &[], |m| {
                            m.element("tr", &[], |m| {
                                for heading in ["Signal", "p50", "p95", "p99", "SLO"] {
                                    m.text_element("th", &[("scope", "col")], heading);
                                }
                            });
                        });
                        m.element("tbody", &[], |m| {
                            for latency in Latency::ALL {
                                if matches!(latency, Latency::Queue | Latency::E2e)
                                    && signals.histogram(latency).is_none()
                                {
                                    continue;
                                }
                                let slo_text = match latency {
                                    Latency::Ttft => {
                                        format!("p99 ≤ {}", format_latency(slo.ttft_p99))
                                    }
                                    Latency::Tpot => {
                                        format!("p95 ≤ {}", format_latency(slo.tpot_p95))
                                    }
                                    Latency::Itl if signals.tpot.is_none() => format!(
                                        "stands in for TPOT: p95 ≤ {}",
                                        format_latency(slo.tpot_p95)
                                    ),
                                    _ => "—".to_owned(),
                                };
                                percentile_row(m, latency, signals, &slo_text);
                            }
                        });
                    });
                },
            );
            if signals.itl.is_some() {
                m.text_element("p", &[("class", "reader-itl-note")], ITL_VS_TPOT);
            }
            m.text_element(
                "p",
                &[("class", "reader-queue")],
                &format!(
                    "Running: {} · Waiting: {} · KV cache: {kv} · Preemptions: {preemptions}",
                    gauge(signals.running),
                    gauge(signals.waiting)
                ),
            );
            if let Some(refused) = refusals_text(signals) {
                m.text_element(
                    "p",
                    &[("class", "reader-refusals")],
                    &format!("Turned away: {refused}"),
                );
            }
            m.text_element("h4", &[("class", "reader-minor-heading")], "Why");
            m.element("ul", &[("class", "reader-reasons")], |m| {
                for reason in &assessment.reasons {
                    m.text_element("li", &[], reason);
                }
            });
            replica_suggestion(m, suggestion.as_ref());
        },
    );
}

/// One latency's percentiles, with the metric name they came from.
fn percentile_row(
    m: &mut HtmlWriter,
    latency: Latency,
    signals: &super::vllm::ServerSignals,
    slo: &str,
) {
    let found = signals.histogram(latency);
    m.element("tr", &[], |m| {
        m.element("th", &[("scope", "row")], |m| {
            m.text(&format!(
                "{} ({})",
                latency.short_name(),
                latency.long_name()
            ));
            if let Some(histogram) = found {
                m.void("br", &[]);
                m.text_element("code", &[("class", "reader-metric")], histogram.metric);
            }
        });
        match found {
            Some(histogram) => {
                let p = histogram.value.percentiles();
                for estimate in [p.p50, p.p95, p.p99] {
                    m.text_element("td", &[], &estimate.describe());
                }
            }
            None => {
                m.text_element("td", &[("colspan", "3")], "no histogram on the page");
            }
        }
        m.text_element("td", &[], slo);
    });
}

fn replica_suggestion(m: &mut HtmlWriter, suggestion: Option<&ScrapeSuggestion>) {
    let Some(suggestion) = suggestion else {
        m.text_element(
            "p",
            &[("class", "reader-suggestion")],
            "Little's Law needs both the running and the waiting gauge; this label set lacks one.",
        );
        return;
    };
    let plural = |n: u64| if n == 1 { "replica" } else { "replicas" };
    let headroom = format_percent(SUGGESTION_HEADROOM);
    let headline = match (suggestion.replicas_at_least, suggestion.replicas) {
        (Some(low), Some(high)) if low < high => format!(
            "Little's Law suggests between {low} and {high} replicas like this one: at least {low} to serve the \
             demand at {headroom} headroom, and {high} to give every request now in flight a batch slot at once."
        ),
        (_, Some(replicas)) => format!(
            "Little's Law suggests {replicas} {} like this one, to give every request now in flight a batch slot at \
             {headroom} headroom.",
            plural(replicas)
        ),
        _ => "Little's Law:".to_owned(),
    };
    m.element("div", &[("class", "reader-suggestion")], |m| {
        m.text_element("h4", &[("class", "reader-minor-heading")], "Replicas");
        m.text_element("p", &[], &headline);
        m.element("ol", &[("class", "sizer-arithmetic")], |m| {
            for line in &suggestion.arithmetic {
                m.text_element("li", &[], line);
            }
        });
    });
}
