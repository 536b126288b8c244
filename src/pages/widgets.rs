//! Widgets on the static page: each is an island holding what a reader without JavaScript gets instead — the
//! lab's curves at the lesson's settings as pictures, the sizer's arithmetic at its defaults, the metrics reader's
//! command-line twin — with one line saying the live version needs JavaScript.

use super::pictures::{self, Picture};
use super::{Asset, PagesError};
use goodput::charts::followed_sentence;
use goodput::charts::AnyChart;
use goodput::cluster::sizing::{size, SizingField};
use goodput::html_writer::HtmlWriter;
use goodput::lab::{sweep_for, timeline_figures, Figures, LabSettings};
use goodput::lesson::island_markup::{self as islands, IslandKind};
use goodput::lesson::{WidgetEmbed, WidgetName};
use goodput::views::widget_frame::WidgetFrame;
use leptos::prelude::*;
use leptos::tachys::html::InertElement;

/// What a widget's fallback shows, worked out before the page is written.
#[derive(Debug)]
pub enum WidgetFallback {
    /// The knee lab or the goodput chart: its charts at the lesson's settings, and for the knee lab the range and
    /// value of the load slider its first screen gets before the page's wasm runs (`src/boot.js`).
    Charts {
        pictures: Vec<Picture>,
        first_load: Option<FirstLoad>,
    },
    /// The sizer: its arithmetic at its starting inputs.
    Arithmetic(Vec<String>),
    /// The metrics reader: nothing to compute.
    Note,
    /// The fleet's day at the widget's defaults: both charts, the day's summary and the controls in words.
    Fleet {
        pictures: Vec<Picture>,
        lines: Vec<String>,
    },
    /// The batch timeline: its picture at the lesson's settings, the followed request's story and the step-time
    /// formula.
    Timeline {
        /// The timeline.
        picture: Box<Picture>,
        /// Paragraphs under it.
        lines: Vec<String>,
    },
}

impl WidgetFallback {
    /// The files the fallback refers to.
    pub fn assets(&self) -> Vec<Asset> {
        match self {
            WidgetFallback::Charts { pictures, .. } => {
                pictures.iter().flat_map(|p| p.files.clone()).collect()
            }
            WidgetFallback::Timeline { picture, .. } => picture.files.to_vec(),
            WidgetFallback::Fleet { pictures, .. } => {
                pictures.iter().flat_map(|p| p.files.clone()).collect()
            }
            _ => Vec::new(),
        }
    }
}

/// The widget's id: the lesson's, or one made from its position (as the live widget makes it).
pub fn widget_id(widget: &WidgetEmbed, index: usize) -> String {
    widget
        .id
        .clone()
        .unwrap_or_else(|| format!("widget-{index}"))
}

/// Computes `widget`'s fallback; pictures are named after `stem` (a site path without extension).
pub fn fallback(widget: &WidgetEmbed, stem: &str) -> Result<WidgetFallback, PagesError> {
    Ok(match widget.name {
        WidgetName::KneeLab | WidgetName::GoodputChart => {
            let (settings, _) = LabSettings::from_directive(&widget.settings);
            let figures = lab_figures(widget, &settings)?;
            let mut charts = vec![(
                "throughput",
                AnyChart::new(figures.throughput.clone()),
                "Throughput and goodput against offered load",
            )];
            if widget.name == WidgetName::KneeLab {
                charts.insert(
                    0,
                    (
                        "latency",
                        AnyChart::new(figures.latency.clone()),
                        "Latency against offered load",
                    ),
                );
            }
            let pictures = charts
                .iter()
                .map(|(name, spec, caption)| {
                    pictures::draw(&format!("{stem}-{name}"), spec, caption)
                })
                .collect::<Result<_, _>>()?;
            let (lowest, highest) = settings.load_range_percent();
            let first_load = (widget.name == WidgetName::KneeLab).then(|| FirstLoad {
                lowest,
                highest,
                percent: settings.effective_load_percent(),
            });
            WidgetFallback::Charts {
                pictures,
                first_load,
            }
        }
        WidgetName::LittlesLawSizer => {
            let input =
                SizingField::input_from(|key, default| widget.number_setting(key, default).0);
            match size(&input) {
                Ok(sizing) => WidgetFallback::Arithmetic(sizing.arithmetic),
                Err(errors) => {
                    WidgetFallback::Arithmetic(errors.into_iter().map(|e| e.message).collect())
                }
            }
        }
        WidgetName::MetricsReader => WidgetFallback::Note,
        WidgetName::BatchTimeline => timeline_fallback(widget, stem)?,
        WidgetName::FleetDay => fleet_fallback(stem)?,
    })
}

