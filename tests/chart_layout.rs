//! Every chart in every theme, at a projector's scale and on a phone: backgrounds, type and line sizes, and no two
//! labels overlapping.

use goodput::charts::surface::{estimated_text_size, Paint, Surface, SurfaceResult, TextSpec};
use goodput::charts::{
    latency_vs_load, throughput_summary, throughput_table, AnyChart, Chart, ChartBackend,
    ChartStyle, ChartTheme, PlotRect, PredictionChart, PredictionMetric,
};
use plotters::prelude::IntoDrawingArea;
use plotters::style::text_anchor::{HPos, VPos};
use plotters::style::FontTransform;
use plotters_backend::BackendCoord;

#[path = "support/chart_samples.rs"]
mod chart_samples;
use chart_samples::{
    goodput_sweep, growing_queue, knee_sweep, render, shedding_sweep, tail_heavy_samples,
};
#[path = "support/svg_text.rs"]
mod svg_text;
use svg_text::*;

// ---------------------------------------------------------------- themes and scale

#[test]
fn every_theme_paints_its_own_background_and_scales_with_the_device() {
    for (theme, background) in [
        (ChartTheme::Light, "#FFFFFF"),
        (ChartTheme::Dark, "#121418"),
        (ChartTheme::HighContrast, "#FFFFFF"),
    ] {
        let svg = render(1200, 600, |area| {
            latency_vs_load(area, &knee_sweep(), &ChartStyle::new(theme, 1.0))
        });
        assert!(svg.contains(&format!("fill=\"{background}\"")), "{theme:?}");
    }
    let crisp = ChartStyle::new(ChartTheme::Light, 2.0);
    assert_eq!(crisp.px(crisp.line_px), 5);
    assert!(
        ChartStyle::new(ChartTheme::Light, 1.0).text_px >= 14.0,
        "labels legible from the back of a room"
    );
    assert_eq!(ChartStyle::new(ChartTheme::Light, f64::NAN).scale, 1.0);
}

#[test]
fn a_projected_chart_has_larger_type_and_thicker_lines_at_the_same_pixel_scale() {
    let desk = ChartStyle::new(ChartTheme::HighContrast, 2.0);
    let projected = desk.clone().with_projection(2.0);
    assert_eq!(
        projected.scale, desk.scale,
        "the canvas resolution is the device's, not the projection's"
    );
    assert_eq!(projected.text_px, 2.0 * desk.text_px);
    assert_eq!(projected.title_px, 2.0 * desk.title_px);
    assert_eq!(projected.px(projected.line_px), 2 * desk.px(desk.line_px));
    assert_eq!(
        desk.clone().with_projection(0.5),
        desk,
        "projection never shrinks a chart"
    );
    assert_eq!(desk.clone().with_projection(f64::INFINITY), desk);
    let svg = render(1920, 1080, |area| {
        latency_vs_load(area, &knee_sweep(), &projected)
    });
    assert!(svg.contains("p99"), "a projected chart still draws");
}

#[test]
fn one_chart_spec_gives_the_picture_the_label_and_the_table_from_the_same_data() {
    use goodput::charts::chart_svg;
    let spec = goodput_sweep();
    assert_eq!(spec.summary(), throughput_summary(&goodput_sweep()));
    assert_eq!(spec.table(), throughput_table(&goodput_sweep()));
    let svg = chart_svg(&spec, &style(), 1200, 600).expect("svg");
    assert!(has_text(&svg, "work you paid for but can't count"));
    assert!(
        svg.contains("font-size=\"14\""),
        "SVG text is the same 14 px as on the canvas, not 14 ÷ 1.24"
    );
}

