//! The Little's Law sizer: how many replicas a peak needs, from the concurrency cap and the latency at the knee.
//!
//! Little's Law says in-flight = throughput × latency. A replica holds at most `--max-num-seqs` requests in flight,
//! so its throughput tops out near `cap ÷ latency`; running it at a headroom fraction of that keeps it below the knee.
//!
//! ```
//! use goodput::cluster::sizing::{size, SizingInput};
//! let sizing = size(&SizingInput { max_num_seqs: 64.0, latency_seconds: 8.0, peak_qps: 30.0, headroom: 0.8 }).unwrap();
//! assert_eq!(sizing.per_replica_max_qps, 8.0);
//! assert_eq!(sizing.replicas, 5);
//! assert_eq!(sizing.in_flight_at_peak, 240.0);
//! ```

use super::vllm::WAITING_NOISE;
use crate::charts::format::{format_latency, format_number, format_percent};
use std::fmt;

/// The largest `--max-num-seqs` the sizer accepts (vLLM's default is 256; a few thousand is already unusual).
pub const MAX_CONCURRENCY_CAP: f64 = 100_000.0;
/// The longest mean latency the sizer accepts, in seconds (one hour).
pub const MAX_LATENCY_SECONDS: f64 = 3_600.0;
/// The largest peak demand the sizer accepts, in requests per second.
pub const MAX_PEAK_QPS: f64 = 1_000_000.0;
/// The smallest headroom fraction the sizer accepts; below it the "headroom" is mostly idle hardware.
pub const MIN_HEADROOM: f64 = 0.05;

/// The sizer's inputs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SizingInput {
    /// Concurrency cap per replica (`--max-num-seqs`), a whole number.
    pub max_num_seqs: f64,
    /// Mean end-to-end latency at the knee, in seconds.
    pub latency_seconds: f64,
    /// Peak demand, in requests per second.
    pub peak_qps: f64,
    /// The fraction of its maximum each replica should run at (0.8 = 80%).
    pub headroom: f64,
}

/// Which input a [`SizingError`] is about, so the page can show it next to that field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizingField {
    /// `--max-num-seqs`.
    MaxNumSeqs,
    /// Mean latency at the knee.
    LatencySeconds,
    /// Peak demand.
    PeakQps,
    /// Target headroom.
    Headroom,
}

impl SizingField {
    /// Every field, in the sizer's order.
    pub const ALL: [SizingField; 4] = [
        Self::MaxNumSeqs,
        Self::LatencySeconds,
        Self::PeakQps,
        Self::Headroom,
    ];

    /// The key a lesson's `@widget littles-law-sizer` settings give this field's starting value under.
    pub fn setting_key(&self) -> &'static str {
        match self {
            Self::MaxNumSeqs => "max_num_seqs",
            Self::LatencySeconds => "latency_s",
            Self::PeakQps => "peak_qps",
            Self::Headroom => "headroom",
        }
    }

    /// The field's starting value when the lesson gives none: the lesson's worked example (a cap of 64, 8 s per
    /// request, a 30 req/s peak, 80% headroom).
    pub fn default_value(&self) -> f64 {
        match self {
            Self::MaxNumSeqs => 64.0,
            Self::LatencySeconds => 8.0,
            Self::PeakQps => 30.0,
            Self::Headroom => 0.8,
        }
    }

    /// The sizer's starting inputs, each field's from `setting(key, default)`.
    pub fn input_from(setting: impl Fn(&str, f64) -> f64) -> SizingInput {
        let [max_num_seqs, latency_seconds, peak_qps, headroom] =
            Self::ALL.map(|field| setting(field.setting_key(), field.default_value()));
        SizingInput {
            max_num_seqs,
            latency_seconds,
            peak_qps,
            headroom,
        }
    }

    /// The field's label as the page shows it.
    pub fn label(&self) -> &'static str {
        match self {
            Self::MaxNumSeqs => "concurrency cap (--max-num-seqs)",
            Self::LatencySeconds => "mean latency at the knee (s)",
            Self::PeakQps => "peak demand (requests/s)",
            Self::Headroom => "target headroom",
        }
    }
}

