//! Charts as pictures for readers without JavaScript (and for print): drawn at build time into SVG files by the same
//! chart code the page draws on its canvases, light and dark, with the chart's summary as the `alt` text and its data
//! table beside it, as the live chart has.

use super::writer::HtmlWriter;
use super::{Asset, PagesError};
use crate::charts::{chart_svg, ChartSpec, ChartStyle, ChartTheme};

/// The size the pictures are drawn at, in CSS pixels; the page scales them to its column.
const WIDTH: u32 = 720;
const HEIGHT: u32 = 360;

/// One chart drawn for the page, ready to be written as a `<figure>`.
#[derive(Debug, Clone, PartialEq)]
pub struct Picture {
    /// The figure's caption, as the live chart's.
    pub caption: String,
    /// The chart's one-sentence summary: the image's `alt`.
    pub summary: String,
    /// The chart's data table.
    pub table: crate::charts::DataTable,
    /// The light picture, then the dark one.
    pub files: [Asset; 2],
    /// Its size, CSS px.
    pub size: (u32, u32),
}

/// Draws `spec` as `<stem>-light.svg` and `<stem>-dark.svg` (site paths), at the size of the lab's charts.
pub fn draw(stem: &str, spec: &ChartSpec, caption: &str) -> Result<Picture, PagesError> {
    draw_sized(stem, spec, caption, (WIDTH, HEIGHT))
}

/// [`draw`] at `size` (CSS px), for a chart that needs more room than the lab's.
pub fn draw_sized(
    stem: &str,
    spec: &ChartSpec,
    caption: &str,
    (width, height): (u32, u32),
) -> Result<Picture, PagesError> {
    let file = |theme: ChartTheme, suffix: &str| -> Result<Asset, PagesError> {
        let contents = chart_svg(spec, &ChartStyle::new(theme, 1.0), width, height)
            .map_err(|error| PagesError::Picture(format!("{stem}: {error}")))?;
        Ok(Asset {
            path: format!("{stem}-{suffix}.svg"),
            contents,
        })
    };
    Ok(Picture {
        caption: caption.to_owned(),
        summary: spec.summary(),
        table: spec.table(),
        files: [
            file(ChartTheme::Light, "light")?,
            file(ChartTheme::Dark, "dark")?,
        ],
        size: (width, height),
    })
}

/// `<figure>` with the picture (dark where the system prefers it: without JavaScript the theme picker cannot run,
/// so the system's choice is the reader's), its caption and its data table in a `<details>`.
pub fn write_figure(m: &mut HtmlWriter, picture: &Picture) {
    let [light, dark] = &picture.files;
    m.element("figure", &[("class", "chart chart-static")], |m| {
        m.text_element("figcaption", &[], &picture.caption);
        m.element("picture", &[], |m| {
            m.void(
                "source",
                &[
                    ("media", "(prefers-color-scheme: dark)"),
                    ("srcset", &dark.path),
                ],
            );
            m.void(
                "img",
                &[
                    ("src", &light.path),
                    ("alt", &picture.summary),
                    ("width", &picture.size.0.to_string()),
                    ("height", &picture.size.1.to_string()),
                    ("loading", "lazy"),
                    ("decoding", "async"),
                ],
            );
        });
        write_table(m, &picture.caption, &picture.table);
    });
}

/// The data table as the live chart shows it: folded, and scrollable by keyboard when wider than a phone.
fn write_table(m: &mut HtmlWriter, caption: &str, table: &crate::charts::DataTable) {
    m.element("details", &[("class", "chart-data")], |m| {
        m.text_element("summary", &[], &format!("Data table: {caption}"));
        let label = format!("{caption} data");
        m.element(
            "div",
            &[
                ("class", "scroll-x"),
                ("tabindex", "0"),
                ("role", "region"),
                ("aria-label", &label),
            ],
            |m| {
                m.element("table", &[], |m| {
                    m.element("thead", &[], |m| {
                        m.element("tr", &[], |m| {
                            for heading in &table.header {
                                m.text_element("th", &[("scope", "col")], heading);
                            }
                        });
                    });
                    m.element("tbody", &[], |m| {
                        for row in &table.rows {
                            m.element("tr", &[], |m| {
                                for cell in row {
                                    m.text_element("td", &[], cell);
                                }
                            });
                        }
                    });
                });
            },
        );
    });
}