#[test]
fn projected_type_grows_with_the_screen_but_never_past_what_the_chart_holds() {
    use goodput::charts::ChartStyle;
    // A big chart on a big screen takes the screen's factor; a small one is capped by its own size.
    assert_eq!(ChartStyle::fit_projection(2.7, 1700.0, 1000.0), 2.7);
    assert_eq!(ChartStyle::fit_projection(2.7, 400.0, 280.0), 1.0);
    assert!((ChartStyle::fit_projection(2.7, 630.0, 280.0) - 1.12).abs() < 1e-9);
    assert!((ChartStyle::fit_projection(2.7, 765.0, 540.0) - 1.7).abs() < 1e-9);
    // The lesson page (factor 1) and nonsense stay at 1.
    assert_eq!(ChartStyle::fit_projection(1.0, 2000.0, 2000.0), 1.0);
    assert_eq!(ChartStyle::fit_projection(f64::NAN, 800.0, 400.0), 1.0);
    assert_eq!(ChartStyle::fit_projection(3.0, 0.0, 0.0), 1.0);
}

// ---------------------------------------------------------------- layout on a phone

/// One text a chart drew and the box it covers, in device pixels: `(left, top, right, bottom)`.
#[derive(Clone, Debug)]
struct Placed {
    text: String,
    rect: (f64, f64, f64, f64),
}

impl Placed {
    fn overlaps(&self, other: &Placed) -> bool {
        let (a, b) = (self.rect, other.rect);
        a.0 < b.2 && b.0 < a.2 && a.1 < b.3 && b.1 < a.3
    }
}

/// A surface that keeps where every text went, measured as the SVG surface measures it (generous: 0.6 em a
/// character, where real sans-serif digits are 0.55 em), so a layout that fits here fits on the canvas.
struct TextRecorder<'a> {
    size: (u32, u32),
    placed: &'a mut Vec<Placed>,
}

impl Surface for TextRecorder<'_> {
    fn size(&self) -> (u32, u32) {
        self.size
    }
    fn line(&mut self, _: BackendCoord, _: BackendCoord, _: Paint) -> SurfaceResult {
        Ok(())
    }
    fn rect(&mut self, _: BackendCoord, _: BackendCoord, _: Paint, _: bool) -> SurfaceResult {
        Ok(())
    }
    fn path(&mut self, _: &[BackendCoord], _: Paint) -> SurfaceResult {
        Ok(())
    }
    fn polygon(&mut self, _: &[BackendCoord], _: Paint) -> SurfaceResult {
        Ok(())
    }
    fn circle(&mut self, _: BackendCoord, _: u32, _: Paint, _: bool) -> SurfaceResult {
        Ok(())
    }
    fn text(&mut self, text: &str, spec: &TextSpec<'_>, (x, y): BackendCoord) -> SurfaceResult {
        if text.is_empty() {
            return Ok(());
        }
        let (w, h) = estimated_text_size(text, spec);
        let (w, h) = (f64::from(w), f64::from(h));
        let dx = match spec.anchor.h_pos {
            HPos::Left => 0.0,
            HPos::Center => -w / 2.0,
            HPos::Right => -w,
        };
        let dy = match spec.anchor.v_pos {
            VPos::Top => 0.0,
            VPos::Center => -h / 2.0,
            VPos::Bottom => -h,
        };
        // The corners of the text's box around its anchor, turned as the text is (the y axis description reads
        // upwards), then moved to where it was drawn.
        let corners = [(dx, dy), (dx + w, dy), (dx, dy + h), (dx + w, dy + h)].map(|(cx, cy)| {
            let (tx, ty) = match spec.transform {
                FontTransform::None => (cx, cy),
                FontTransform::Rotate90 => (-cy, cx),
                FontTransform::Rotate180 => (-cx, -cy),
                FontTransform::Rotate270 => (cy, -cx),
            };
            (f64::from(x) + tx, f64::from(y) + ty)
        });
        let xs = corners.map(|c| c.0);
        let ys = corners.map(|c| c.1);
        let min = |v: [f64; 4]| v.into_iter().fold(f64::INFINITY, f64::min);
        let max = |v: [f64; 4]| v.into_iter().fold(f64::NEG_INFINITY, f64::max);
        self.placed.push(Placed {
            text: text.to_owned(),
            rect: (min(xs), min(ys), max(xs), max(ys)),
        });
        Ok(())
    }
    fn text_size(&self, text: &str, spec: &TextSpec<'_>) -> SurfaceResult<(u32, u32)> {
        Ok(estimated_text_size(text, spec))
    }
    fn present(&mut self) -> SurfaceResult {
        Ok(())
    }
}