/// An invalid sizer input: which field, and a message fit to show beside it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SizingError {
    /// The field at fault.
    pub field: SizingField,
    /// What is wrong and what would be accepted.
    pub message: String,
}

impl fmt::Display for SizingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field.label(), self.message)
    }
}

impl std::error::Error for SizingError {}

/// What the sizer works out.
#[derive(Clone, Debug, PartialEq)]
pub struct Sizing {
    /// The inputs it came from.
    pub input: SizingInput,
    /// `cap ÷ latency`: the most one replica sustains before its queue grows without bound.
    pub per_replica_max_qps: f64,
    /// `per_replica_max_qps × headroom`: what each replica is planned to carry.
    pub per_replica_target_qps: f64,
    /// `ceil(peak ÷ per_replica_target_qps)`.
    pub replicas: u64,
    /// `peak × latency`: requests in flight across the fleet at peak.
    pub in_flight_at_peak: f64,
    /// Share of the fleet's maximum the peak uses with `replicas` replicas (at most `headroom`).
    pub utilisation_at_peak: f64,
    /// The arithmetic written out with the numbers, one step a line.
    pub arithmetic: Vec<String>,
}

/// Parses one text field of the sizer (the page's inputs are text), naming the field on failure.
pub fn parse_field(field: SizingField, text: &str) -> Result<f64, SizingError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(SizingError {
            field,
            message: "enter a number".to_owned(),
        });
    }
    let value = text.parse::<f64>().ok().filter(|v| v.is_finite());
    value.ok_or_else(|| SizingError {
        field,
        message: format!("\"{text}\" is not a number"),
    })
}

fn check(
    field: SizingField,
    value: f64,
    low_exclusive: f64,
    high: f64,
    what: &str,
) -> Result<(), SizingError> {
    let message = if value.is_nan() {
        format!("enter {what}")
    } else if value <= low_exclusive {
        // `{}` of an f64 prints 0 as "0", where format_number would print "0.0".
        format!("must be more than {low_exclusive}; enter {what}")
    } else if value > high {
        format!(
            "{} is implausibly large; at most {} is accepted",
            format_number(value),
            format_number(high)
        )
    } else {
        return Ok(());
    };
    Err(SizingError { field, message })
}

/// Checks every input and returns all the errors at once (one per field at most), so the page can mark each field.
pub fn validate(input: &SizingInput) -> Vec<SizingError> {
    let mut errors = Vec::new();
    let cap = check(
        SizingField::MaxNumSeqs,
        input.max_num_seqs,
        0.0,
        MAX_CONCURRENCY_CAP,
        "the --max-num-seqs the server runs with, e.g. 256",
    )
    .and_then(|()| {
        if input.max_num_seqs.fract() == 0.0 {
            Ok(())
        } else {
            Err(SizingError {
                field: SizingField::MaxNumSeqs,
                message: "must be a whole number of sequences".to_owned(),
            })
        }
    });
    errors.extend(cap.err());
    errors.extend(
        check(
            SizingField::LatencySeconds,
            input.latency_seconds,
            0.0,
            MAX_LATENCY_SECONDS,
            "the mean end-to-end latency in seconds, e.g. 8",
        )
        .err(),
    );
    errors.extend(
        check(
            SizingField::PeakQps,
            input.peak_qps,
            0.0,
            MAX_PEAK_QPS,
            "the peak demand in requests per second, e.g. 30",
        )
        .err(),
    );
    let headroom = if input.headroom > 1.0 && input.headroom <= 100.0 {
        Err(SizingError {
            field: SizingField::Headroom,
            message: format!(
                "a fraction of 1: for {}% enter {}",
                format_number(input.headroom),
                input.headroom / 100.0
            ),
        })
    } else if input.headroom < MIN_HEADROOM && input.headroom > 0.0 {
        Err(SizingError {
            field: SizingField::Headroom,
            message: format!(
                "at least {MIN_HEADROOM}: below that almost all of the fleet would sit idle"
            ),
        })
    } else {
        check(
            SizingField::Headroom,
            input.headroom,
            0.0,
            1.0,
            "a fraction between 0 and 1, e.g. 0.8 to run replicas at 80% of their maximum",
        )
    };
    errors.extend(headroom.err());
    errors
}

