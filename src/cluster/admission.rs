//! What a server turned away, and two newer signals read beside it.
//!
//! Since vLLM PR #49445 a server started with `--max-num-queued-reqs` or `--max-num-queued-tokens` answers a request
//! over either cap with HTTP 503 at once instead of queueing it. `vllm:admission_rejections_total{reason}` (PR #55812)
//! counts those refusals; in every version the API server's `http_requests_total{handler,method,status}` counts its
//! 5xx answers (`status="5xx"`, or the code itself, e.g. `"503"`, depending on how the instrumentation groups them).
//! A server that refuses work is past its knee whatever its queue says: the queue is held at the cap, so
//! `vllm:num_requests_waiting` stays flat while the excess is turned away.
//!
//! These counters carry fewer labels than the engine's signals (the rejection counter has no `engine` label, the
//! API server's counter no `model_name`), so each covers every label set that has its remaining labels — its
//! *scope*. The share of arrivals it refused is taken against the requests of all the label sets it covers.
//!
//! Also read here: `vllm:num_requests_waiting_by_reason{reason}` (why requests wait) and the prefix-cache hit rate,
//! `vllm:prefix_cache_hits_total ÷ vllm:prefix_cache_queries_total`.

use super::metrics::Sample;
use crate::charts::format::format_count;
use std::collections::BTreeMap;

/// Requests refused by vLLM's queue caps (PR #55812), labelled `reason`.
pub const REJECTIONS_METRIC: &str = "vllm:admission_rejections_total";
/// The API server's count of HTTP requests, labelled `handler`, `method` and `status`.
pub const HTTP_REQUESTS_METRIC: &str = "http_requests_total";
/// Requests waiting, by why they wait (`reason="capacity"` or `"deferred"`).
pub const WAITING_BY_REASON_METRIC: &str = "vllm:num_requests_waiting_by_reason";
/// Prompt tokens found in the prefix cache.
pub const PREFIX_CACHE_HITS_METRIC: &str = "vllm:prefix_cache_hits_total";
/// Prompt tokens looked up in the prefix cache.
pub const PREFIX_CACHE_QUERIES_METRIC: &str = "vllm:prefix_cache_queries_total";

/// The labels that split the counters' series without narrowing what they cover.
const REJECTION_LABELS: [&str; 1] = ["reason"];
const HTTP_LABELS: [&str; 3] = ["handler", "method", "status"];

type Labels = Vec<(String, String)>;

/// Most distinct scopes of one counter searched for the label sets they cover. A real page has one or two (the API
/// server's, a model's) or one per label set, which is found directly; a page with more is matched label set by label
/// set only, so no page, however hostile, makes the reader compare every label set with every scope.
const MAX_SCOPES_SEARCHED: usize = 64;

/// What a server turned away over a span.
#[derive(Clone, Debug, PartialEq)]
pub struct Refusals {
    /// Where `refused` comes from: [`REJECTIONS_METRIC`], else [`HTTP_REQUESTS_METRIC`]'s 5xx answers.
    pub metric: &'static str,
    /// Requests turned away.
    pub refused: f64,
    /// By the cap that fired (`reason` label), sorted; empty when counted from HTTP statuses.
    pub by_reason: Vec<(String, f64)>,
    /// 5xx answers of the API server (all handlers), when the page counts them: beside the rejection counter, a
    /// cross-check (a 5xx can also be a failure).
    pub http_5xx: Option<f64>,
    /// The labels the counter carries besides its own splits: it covers every label set that has them.
    pub scope: Labels,
    /// Label sets on the page it covers (1 when it is this label set's alone).
    pub label_sets: usize,
    /// Requests those label sets admitted over the span (their first tokens), when the page counts them.
    pub admitted: Option<f64>,
}

impl Refusals {
    /// The share of arriving requests turned away: refused ÷ (refused + admitted), 0–1.
    pub fn share_of_arrivals(&self) -> Option<f64> {
        let arrivals = self.refused + self.admitted?;
        (arrivals > 0.0).then(|| self.refused / arrivals)
    }

    /// Arriving requests over the span: refused + admitted.
    pub fn arrivals(&self) -> Option<f64> {
        self.admitted.map(|admitted| admitted + self.refused)
    }

