//! Charts as pictures for readers without JavaScript (and for print): drawn at build time into SVG files by the same
//! chart code the page draws on its canvases, light and dark, with the chart's summary as the `alt` text and its data
//! table beside it, as the live chart has.

use super::{Asset, PagesError};
use goodput::charts::{chart_svg, Chart, ChartStyle, ChartTheme};
use goodput::html_writer::HtmlWriter;
use goodput::views::data_table::folded_table_html;

/// Screens that get the narrow picture.
const NARROW_MEDIA: &str = "(max-width: 600px)";

/// One chart drawn for the page, ready to be written as a `<figure>`.
#[derive(Debug, Clone, PartialEq)]
pub struct Picture {
    /// The figure's caption, as the live chart's.
    pub caption: String,
    /// The chart's one-sentence summary: the image's `alt`.
    pub summary: String,
    /// The chart's data table.
    pub table: goodput::charts::DataTable,
    /// Light and dark, wide then narrow.
    pub files: [Asset; 4],
    /// The wide pictures' size and the narrow ones', CSS px.
    pub sizes: Sizes,
}

/// A picture's size on a laptop's column and on a phone's, CSS px.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sizes {
    pub wide: (u32, u32),
    pub narrow: (u32, u32),
}

/// The lab's charts: a laptop's column, and a phone's, where the chart code lays a chart out for a narrow screen
/// (its legend and labels fit, not shrunk).
pub const LAB_CHART: Sizes = Sizes {
    wide: (720, 360),
    narrow: (360, 330),
};

/// Draws `spec` as `<stem>-light.svg`, `<stem>-dark.svg`, `<stem>-light-narrow.svg` and `<stem>-dark-narrow.svg`
/// (site paths), at the size of the lab's charts.
pub fn draw(stem: &str, spec: &dyn Chart, caption: &str) -> Result<Picture, PagesError> {
    draw_sized(stem, spec, caption, LAB_CHART)
}

/// [`draw`] at `sizes`, for a chart that needs more room than the lab's.
pub fn draw_sized(
    stem: &str,
    spec: &dyn Chart,
    caption: &str,
    sizes: Sizes,
) -> Result<Picture, PagesError> {
    draw_with(
        stem,
        caption,
        spec.summary(),
        spec.table(),
        sizes,
        |theme, (width, height)| chart_svg(spec, &ChartStyle::new(theme, 1.0), width, height),
    )
}

/// A picture drawn by `draw` (an SVG document of a theme and size), for charts that are no [`Chart`] kind, such as the
/// fleet widget's, which its worker draws.
pub fn draw_with(
    stem: &str,
    caption: &str,
    summary: String,
    table: goodput::charts::DataTable,
    sizes: Sizes,
    draw: impl Fn(ChartTheme, (u32, u32)) -> Result<String, String>,
) -> Result<Picture, PagesError> {
    let file = |theme: ChartTheme, size: (u32, u32), suffix: &str| {
        let contents =
            draw(theme, size).map_err(|error| PagesError::Picture(format!("{stem}: {error}")))?;
        Ok::<_, PagesError>(Asset {
            path: format!("{stem}-{suffix}.svg"),
            contents,
        })
    };
    Ok(Picture {
        caption: caption.to_owned(),
        summary,
        table,
        files: [
            file(ChartTheme::Light, sizes.wide, "light")?,
            file(ChartTheme::Dark, sizes.wide, "dark")?,
            file(ChartTheme::Light, sizes.narrow, "light-narrow")?,
            file(ChartTheme::Dark, sizes.narrow, "dark-narrow")?,
        ],
        sizes,
    })
}

/// `<figure>` with the picture (dark where the system prefers it: without JavaScript the theme picker cannot run,
/// so the system's choice is the reader's; narrow on a phone), its caption and its data table in a `<details>`.
pub fn write_figure(m: &mut HtmlWriter, picture: &Picture) {
    m.element("figure", &[("class", "chart chart-static")], |m| {
        write_figure_contents(m, picture)
    });
}

/// What [`write_figure`] writes inside the `<figure>`: the caption, the picture and its data table.
pub fn write_figure_contents(m: &mut HtmlWriter, picture: &Picture) {
    let [light, dark, light_narrow, dark_narrow] = &picture.files;
    let dark_media = "(prefers-color-scheme: dark)";
    let dark_narrow_media = format!("{dark_media} and {NARROW_MEDIA}");
    // The first source that matches wins: the narrow pictures first, each in its theme.
    let sources = [
        (
            dark_narrow_media.as_str(),
            dark_narrow,
            picture.sizes.narrow,
        ),
        (dark_media, dark, picture.sizes.wide),
        (NARROW_MEDIA, light_narrow, picture.sizes.narrow),
    ];
    m.text_element("figcaption", &[], &picture.caption);
    m.element("picture", &[], |m| {
        for (media, file, (width, height)) in sources {
            m.void(
                "source",
                &[
                    ("media", media),
                    ("srcset", &file.path),
                    ("width", &width.to_string()),
                    ("height", &height.to_string()),
                ],
            );
        }
        m.void(
            "img",
            &[
                ("src", &light.path),
                ("alt", &picture.summary),
                ("width", &picture.sizes.wide.0.to_string()),
                ("height", &picture.sizes.wide.1.to_string()),
                ("loading", "lazy"),
                ("decoding", "async"),
            ],
        );
    });
    // A picture whose figures are all in its `alt` (the fleet's) comes without a table.
    if !picture.table.header.is_empty() {
        m.trusted(&folded_table_html(&picture.table, &picture.caption));
    }
}