/// Draws `chart` at `css` size and `ratio` device pixels per CSS pixel; returns the plot and every text drawn.
fn lay_out(chart: &dyn Chart, css: (f64, f64), ratio: f64) -> (PlotRect, Vec<Placed>) {
    lay_out_styled(chart, css, &ChartStyle::new(ChartTheme::Light, ratio))
}

/// [`lay_out`] in a given style (at the style's own scale).
fn lay_out_styled(
    chart: &dyn Chart,
    (width, height): (f64, f64),
    style: &ChartStyle,
) -> (PlotRect, Vec<Placed>) {
    let ratio = style.scale;
    let size = (
        (width * ratio).round() as u32,
        (height * ratio).round() as u32,
    );
    let mut placed = Vec::new();
    let plot = {
        let surface = TextRecorder {
            size,
            placed: &mut placed,
        };
        let root = ChartBackend::new(surface).into_drawing_area();
        chart
            .draw(&root, style)
            .expect("chart draws")
            .expect("room for a plot")
    };
    (plot, placed)
}

/// The prediction chart after Reveal: marker, curve, level and the real load, every tag it can have.
fn revealed_prediction() -> PredictionChart {
    let points: Vec<(f64, Option<f64>)> = (0..20)
        .map(|i| {
            let load = 0.8 + 0.01 * f64::from(i);
            (load, Some(0.12 + 0.004 / (1.0 - load)))
        })
        .collect();
    PredictionChart {
        metric: PredictionMetric::P99Ttft,
        target: "the SLO crossing".to_owned(),
        load_range: (0.8, 0.99),
        expected_points: points.len(),
        points,
        level: Some((0.5, "SLO 500 ms".to_owned())),
        guess: Some(0.9),
        actual: Some(0.99),
    }
}

/// Canvas sizes, CSS px, as style/lab.css sets them (`.chart-canvas`, less its border): on a 390 px and a 360 px wide
/// phone the lab's charts are 319 and 289 wide and 25rem tall, a chart prediction's 279 and 249; on a tablet, in one
/// column, 24rem tall.
const LAB_SIZES: [(f64, f64); 4] = [
    (319.0, 398.0),
    (289.0, 398.0),
    (560.0, 382.0),
    (720.0, 382.0),
];
const PREDICTION_SIZES: [(f64, f64); 3] = [(279.0, 398.0), (249.0, 398.0), (520.0, 382.0)];
const TIMELINE_SIZES: [(f64, f64); 4] = [
    (319.0, 574.0),
    (289.0, 574.0),
    (560.0, 542.0),
    (1000.0, 542.0),
];

/// The least plot height a chart keeps, CSS px: room for three decades of a log axis with a label each.
const MIN_PLOT_HEIGHT: f64 = 150.0;