/// Sizes a fleet by Little's Law. Returns every invalid field when any input is zero, negative, not a number, not
/// whole (the cap) or absurdly large; never returns NaN or infinity.
pub fn size(input: &SizingInput) -> Result<Sizing, Vec<SizingError>> {
    let errors = validate(input);
    if !errors.is_empty() {
        return Err(errors);
    }
    let SizingInput {
        max_num_seqs: cap,
        latency_seconds: latency,
        peak_qps: peak,
        headroom,
    } = *input;
    let per_replica_max_qps = cap / latency;
    let per_replica_target_qps = per_replica_max_qps * headroom;
    let exact_replicas = peak / per_replica_target_qps;
    // A hair of tolerance so 30 ÷ 7.5 = 4.000000000000001 does not become 5 replicas.
    let replicas = ((exact_replicas - 1e-9).ceil()).max(1.0) as u64;
    let in_flight_at_peak = peak * latency;
    let utilisation_at_peak = peak / (replicas as f64 * per_replica_max_qps);
    let slots = replicas as f64 * cap;
    let arithmetic = vec![
        format!(
            "Per-replica max QPS = cap ÷ latency = {} ÷ {} = {} requests/s",
            format_number(cap),
            format_latency(latency),
            format_number(per_replica_max_qps)
        ),
        format!(
            "At {} headroom each replica carries {} × {} = {} requests/s",
            format_percent(headroom),
            format_number(per_replica_max_qps),
            format_number(headroom),
            format_number(per_replica_target_qps)
        ),
        format!(
            "Replicas = ceil(peak ÷ per-replica target) = ceil({} ÷ {}) = ceil({}) = {}",
            format_number(peak),
            format_number(per_replica_target_qps),
            format_number(exact_replicas),
            replicas
        ),
        format!(
            "In flight at peak = peak × latency = {} × {} = {} requests, in {} slots ({} replicas × {})",
            format_number(peak),
            format_latency(latency),
            format_number(in_flight_at_peak),
            format_number(slots),
            replicas,
            format_number(cap)
        ),
        format!(
            "At peak the fleet runs at {} of its maximum",
            format_percent(utilisation_at_peak)
        ),
    ];
    Ok(Sizing {
        input: *input,
        per_replica_max_qps,
        per_replica_target_qps,
        replicas,
        in_flight_at_peak,
        utilisation_at_peak,
        arithmetic,
    })
}

/// Sizes from the page's four text fields, in the order cap, latency, peak, headroom. On failure returns one error
/// per field at fault: the parse error where the text is not a number, else the range check's.
pub fn size_from_text(
    max_num_seqs: &str,
    latency_seconds: &str,
    peak_qps: &str,
    headroom: &str,
) -> Result<Sizing, Vec<SizingError>> {
    let fields = [
        (SizingField::MaxNumSeqs, max_num_seqs),
        (SizingField::LatencySeconds, latency_seconds),
        (SizingField::PeakQps, peak_qps),
        (SizingField::Headroom, headroom),
    ];
    let mut errors = Vec::new();
    let [cap, latency, peak, headroom] = fields.map(|(field, text)| {
        parse_field(field, text).unwrap_or_else(|error| {
            errors.push(error);
            f64::NAN
        })
    });
    let input = SizingInput {
        max_num_seqs: cap,
        latency_seconds: latency,
        peak_qps: peak,
        headroom,
    };
    if errors.is_empty() {
        return size(&input);
    }
    let unparsed: Vec<SizingField> = errors.iter().map(|error| error.field).collect();
    errors.extend(
        validate(&input)
            .into_iter()
            .filter(|error| !unparsed.contains(&error.field)),
    );
    // Unstable sorts link less code into the page; the position keeps a field's errors in their order.
    let mut errors: Vec<_> = errors.into_iter().enumerate().collect();
    errors.sort_unstable_by_key(|(at, error)| (error.field as u8, *at));
    let errors = errors.into_iter().map(|(_, error)| error).collect();
    Err(errors)
}

