//! The messages between the fleet widget and its `fleet-worker` (`src/bin/fleet-worker/`), written and read here
//! only, as [`crate::server_protocol`]'s are (and with its field reader): arrays of strings, the kind first, a field
//! that does not read an error naming it. `tests/fleet_protocol.rs` checks every message both ways.

use crate::charts::ChartTheme;
use crate::model::fleet::{Route, Shape, Signal, Trigger};
use crate::model::Scenario;
use crate::server_protocol::{Fields, ProtocolError, CRASHED, FAILED};

/// Start-up delays the widget offers, seconds: none, a small model, the CLI's default, a large model (llm-d
/// measured 4 min 38 s for Qwen3-32B).
pub const START_UP_DELAYS: [u32; 4] = [0, 30, 120, 300];

/// What the autoscaler reads, as the widget offers it: one signal at its default target, or the lesson's advice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// One signal at its default target.
    One(Signal),
    /// The request rate aimed at Little's Law sizing less one start-up of growth: each replica is given the share
    /// of its capacity ([`start_up_share`]) that still leaves room for the morning ramp to grow while a new replica
    /// starts, so the next one is asked for early enough.
    RateWithStartUpHeadroom,
}

/// The recommended policy's share of a replica's capacity: one replica's worth, less what the morning ramp adds
/// during one default (2-minute) start-up.
pub fn start_up_share() -> f64 {
    let ramp = Shape::MorningRamp.traffic(1.0);
    let delay = f64::from(FleetSettings::default().start_up_delay);
    1.0 - (ramp.rate(600.0 + delay) - ramp.rate(600.0))
}

impl Policy {
    /// Every choice, in the widget's order: the signals, then the advice.
    pub const ALL: [Policy; 8] = [
        Policy::One(Signal::Utilization),
        Policy::One(Signal::Waiting),
        Policy::One(Signal::TtftP99),
        Policy::One(Signal::Kv),
        Policy::One(Signal::Running),
        Policy::One(Signal::Inflight),
        Policy::One(Signal::Rate),
        Policy::RateWithStartUpHeadroom,
    ];

    /// Its triggers for `scenario`'s replica.
    pub fn triggers(self, scenario: &Scenario) -> Vec<Trigger> {
        match self {
            Policy::One(signal) => vec![Trigger::default_for(signal, scenario)],
            Policy::RateWithStartUpHeadroom => vec![Trigger {
                signal: Signal::Rate,
                target: (start_up_share() * scenario.saturation_throughput() * 10.0).round() / 10.0,
            }],
        }
    }

    /// The wire's word.
    pub fn key(self) -> &'static str {
        match self {
            Policy::One(signal) => signal.key(),
            Policy::RateWithStartUpHeadroom => "rate-with-headroom",
        }
    }

    /// What the widget calls it.
    pub fn label(self) -> &'static str {
        match self {
            Policy::One(signal) => signal.label(),
            Policy::RateWithStartUpHeadroom => "request rate, start-up headroom",
        }
    }
}

/// What the reader picked: the day the worker simulates (the course box, 30 minutes, 1 to 10 replicas).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FleetSettings {
    pub policy: Policy,
    pub route: Route,
    /// Seconds from the decision to add a replica until it serves.
    pub start_up_delay: u32,
    pub shape: Shape,
}

impl Default for FleetSettings {
    /// The lesson's morning: the ramp, scaled on the waiting queue, the CLI's router and start-up delay.
    fn default() -> Self {
        FleetSettings {
            policy: Policy::One(Signal::Waiting),
            route: Route::ShortestQueue,
            start_up_delay: 120,
            shape: Shape::MorningRamp,
        }
    }
}

/// What the page asks of the worker.
#[derive(Clone, Debug, PartialEq)]
pub enum ToWorker {
    /// Send the controls of the widget whose anchor is `id` (its elements' ids start with it).
    Start { id: String },
    /// Draw the day of `settings` at `at` seconds, `width` CSS px wide in `theme`; `request` numbers the question so
    /// an answer to an older one can be dropped.
    Draw {
        settings: FleetSettings,
        at: f64,
        width: u32,
        /// Each chart's height, CSS px; 0 for the panel's own.
        height: u32,
        /// How much larger the charts' type is drawn than the page's (1 on the page, more on a projected screen).
        projection: f64,
        theme: ChartTheme,
        request: u32,
    },
}