    /// The counts between an earlier and this later reading, or what shows the server restarted. A counter only the
    /// later page has started after the earlier scrape (a labelled counter appears at its first increment), so it
    /// is taken whole.
    pub(super) fn since(&self, then: &Refusals) -> Result<Refusals, String> {
        let fell = |metric: &str, old: f64, new: f64| {
            format!(
                "{metric} fell from {} to {}",
                format_count(old),
                format_count(new)
            )
        };
        let mut window = self.clone();
        if self.metric == then.metric {
            if self.refused < then.refused {
                return Err(fell(self.metric, then.refused, self.refused));
            }
            window.refused = self.refused - then.refused;
            for (reason, count) in &mut window.by_reason {
                let old = then
                    .by_reason
                    .iter()
                    .find(|(r, _)| r == reason)
                    .map_or(0.0, |(_, c)| *c);
                if *count < old {
                    return Err(fell(self.metric, old, *count));
                }
                *count -= old;
            }
        }
        if let (Some(old), Some(new)) = (then.http_5xx, self.http_5xx) {
            if new < old {
                return Err(fell("http_requests_total (5xx)", old, new));
            }
            window.http_5xx = Some(new - old);
            if self.metric == HTTP_REQUESTS_METRIC {
                window.refused = new - old;
            }
        }
        Ok(window)
    }
}

/// The prefix cache's counters over a span.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PrefixCache {
    /// Prompt tokens found cached ([`PREFIX_CACHE_HITS_METRIC`]).
    pub hits: f64,
    /// Prompt tokens looked up ([`PREFIX_CACHE_QUERIES_METRIC`]).
    pub queries: f64,
}

impl PrefixCache {
    /// Hits ÷ queries, 0–1; `None` without queries.
    pub fn hit_rate(&self) -> Option<f64> {
        (self.queries > 0.0).then(|| (self.hits / self.queries).clamp(0.0, 1.0))
    }

    /// The counts between an earlier and this later reading, or what shows the server restarted.
    pub(super) fn since(&self, then: &PrefixCache) -> Result<PrefixCache, String> {
        if self.hits < then.hits || self.queries < then.queries {
            return Err(format!(
                "{PREFIX_CACHE_QUERIES_METRIC} or {PREFIX_CACHE_HITS_METRIC} fell"
            ));
        }
        Ok(PrefixCache {
            hits: self.hits - then.hits,
            queries: self.queries - then.queries,
        })
    }
}

/// The counters of a page that carry their own scope, gathered while its samples are read and attached to the label
/// sets once all are known (the API server's counters come before the engine's on a vLLM page).
#[derive(Default)]
pub(super) struct ScopedSamples {
    rejections: BTreeMap<Labels, BTreeMap<String, f64>>,
    http_5xx: BTreeMap<Labels, f64>,
    waiting_by_reason: BTreeMap<Labels, BTreeMap<String, f64>>,
    prefix_hits: BTreeMap<Labels, f64>,
    prefix_queries: BTreeMap<Labels, f64>,
}

/// `labels` without the names in `split`, sorted: the scope of a sample.
fn scope_of(labels: &[(String, String)], split: &[&str]) -> Labels {
    let mut scope: Labels = labels
        .iter()
        .filter(|(name, _)| !split.contains(&name.as_str()))
        .cloned()
        .collect();
    scope.sort_unstable();
    scope
}

