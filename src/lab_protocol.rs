//! The messages between a page whose address opens on the knee lab and its `lab-worker` (`src/bin/lab-worker/`),
//! which draws the lab's first screen before the page's wasm has arrived ([`crate::lab_view`]). Arrays of strings,
//! the kind first, read with [`crate::server_protocol`]'s field reader. The page's side is JavaScript
//! (`src/boot.js`), so [`FromWorker::encode`]'s order is what it reads; `tests/lab_first_screen.rs` checks both.

use crate::charts::ChartTheme;
use crate::server_protocol::{Fields, ProtocolError, CRASHED};

/// What the page asks of the worker.
#[derive(Clone, Debug, PartialEq)]
pub enum ToWorker {
    /// Draw the lab's first screen: the lesson's settings (the island's `data-settings` JSON) overridden by the
    /// address's `query`, at `load_percent` (`None`: the settings' own load), each chart `width`×`height` CSS px
    /// in `theme`; `request` numbers the question so an answer to an older one can be dropped.
    Draw {
        settings: String,
        query: String,
        load_percent: Option<u32>,
        width: u32,
        height: u32,
        theme: ChartTheme,
        request: u32,
    },
}

/// One chart of the first screen as the page shows it: the picture, its one-sentence text and its data table.
#[derive(Clone, Debug, PartialEq)]
pub struct DrawnChart {
    /// An SVG document.
    pub svg: String,
    /// The picture's `alt`.
    pub summary: String,
    /// The `<table>` in the chart's "Data table" disclosure, as HTML.
    pub table_html: String,
}

/// What the worker answers.
#[derive(Clone, Debug, PartialEq)]
pub enum FromWorker {
    /// The first screen for request `request`: the load drawn, the address's query with that load in it (as the
    /// full lab writes it; its other parameters as they were), whether the sweep has converged (more answers follow until it has), and the
    /// latency and throughput charts.
    Drawn {
        request: u32,
        load_percent: u32,
        query: String,
        converged: bool,
        charts: [DrawnChart; 2],
    },
    /// These settings are the full lab's alone (the learner's own server, kept in this browser's storage), or
    /// cannot be simulated: why. The page waits for the full lab.
    Refused(String),
    /// The worker could not read the page's message: why.
    Unreadable(String),
    /// The worker failed while it ran: what it said.
    Crashed(String),
}

impl ToWorker {
    /// The message on the wire.
    pub fn encode(&self) -> Vec<String> {
        let ToWorker::Draw {
            settings,
            query,
            load_percent,
            width,
            height,
            theme,
            request,
        } = self;
        vec![
            "draw".to_owned(),
            settings.clone(),
            query.clone(),
            load_percent.map_or_else(String::new, |load| load.to_string()),
            width.to_string(),
            height.to_string(),
            theme.key().to_owned(),
            request.to_string(),
        ]
    }

    /// The message `parts` make, or what is wrong with them.
    pub fn decode(parts: &[String]) -> Result<ToWorker, ProtocolError> {
        let mut fields = Fields::new(parts)?;
        if fields.kind != "draw" {
            return Err(ProtocolError(format!(
                "{:?} is no request the lab worker knows",
                fields.kind
            )));
        }
        let settings = fields.text("settings")?;
        let query = fields.text("query")?;
        let load_percent = match fields.text("load")?.as_str() {
            "" => None,
            text => Some(text.parse().map_err(|_| {
                fields.error("load", &format!("is {text:?}, not a whole percentage"))
            })?),
        };
        let width = fields.number("width")?;
        let height = fields.number("height")?;
        let theme = fields.pick("theme", &ChartTheme::ALL, ChartTheme::key)?;
        let request = fields.number("request number")?;
        fields.end()?;
        Ok(ToWorker::Draw {
            settings,
            query,
            load_percent,
            width,
            height,
            theme,
            request,
        })
    }
}

impl FromWorker {
    /// The message on the wire: `["drawn", request, load, query, "converged"|"rough", then svg, summary, table for
    /// the latency chart and the same for the throughput chart]`, or `[kind, reason]`.
    pub fn encode(&self) -> Vec<String> {
        let (kind, reason) = match self {
            FromWorker::Drawn {
                request,
                load_percent,
                query,
                converged,
                charts,
            } => {
                let mut parts = vec![
                    "drawn".to_owned(),
                    request.to_string(),
                    load_percent.to_string(),
                    query.clone(),
                    (if *converged { "converged" } else { "rough" }).to_owned(),
                ];
                for chart in charts {
                    parts.extend([
                        chart.svg.clone(),
                        chart.summary.clone(),
                        chart.table_html.clone(),
                    ]);
                }
                return parts;
            }
            FromWorker::Refused(reason) => ("refused", reason),
            FromWorker::Unreadable(reason) => ("unreadable", reason),
            FromWorker::Crashed(reason) => (CRASHED, reason),
        };
        vec![kind.to_owned(), reason.clone()]
    }
}