/// What the worker answers.
#[derive(Clone, Debug, PartialEq)]
pub enum FromWorker {
    /// The widget's controls, as HTML (`crate::fleet_view::controls_html`).
    Controls(String),
    /// Both charts with their accessible text and the time the day took to simulate (`charts_html`) and the day's
    /// summary line (`summary`), for request `request`.
    Drawn {
        charts_html: String,
        summary: String,
        request: u32,
    },
    /// The same day under every policy (`compared`, HTML), for request `request`: sent after its `Drawn`, since
    /// simulating every policy takes seconds the first time, which the charts do not wait for.
    Compared { compared: String, request: u32 },
    /// The day could not be simulated: why.
    Refused(String),
    /// The worker could not read the page's message: why.
    Unreadable(String),
    /// The worker's script or wasm did not load: what the browser said.
    Failed(String),
    /// The worker failed while it ran: what it said.
    Crashed(String),
}

impl ToWorker {
    /// The message on the wire.
    pub fn encode(&self) -> Vec<String> {
        let (settings, at, width, height, projection, theme, request) = match self {
            ToWorker::Start { id } => return vec!["start".to_owned(), id.clone()],
            ToWorker::Draw {
                settings,
                at,
                width,
                height,
                projection,
                theme,
                request,
            } => (settings, at, width, height, projection, theme, request),
        };
        vec![
            "draw".to_owned(),
            settings.policy.key().to_owned(),
            settings.route.key().to_owned(),
            settings.start_up_delay.to_string(),
            settings.shape.key().to_owned(),
            at.to_string(),
            width.to_string(),
            height.to_string(),
            projection.to_string(),
            theme.key().to_owned(),
            request.to_string(),
        ]
    }

    /// The message `parts` make, or what is wrong with them.
    pub fn decode(parts: &[String]) -> Result<ToWorker, ProtocolError> {
        let mut fields = Fields::new(parts)?;
        if fields.kind == "start" {
            let id = fields.text("id")?;
            fields.end()?;
            return Ok(ToWorker::Start { id });
        }
        if fields.kind != "draw" {
            return Err(ProtocolError(format!(
                "{:?} is no request the fleet worker knows",
                fields.kind
            )));
        }
        let message = ToWorker::Draw {
            settings: FleetSettings {
                policy: fields.pick("policy", &Policy::ALL, Policy::key)?,
                route: fields.pick("router", &Route::ALL, Route::key)?,
                start_up_delay: fields.number("start-up delay")?,
                shape: fields.pick("traffic", &Shape::ALL, Shape::key)?,
            },
            at: fields.number("time")?,
            width: fields.number("width")?,
            height: fields.number("height")?,
            projection: fields.number("projection")?,
            theme: fields.pick("theme", &ChartTheme::ALL, ChartTheme::key)?,
            request: fields.number("request number")?,
        };
        fields.end()?;
        Ok(message)
    }
}

impl FromWorker {
    /// The message on the wire.
    pub fn encode(&self) -> Vec<String> {
        let parts: Vec<&str> = match self {
            FromWorker::Drawn {
                charts_html,
                summary,
                request,
            } => {
                return vec![
                    "drawn".to_owned(),
                    charts_html.clone(),
                    summary.clone(),
                    request.to_string(),
                ]
            }
            FromWorker::Compared { compared, request } => {
                return vec!["compared".to_owned(), compared.clone(), request.to_string()]
            }
            FromWorker::Controls(html) => vec!["controls", html],
            FromWorker::Refused(line) => vec!["refused", line],
            FromWorker::Unreadable(line) => vec!["unreadable", line],
            FromWorker::Failed(line) => vec![FAILED, line],
            FromWorker::Crashed(line) => vec![CRASHED, line],
        };
        parts.into_iter().map(str::to_owned).collect()
    }

    /// The message `parts` make, or what is wrong with them.
    pub fn decode(parts: &[String]) -> Result<FromWorker, ProtocolError> {
        let mut fields = Fields::new(parts)?;
        let message = match fields.kind {
            "drawn" => FromWorker::Drawn {
                charts_html: fields.text("charts")?,
                summary: fields.text("summary")?,
                request: fields.number("request number")?,
            },
            "compared" => FromWorker::Compared {
                compared: fields.text("comparison")?,
                request: fields.number("request number")?,
            },
            "controls" => FromWorker::Controls(fields.text("controls")?),
            "refused" => FromWorker::Refused(fields.text("reason")?),
            "unreadable" => FromWorker::Unreadable(fields.text("reason")?),
            FAILED => FromWorker::Failed(fields.text("reason")?),
            CRASHED => FromWorker::Crashed(fields.text("reason")?),
            other => {
                return Err(ProtocolError(format!(
                    "{other:?} is no answer the fleet widget knows"
                )))
            }
        };
        fields.end()?;
        Ok(message)
    }
}