#[test]
fn on_a_phone_or_a_tablet_every_chart_keeps_a_readable_plot_and_no_two_labels_overlap() {
    let mut runaway = knee_sweep();
    runaway.points[14].p99_s = Some(1e3);
    runaway.points[14].p99_ci_s = Some((5e2, 2e3));
    let lab = [
        AnyChart::new(knee_sweep()),
        AnyChart::new(runaway),
        AnyChart::new(goodput_sweep()),
        AnyChart::new(shedding_sweep()),
        AnyChart::new(growing_queue()),
        AnyChart::new(tail_heavy_samples()),
    ]
    .map(|chart| (chart, &LAB_SIZES[..]));
    let prediction = (AnyChart::new(revealed_prediction()), &PREDICTION_SIZES[..]);
    // The batch timeline has a taller canvas of its own (style/lab.css, `.batch-timeline .chart-canvas`).
    let timeline = (
        AnyChart::new(
            goodput::lab::timeline_figures(
                &goodput::lab::LabSettings {
                    load_percent: 99,
                    ..Default::default()
                },
                &Default::default(),
            )
            .main,
        ),
        &TIMELINE_SIZES[..],
    );
    for (chart, sizes) in lab.iter().chain([&prediction, &timeline]) {
        for &css in *sizes {
            for ratio in [1.0, 2.0, 3.0] {
                let at = format!(
                    "{} at {}×{} CSS px, ratio {ratio}",
                    chart.file_stem(),
                    css.0,
                    css.1
                );
                let (plot, mut placed) = lay_out(chart, css, ratio);
                // plotters lists each power of ten of a log axis twice (the last tick of a decade and the first of
                // the next) and prints the label twice on the same spot, which reads as one.
                placed.dedup_by(|b, a| a.text == b.text && a.rect == b.rect);
                let plot = plot.per(ratio);
                assert!(
                    plot.height() >= MIN_PLOT_HEIGHT,
                    "{at}: the plot is {:.0} px tall",
                    plot.height()
                );
                assert!(
                    plot.width() >= css.0 / 2.0,
                    "{at}: the plot is {:.0} px wide",
                    plot.width()
                );
                let (width, height) = (css.0 * ratio, css.1 * ratio);
                for (i, a) in placed.iter().enumerate() {
                    let (left, top, right, bottom) = a.rect;
                    assert!(
                        left >= 0.0 && top >= 0.0 && right <= width && bottom <= height,
                        "{at}: {:?} leaves the canvas at {:?}",
                        a.text,
                        a.rect
                    );
                    for b in &placed[i + 1..] {
                        assert!(
                            !a.overlaps(b),
                            "{at}: {:?} {:?} overlaps {:?} {:?}",
                            a.text,
                            a.rect,
                            b.text,
                            b.rect
                        );
                    }
                }
            }
        }
    }
}

/// The canvases of the charts a learner watches while dragging the load (the lab's latency and goodput charts, a
/// chart prediction), CSS px less the border, as style/lab.css sizes them: a 360 and a 390 px phone, a tablet's
/// single column, a 1280 px laptop's two columns, a 1920 px screen's.
const WATCHED_SIZES: [(f64, f64); 6] = [
    (289.0, 398.0),
    (319.0, 398.0),
    (700.0, 366.0),
    (590.0, 366.0),
    (640.0, 400.0),
    (900.0, 430.0),
];

#[test]
fn the_charts_a_learner_watches_spend_most_of_their_height_on_the_plot() {
    let mut runaway = knee_sweep();
    runaway.points[14].p99_s = Some(1e3);
    runaway.points[14].p99_ci_s = Some((5e2, 2e3));
    let watched = [
        AnyChart::new(knee_sweep()),
        AnyChart::new(runaway),
        AnyChart::new(goodput_sweep()),
        AnyChart::new(revealed_prediction()),
    ];
    for chart in &watched {
        for css in WATCHED_SIZES {
            for ratio in [1.0, 2.0] {
                // As the page draws them: the figure's caption is the title.
                let style = ChartStyle::new(ChartTheme::Light, ratio).untitled();
                let (plot, mut placed) = lay_out_styled(chart, css, &style);
                placed.dedup_by(|b, a| a.text == b.text && a.rect == b.rect);
                let plot = plot.per(ratio);
                let at = format!(
                    "{} at {}×{}, ratio {ratio}",
                    chart.file_stem(),
                    css.0,
                    css.1
                );
                assert!(
                    plot.height() >= 0.6 * css.1,
                    "{at}: the plot is {:.0} of {:.0} px",
                    plot.height(),
                    css.1
                );
                for (i, a) in placed.iter().enumerate() {
                    for b in &placed[i + 1..] {
                        assert!(!a.overlaps(b), "{at}: {:?} overlaps {:?}", a.text, b.text);
                    }
                }
            }
        }
    }
}