/// The batch timeline's picture at the lesson's settings, with what the live widget says beside it.
fn timeline_fallback(widget: &WidgetEmbed, stem: &str) -> Result<WidgetFallback, PagesError> {
    let (settings, view, _) = goodput::lab::timeline::from_directive(&widget.settings);
    let figures = timeline_figures(&settings, &view);
    let spec = figures.main.clone();
    let picture = pictures::draw_sized(
        &format!("{stem}-timeline"),
        &spec,
        goodput::lab::timeline::CAPTION,
        TIMELINE_SIZE,
    )?;
    let mut lines: Vec<String> = figures
        .main
        .followed
        .iter()
        .map(followed_sentence)
        .collect();
    lines.push(format!(
        "{}. {}",
        figures.formula.text(),
        figures.formula.source
    ));
    Ok(WidgetFallback::Timeline {
        picture: Box::new(picture),
        lines,
    })
}

/// Where the static fleet pictures are scrubbed to: the end of the morning's ramp.
const FLEET_AT: f64 = 1200.0;

/// The fleet widget's day at its defaults, drawn by the code its worker runs, and its summary (the note above the
/// pictures says what the controls do).
fn fleet_fallback(stem: &str) -> Result<WidgetFallback, PagesError> {
    use goodput::charts::fleet::FleetPanel;
    use goodput::charts::ChartStyle;
    let failed = |error: String| PagesError::Picture(format!("fleet-day: {error}"));
    let day = goodput::fleet_view::simulate_day(&Default::default()).map_err(failed)?;
    let data = goodput::fleet_view::chart_data(&day, FLEET_AT);
    let pictures = FleetPanel::ALL
        .iter()
        .map(|&panel| {
            let sizes = pictures::Sizes {
                wide: (720, panel.height(720)),
                narrow: (360, panel.height(360)),
            };
            pictures::draw_with(
                &format!("{stem}-fleet-{}", panel.key()),
                panel.caption(),
                panel.summary(&data),
                // No table: the `alt` reads the figures at the scrubbed time and the line above them the day's, and
                // the lesson page's bytes are the first visit's (the live widget's tables have a row a minute).
                goodput::charts::DataTable::default(),
                sizes,
                |theme, (width, _)| panel.svg(&data, &ChartStyle::new(theme, 1.0), width),
            )
        })
        .collect::<Result<_, _>>()?;
    let lines = vec![format!(
        "The day: {}",
        goodput::fleet_view::summary_line(&day.summary)
    )];
    Ok(WidgetFallback::Fleet { pictures, lines })
}

/// The timeline picture's size: wide and tall enough for 64 slot rows.
const TIMELINE_SIZE: pictures::Sizes = pictures::Sizes {
    wide: (960, 540),
    narrow: (360, 480),
};

/// The knee lab's load slider before the page's wasm runs: its range and starting value, percent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FirstLoad {
    pub lowest: u32,
    pub highest: u32,
    pub percent: u32,
}

/// The lab's figures at the widget's `settings`, from the same sweep the page runs, run to the end.
fn lab_figures(widget: &WidgetEmbed, settings: &LabSettings) -> Result<Figures, PagesError> {
    // As in the page: the sweep covers every load; the settings' own load picks the point the readouts describe.
    let sweep_settings = LabSettings {
        load_percent: 100,
        metric: Default::default(),
        ..settings.clone()
    };
    let mut sweep = sweep_for(&sweep_settings, &settings.load_points())
        .map_err(|error| PagesError::Picture(format!("{}: {error}", widget.name.as_str())))?;
    while !sweep.is_done() {
        sweep.step(u64::MAX);
    }
    let points: Vec<_> = sweep.points().collect();
    Ok(Figures::new(settings, &points))
}

/// The widget's island: its frame ([`goodput::views::widget_frame`], the live widget's) around the fallback.
pub fn write_widget(
    m: &mut HtmlWriter,
    widget: &'static WidgetEmbed,
    id: &str,
    fallback: &WidgetFallback,
    screen: &[(&str, &str)],
) {
    let name = widget.name.as_str();
    let settings = islands::encode_settings(&widget.settings);
    let mut attributes = screen.to_vec();
    attributes.extend([
        (islands::ISLAND, IslandKind::Widget.as_str()),
        ("class", "island island-widget"),
        (islands::WIDGET, name),
        (islands::WIDGET_ID, id),
        (
            islands::MODULE,
            islands::Module::of_widget(widget.name).as_str(),
        ),
        (islands::SETTINGS, settings.as_str()),
    ]);
    let mut body = HtmlWriter::new();
    write_fallback(&mut body, widget.name, id, fallback);
    let body = InertElement::new(body.finish());
    let id = id.to_owned();
    super::write_island(
        m,
        &attributes,
        view! { <WidgetFrame widget id>{body}</WidgetFrame> },
    );
}