/// A rough Little's Law reading of one `/metrics` scrape: how many replicas would give every request now in flight a
/// batch slot at the target headroom.
#[derive(Clone, Debug, PartialEq)]
pub struct ScrapeSuggestion {
    /// `running + waiting`: requests in flight on the server now (Little's `L`).
    pub in_flight: f64,
    /// The cap the suggestion reads off the scrape: the running count once a queue has formed, since vLLM only queues
    /// a request when every batch slot is taken. `None` without a queue, when the scrape does not show the cap.
    pub observed_cap: Option<f64>,
    /// Replicas that hold `in_flight` at the headroom, when the cap is known: enough to absorb the whole backlog at
    /// once, an upper bound on the steady need.
    pub replicas: Option<u64>,
    /// With a queue, the fewest replicas the demand needs: it already fills this one, so at least `ceil(1 ÷ headroom)`
    /// replicas like it keep each at the headroom.
    pub replicas_at_least: Option<u64>,
    /// The smallest `--max-num-seqs` with which one replica holds `in_flight` at the headroom.
    pub cap_for_one_replica: u64,
    /// The reasoning written out with the scrape's numbers, one step a line.
    pub arithmetic: Vec<String>,
}

/// Reads a replica suggestion off one scrape's running and waiting gauges. `None` when a gauge is negative or not
/// finite, or the headroom is outside [`MIN_HEADROOM`]..=1.
///
/// One scrape is a snapshot: after a long overload the waiting count is a backlog that overstates the steady need
/// (it drains once), so the result says so and points to sizing from the peak demand.
pub fn suggest_from_scrape(running: f64, waiting: f64, headroom: f64) -> Option<ScrapeSuggestion> {
    let valid = |v: f64| v.is_finite() && v >= 0.0;
    if !valid(running) || !valid(waiting) || !(MIN_HEADROOM..=1.0).contains(&headroom) {
        return None;
    }
    let in_flight = running + waiting;
    let cap_for_one_replica = ((in_flight / headroom - 1e-9).ceil().max(1.0)) as u64;
    let mut arithmetic = vec![format!(
        "In flight now (Little's L) = running {} + waiting {} = {} requests",
        format_number(running),
        format_number(waiting),
        format_number(in_flight)
    )];
    let queued = waiting > WAITING_NOISE;
    let (observed_cap, replicas, replicas_at_least) = if queued && running >= 1.0 {
        let per_replica = running * headroom;
        let replicas = ((in_flight / per_replica - 1e-9).ceil().max(1.0)) as u64;
        let at_least = ((1.0 / headroom - 1e-9).ceil().max(1.0) as u64).min(replicas);
        arithmetic.push(format!(
            "A queue has formed, so every batch slot is taken: the server's cap is about {} (its running count)",
            format_number(running)
        ));
        arithmetic.push(format!(
            "At {} headroom a replica holds {} × {} = {} requests",
            format_percent(headroom),
            format_number(running),
            format_number(headroom),
            format_number(per_replica)
        ));
        arithmetic.push(format!(
            "Replicas to give every request in flight a slot = ceil({} ÷ {}) = {}",
            format_number(in_flight),
            format_number(per_replica),
            replicas
        ));
        arithmetic.push(format!(
            "That absorbs the whole backlog at once, so it is an upper bound: a queue built up over a long overload \
             overstates the steady need. The demand already fills this replica, so the steady need is at least \
             ceil(1 ÷ {}) = {at_least}; size it from the peak requests/s with the Little's Law sizer",
            format_number(headroom)
        ));
        (Some(running), Some(replicas), Some(at_least))
    } else if queued {
        arithmetic.push(
            "Requests wait while none runs: the server is stalled or starting, so this scrape cannot size it"
                .to_owned(),
        );
        (None, None, None)
    } else {
        arithmetic.push(format!(
            "No queue: one replica holds this load at {} headroom if its --max-num-seqs is at least ceil({} ÷ {}) = {}",
            format_percent(headroom),
            format_number(in_flight),
            format_number(headroom),
            cap_for_one_replica
        ));
        (None, None, None)
    };
    Some(ScrapeSuggestion {
        in_flight,
        observed_cap,
        replicas,
        replicas_at_least,
        cap_for_one_replica,
        arithmetic,
    })
}
