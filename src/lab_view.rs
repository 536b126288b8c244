//! The knee lab's first screen drawn without the page: what `lab-worker` answers while a page whose address opens on
//! the lab waits for its own wasm and the lab's module (half a megabyte on a slow link). The same settings, sweep,
//! figures and charts as the full lab (`components/widgets/knee_lab/`) and the static pictures (`goodput-pages`),
//! drawn as SVG with their text and tables; the page's script swaps them into the lab's pictures and moves them
//! with a plain load slider until the full lab takes the island over.

use crate::charts::{chart_svg, AnyChart, Chart, ChartStyle, ChartTheme};
use crate::html_writer::HtmlWriter;
use crate::lab::{sweep_for, Figures, LabSettings, Preset};
use crate::lab_protocol::{DrawnChart, FromWorker};
use crate::lesson::island_markup::decode_settings;
use crate::model::SlicedSweep;

/// Each chart's size is clamped to this, CSS px: a page asks for its pictures' size, which no real screen makes larger.
const LARGEST: (u32, u32) = (2000, 1500);
const SMALLEST: (u32, u32) = (200, 150);

/// The lab's settings and its sweep over load, run a pass at a time.
pub struct EarlyLab {
    /// The lesson's settings: the full lab writes only what differs from them into the address.
    defaults: LabSettings,
    /// The lesson's overridden by the address, reconciled.
    settings: LabSettings,
    sweep: SlicedSweep,
}

impl EarlyLab {
    /// The lab of the island's `settings_json` overridden by the address's `query`, its sweep not yet run; refused
    /// when the settings are the full lab's alone or cannot be simulated.
    pub fn start(settings_json: &str, query: &str) -> Result<EarlyLab, String> {
        let (defaults, settings) = Self::settings(settings_json, query)?;
        let sweep = sweep_for(&Self::swept(&settings), &settings.load_points())
            .map_err(|error| error.to_string())?;
        Ok(EarlyLab {
            defaults,
            settings,
            sweep,
        })
    }

    /// The lesson's settings (`settings_json`, the island's) and those the address's `query` makes of them,
    /// reconciled; refused when they run the learner's own server, which only the full lab reads.
    fn settings(settings_json: &str, query: &str) -> Result<(LabSettings, LabSettings), String> {
        let (defaults, _) = LabSettings::from_directive(&decode_settings(settings_json)?);
        let (from_address, _) = defaults.with_query(query);
        if from_address.preset == Preset::Yours {
            return Err(
                "the address runs the learner's own server, which only the full lab reads"
                    .to_owned(),
            );
        }
        let (settings, _) = from_address.reconciled();
        Ok((defaults, settings))
    }

    /// This lab, when `settings_json` and `query` run the same sweep (a slider move: what has been run is kept),
    /// else the lab they make.
    pub fn or_start(self, settings_json: &str, query: &str) -> Result<EarlyLab, String> {
        let (defaults, settings) = Self::settings(settings_json, query)?;
        if defaults == self.defaults && Self::swept(&settings) == Self::swept(&self.settings) {
            return Ok(EarlyLab { settings, ..self });
        }
        Self::start(settings_json, query)
    }

    /// What the sweep depends on: everything but the load and what is only drawn (as the full lab's sweep).
    fn swept(settings: &LabSettings) -> LabSettings {
        LabSettings {
            load_percent: 100,
            metric: Default::default(),
            scale: Default::default(),
            ..settings.clone()
        }
    }

    /// Runs the sweep to the end of its next pass.
    pub fn run_pass(&mut self) {
        while !self.sweep.is_done() && !self.sweep.step(u64::MAX) {}
    }

    /// Whether a pass has run, so there is something to draw.
    pub fn has_run(&self) -> bool {
        self.sweep.passes_done() > 0
    }

    /// Whether every load has its full run.
    pub fn converged(&self) -> bool {
        self.sweep.is_done()
    }

    /// The first screen at `load_percent` (the settings' own load when `None`, clamped to the lab's range) from the
    /// sweep so far, each chart `size` CSS px in `theme`, answering request `request` for an address whose query is
    /// `query`.
    pub fn draw(
        &self,
        load_percent: Option<u32>,
        query: &str,
        size: (u32, u32),
        theme: ChartTheme,
        request: u32,
    ) -> Result<FromWorker, String> {
        let settings = LabSettings {
            load_percent: load_percent.unwrap_or(self.settings.load_percent),
            ..self.settings.clone()
        };
        let settings = LabSettings {
            load_percent: settings.effective_load_percent(),
            ..settings
        };
        let points: Vec<_> = self.sweep.points().collect();
        let figures = Figures::new(&settings, &points);
        let (width, height) = (
            size.0.clamp(SMALLEST.0, LARGEST.0),
            size.1.clamp(SMALLEST.1, LARGEST.1),
        );
        let style = ChartStyle::new(theme, 1.0);
        let drawn = |chart: AnyChart| -> Result<DrawnChart, String> {
            Ok(DrawnChart {
                svg: chart_svg(&chart, &style, width, height)?,
                summary: chart.summary(),
                table_html: table_html(&chart),
            })
        };
        Ok(FromWorker::Drawn {
            request,
            load_percent: settings.load_percent,
            query: with_load(query, &settings, &self.defaults),
            converged: self.converged(),
            charts: [
                drawn(AnyChart::new(figures.latency))?,
                drawn(AnyChart::new(figures.throughput))?,
            ],
        })
    }
}

/// The address's `query` with the load of `settings` written in as the full lab writes it (nothing when it is the
/// lesson's), and every other parameter left as it was: a value the full lab will clamp keeps its note for it.
fn with_load(query: &str, settings: &LabSettings, defaults: &LabSettings) -> String {
    const LOAD: &str = "load";
    let load = settings
        .to_query_pairs(defaults)
        .into_iter()
        .filter(|(key, _)| *key == LOAD)
        .map(|(key, value)| (key.to_owned(), value));
    crate::address::replace_params(query, |key| key == LOAD, load)
}

/// The chart's data as the `<table>` its "Data table" disclosure holds (as the static page writes it).
fn table_html(chart: &dyn Chart) -> String {
    let mut m = HtmlWriter::new();
    m.data_table(&chart.table());
    m.finish()
}