/// Counts by label value as a report writes them: `6 capacity, 2 deferred`.
pub fn reason_counts(counts: &[(String, f64)]) -> String {
    counts
        .iter()
        .map(|(reason, count)| {
            format!(
                "{} {}",
                format_count(*count),
                crate::printable::one_line(reason)
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether an HTTP status label is a server error: `5xx`, or a code from 500 to 599.
fn is_server_error(status: &str) -> bool {
    let bytes = status.as_bytes();
    bytes.len() == 3 && bytes[0] == b'5' && (status == "5xx" || status.parse::<u16>().is_ok())
}

impl ScopedSamples {
    /// Takes `sample` if it is one of these counters (its value finite); false otherwise.
    pub fn take(&mut self, sample: &Sample) -> bool {
        let value = sample.value;
        let reason = || sample.label("reason").unwrap_or("").to_owned();
        match sample.name.as_str() {
            REJECTIONS_METRIC => {
                *self
                    .rejections
                    .entry(scope_of(&sample.labels, &REJECTION_LABELS))
                    .or_default()
                    .entry(reason())
                    .or_default() += value;
            }
            HTTP_REQUESTS_METRIC => {
                if sample.label("status").is_some_and(is_server_error) {
                    *self
                        .http_5xx
                        .entry(scope_of(&sample.labels, &HTTP_LABELS))
                        .or_default() += value;
                }
            }
            WAITING_BY_REASON_METRIC => {
                self.waiting_by_reason
                    .entry(scope_of(&sample.labels, &REJECTION_LABELS))
                    .or_default()
                    .insert(reason(), value);
            }
            PREFIX_CACHE_HITS_METRIC => {
                self.prefix_hits
                    .insert(scope_of(&sample.labels, &[]), value);
            }
            PREFIX_CACHE_QUERIES_METRIC => {
                self.prefix_queries
                    .insert(scope_of(&sample.labels, &[]), value);
            }
            _ => return false,
        }
        true
    }

    /// The rejection counters' scopes that cover none of `label_sets`: each is a label set of its own, the page's only
    /// sign of that server.
    pub fn uncovered<'a>(
        &self,
        label_sets: impl Iterator<Item = &'a Labels> + Clone,
    ) -> Vec<Labels> {
        if self.rejections.len() > MAX_SCOPES_SEARCHED {
            return Vec::new();
        }
        self.rejections
            .keys()
            .filter(|scope| !label_sets.clone().any(|labels| covers(scope, labels)))
            .cloned()
            .collect()
    }

    /// What the counters say about the label set `labels`: each from the most specific scope that covers it.
    pub fn for_labels(&self, labels: &Labels) -> Admission {
        let rejections = most_specific(&self.rejections, labels);
        let http = most_specific(&self.http_5xx, labels);
        let refusals = match (rejections, http) {
            (Some((scope, reasons)), http) => Some(Refusals {
                metric: REJECTIONS_METRIC,
                refused: reasons.values().sum(),
                by_reason: reasons.iter().map(|(r, c)| (r.clone(), *c)).collect(),
                http_5xx: http.map(|(_, count)| *count),
                scope: scope.clone(),
                label_sets: 1,
                admitted: None,
            }),
            (None, Some((scope, count))) => Some(Refusals {
                metric: HTTP_REQUESTS_METRIC,
                refused: *count,
                by_reason: Vec::new(),
                http_5xx: Some(*count),
                scope: scope.clone(),
                label_sets: 1,
                admitted: None,
            }),
            (None, None) => None,
        };
        let hits = most_specific(&self.prefix_hits, labels);
        let queries = most_specific(&self.prefix_queries, labels);
        Admission {
            refusals,
            waiting_by_reason: most_specific(&self.waiting_by_reason, labels)
                .map(|(_, reasons)| reasons.iter().map(|(r, c)| (r.clone(), *c)).collect())
                .unwrap_or_default(),
            prefix_cache: hits
                .zip(queries)
                .map(|((_, &hits), (_, &queries))| PrefixCache { hits, queries }),
        }
    }
}

/// What a page's scoped counters say about one label set.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Admission {
    /// What it turned away, when a counter covers it.
    pub refusals: Option<Refusals>,
    /// `vllm:num_requests_waiting_by_reason` by reason.
    pub waiting_by_reason: Vec<(String, f64)>,
    /// The prefix cache's counters.
    pub prefix_cache: Option<PrefixCache>,
}

/// One label set as [`settle`] sees it: its labels, the requests it admitted over the span, and its refusals.
pub(super) type Settling<'a> = (&'a Labels, Option<f64>, &'a mut Option<Refusals>);

/// Whether a counter with labels `scope` covers the label set `labels`.
fn covers(scope: &[(String, String)], labels: &[(String, String)]) -> bool {
    scope.iter().all(|label| labels.contains(label))
}

/// The entry of `by_scope` with the most labels among those covering `labels`: its own labels if present, else (when
/// there are at most [`MAX_SCOPES_SEARCHED`] scopes) the largest scope they cover.
fn most_specific<'a, T>(
    by_scope: &'a BTreeMap<Labels, T>,
    labels: &[(String, String)],
) -> Option<(&'a Labels, &'a T)> {
    if let Some(own) = by_scope.get_key_value(labels) {
        return Some(own);
    }
    if by_scope.len() > MAX_SCOPES_SEARCHED {
        return None;
    }
    by_scope
        .iter()
        .filter(|(scope, _)| covers(scope, labels))
        .max_by_key(|(scope, _)| scope.len())
}

/// Counts, for each label set's refusals, the label sets its counter covers and the requests they admitted: the
/// share of arrivals refused is taken against all of them. Run on a page's label sets, and again on a window's.
pub(super) fn settle(mut sets: Vec<Settling<'_>>) {
    // One pass over the label sets per distinct scope: a page may list thousands of label sets, all covered by the
    // API server's one counter.
    let mut by_scope: BTreeMap<Labels, (usize, Option<f64>)> = sets
        .iter()
        .filter_map(|(_, _, refusals)| refusals.as_ref().map(|r| (r.scope.clone(), (0, None))))
        .collect();
    if by_scope.len() > MAX_SCOPES_SEARCHED {
        // Counters of their own label sets (see MAX_SCOPES_SEARCHED): each covers its own.
        for (_, requests, refusals) in &mut sets {
            if let Some(refusals) = refusals.as_mut() {
                (refusals.label_sets, refusals.admitted) = (1, *requests);
            }
        }
        return;
    }
    for (scope, (count, admitted)) in &mut by_scope {
        for (_, requests, _) in sets.iter().filter(|(labels, ..)| covers(scope, labels)) {
            *count += 1;
            if let Some(requests) = requests {
                *admitted = Some(admitted.unwrap_or(0.0) + requests);
            }
        }
    }
    for (_, _, refusals) in &mut sets {
        if let Some(refusals) = refusals.as_mut() {
            (refusals.label_sets, refusals.admitted) = by_scope[&refusals.scope];
        }
    }
}