fn write_fallback(m: &mut HtmlWriter, name: WidgetName, id: &str, fallback: &WidgetFallback) {
    let (without_js, what) = match name {
        WidgetName::KneeLab => (
            "A picture of the lab at the lesson's settings. The live lab — sliders, four charts, the simulated /metrics — needs JavaScript.",
            "the lab",
        ),
        WidgetName::GoodputChart => (
            "A picture of the chart at the lesson's settings. Moving the load needs JavaScript.",
            "the chart",
        ),
        WidgetName::LittlesLawSizer => (
            "The sizer's arithmetic at its starting numbers. Trying your own numbers needs JavaScript.",
            "the sizer",
        ),
        WidgetName::BatchTimeline => (
            "A picture of the timeline at the lesson's settings. Moving the load, switching chunked prefill and following another request need JavaScript.",
            "the timeline",
        ),
        WidgetName::FleetDay => (
            "Pictures of the morning ramp at the widget's defaults. With JavaScript you pick the signal (GPU utilisation, requests waiting, TTFT p99, KV-cache usage), the router, the start-up delay and the traffic, and scrub through the day.",
            "the fleet",
        ),
        WidgetName::MetricsReader => (
            "Reading a pasted /metrics page needs JavaScript. On a terminal, tools/cluster-probe.sh HOST:PORT or goodput-sim metrics reads a live server the same way.",
            "the reader",
        ),
    };
    m.element("p", &[("class", "widget-static-note")], |m| {
        m.text_element("span", &[("class", "no-js-only")], without_js);
        m.text_element(
            "span",
            &[("class", "js-only")],
            &format!("Starting {what}…"),
        );
    });
    match fallback {
        WidgetFallback::Charts {
            pictures,
            first_load,
        } => {
            m.element("div", &[("class", "lab-charts lab-charts-static")], |m| {
                for picture in pictures {
                    pictures::write_figure(m, picture);
                }
            });
            if let Some(first_load) = first_load {
                write_first_load(m, id, first_load);
            }
        }
        WidgetFallback::Arithmetic(lines) => {
            m.element("ol", &[("class", "sizer-arithmetic")], |m| {
                for line in lines {
                    m.text_element("li", &[], line);
                }
            });
        }
        WidgetFallback::Timeline { picture, lines } => {
            m.element(
                "div",
                &[("class", "batch-timeline batch-timeline-static")],
                |m| {
                    pictures::write_figure(m, picture);
                    for line in lines {
                        m.text_element("p", &[("class", "timeline-static-text")], line);
                    }
                },
            );
        }
        WidgetFallback::Fleet { pictures, lines } => {
            m.element("div", &[("class", "lab-charts lab-charts-static")], |m| {
                for line in lines {
                    m.text_element("p", &[("class", "timeline-static-text")], line);
                }
                for picture in pictures {
                    pictures::write_figure(m, picture);
                }
            });
        }
        WidgetFallback::Note => {}
    }
}

/// The knee lab's first load slider: hidden until `src/boot.js` has the lab's first screen drawn by the lab's
/// worker (on an address that opens on the lab, before the page's wasm has arrived), then it moves those pictures.
/// The full lab replaces it, reading the load it left in the address.
fn write_first_load(m: &mut HtmlWriter, id: &str, load: &FirstLoad) {
    let input = format!("{id}-first-load");
    let percent = load.percent.to_string();
    m.element("div", &[("class", "lab-load lab-first"), ("hidden", "")], |m| {
        m.text_element("label", &[("for", input.as_str())], "Offered load");
        m.void(
            "input",
            &[
                ("id", input.as_str()),
                ("type", "range"),
                ("min", &load.lowest.to_string()),
                ("max", &load.highest.to_string()),
                ("step", "1"),
                ("value", percent.as_str()),
                ("aria-valuetext", &format!("{percent}% of saturation")),
            ],
        );
        m.text_element(
            "output",
            &[("for", input.as_str()), ("class", "lab-load-value")],
            &format!("{percent}%"),
        );
        m.text_element(
            "p",
            &[("class", "lab-first-note")],
            "The rest of the lab — its other controls, charts and the simulated /metrics — is still loading.",
        );
    });
}

/// The `<meta>` that tells `src/boot.js` which anchor opens on the knee lab (`widget`, whose island is `id`) and
/// the lesson's settings for it, so that on such an address it can have the lab's worker draw the lab's first
/// screen before the page's wasm has arrived.
pub fn lab_first_meta(widget: &WidgetEmbed, id: &str) -> Option<String> {
    (widget.name == WidgetName::KneeLab).then(|| {
        let mut m = HtmlWriter::new();
        m.void(
            "meta",
            &[
                ("name", "goodput-lab-first"),
                ("content", id),
                (
                    islands::SETTINGS,
                    &islands::encode_settings(&widget.settings),
                ),
            ],
        );
        m.finish()
    })
}
