//! The fleet widget's two charts of a day, drawn by the `fleet-worker` (and as the static page's pictures), never on
//! the page's own canvas, so they are no [`super::Chart`] kind and cost the page's wasm nothing:
//!
//! - [`FleetPanel::Load`]: the offered load, in replicas' worth (one replica's capacity is 1), and the replicas
//!   ready and ready-or-starting: where the load line climbs above the ready line, the fleet is short.
//! - [`FleetPanel::Service`]: p99 TTFT of the last minute against its SLO (log scale) above goodput against
//!   throughput.
//!
//! Both mark the scrubbed time; their `aria-label`s read the figures there.

use plotters::coord::combinators::IntoLogRange;
use plotters::prelude::IntoDrawingArea;

use super::format::{format_latency, format_number};
use super::frame::{
    build_chart, decade_range, draw_gapped_line, draw_rule, frame, linear_range, plot_key, Axes,
    Chart, LegendEntry, Margins, Rule, Scale, Series,
};
use super::style::{ChartStyle, Pen, Weight};
use super::surface::{ChartArea, ChartBackend, ChartResult, SvgSurface};
use super::DataTable;

/// One interval of the day, read at its end.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FleetPoint {
    /// End of the interval, seconds.
    pub t: f64,
    /// Mean offered rate over the interval, requests per second.
    pub offered_rps: f64,
    /// Replicas serving.
    pub ready: u32,
    /// Replicas loading their weights.
    pub starting: u32,
    /// p99 TTFT of the last minute (`None` with no first token in it), seconds.
    pub ttft_p99: Option<f64>,
    /// Requests per second finished within both SLOs.
    pub goodput: f64,
    /// Requests per second finished.
    pub throughput: f64,
}

/// A day, and the time the reader scrubbed to.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FleetChart {
    /// One point per autoscaler interval, in time order.
    pub points: Vec<FleetPoint>,
    /// What one replica serves at most, requests per second: the load's unit on the first chart.
    pub per_replica_rps: f64,
    /// The TTFT SLO, seconds.
    pub slo_ttft: f64,
    /// The scrubbed time, seconds.
    pub at: f64,
}

impl FleetChart {
    /// The interval the scrubbed time falls in: the first that ends at or after it (the last after the day).
    pub fn point_at(&self) -> Option<&FleetPoint> {
        self.points
            .iter()
            .find(|p| p.t >= self.at)
            .or(self.points.last())
    }
}

/// Which of the two charts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FleetPanel {
    /// Offered load and replicas.
    Load,
    /// p99 TTFT against the SLO, goodput against throughput.
    Service,
}

impl FleetPanel {
    /// Both, in the page's order.
    pub const ALL: [FleetPanel; 2] = [FleetPanel::Load, FleetPanel::Service];

    /// The figure's caption.
    pub fn caption(self) -> &'static str {
        match self {
            FleetPanel::Load => "Offered load and replicas",
            FleetPanel::Service => "p99 TTFT and goodput",
        }
    }

    /// A name for files and ids.
    pub fn key(self) -> &'static str {
        match self {
            FleetPanel::Load => "load",
            FleetPanel::Service => "service",
        }
    }

    /// The chart's height for a width, CSS px: the service chart holds two plots.
    pub fn height(self, width: u32) -> u32 {
        match self {
            FleetPanel::Load => (width / 2).clamp(280, 360),
            FleetPanel::Service => (width * 2 / 3).clamp(420, 480),
        }
    }

    /// Draws the chart.
    pub fn draw(self, area: &ChartArea<'_>, data: &FleetChart, style: &ChartStyle) -> ChartResult {
        match self {
            FleetPanel::Load => draw_load(area, data, style),
            FleetPanel::Service => draw_service(area, data, style),
        }
    }

    /// The chart's `aria-label`: the figures at the scrubbed time.
    pub fn summary(self, data: &FleetChart) -> String {
        let Some(p) = data.point_at() else {
            return "No day simulated yet.".to_owned();
        };
        let when = clock(p.t);
        match self {
            FleetPanel::Load => format!(
                "At {when}, {} req/s are offered ({} replicas' worth); {} ready, {} starting.",
                format_number(p.offered_rps),
                format_number(p.offered_rps / data.per_replica_rps),
                replicas(p.ready),
                p.starting
            ),
            FleetPanel::Service => {
                let ttft = match p.ttft_p99 {
                    Some(ttft) if ttft > data.slo_ttft => {
                        format!("p99 TTFT is {}, over", format_latency(ttft))
                    }
                    Some(ttft) => format!("p99 TTFT is {}, within", format_latency(ttft)),
                    None => "no first token in the last minute, against".to_owned(),
                };
                format!(
                    "At {when}, {ttft} the {} SLO; goodput is {} of {} req/s finished.",
                    format_latency(data.slo_ttft),
                    format_number(p.goodput),
                    format_number(p.throughput)
                )
            }
        }
    }

    /// The chart's data table, at most `rows` evenly spaced intervals (always the last).
    pub fn table(self, data: &FleetChart, rows: usize) -> DataTable {
        let header: &[&str] = match self {
            FleetPanel::Load => &["Time", "Offered (req/s)", "Ready", "Starting"],
            FleetPanel::Service => &[
                "Time",
                "p99 TTFT (last minute)",
                "Goodput (req/s)",
                "Throughput (req/s)",
            ],
        };
        let n = data.points.len();
        let stride = n.div_ceil(rows.max(1)).max(1);
        let mut picked: Vec<usize> = (0..n).step_by(stride).collect();
        if n > 0 && picked.last() != Some(&(n - 1)) {
            if picked.len() >= rows {
                picked.pop();
            }
            picked.push(n - 1);
        }
        let rows = picked
            .into_iter()
            .map(|i| &data.points[i])
            .map(|p| match self {
                FleetPanel::Load => vec![
                    clock(p.t),
                    format_number(p.offered_rps),
                    p.ready.to_string(),
                    p.starting.to_string(),
                ],
                FleetPanel::Service => vec![
                    clock(p.t),
                    p.ttft_p99.map_or("—".to_owned(), format_latency),
                    format_number(p.goodput),
                    format_number(p.throughput),
                ],
            })
            .collect();
        DataTable {
            header: header.iter().map(|h| (*h).to_owned()).collect(),
            rows,
        }
    }

    /// The chart as an SVG document `width` CSS px wide.
    pub fn svg(self, data: &FleetChart, style: &ChartStyle, width: u32) -> Result<String, String> {
        self.svg_sized(data, style, (width, self.height(width)))
    }

    /// The chart as an SVG document of `size` CSS px (width, height).
    pub fn svg_sized(
        self,
        data: &FleetChart,
        style: &ChartStyle,
        size: (u32, u32),
    ) -> Result<String, String> {
        let mut svg = String::new();
        {
            let root = ChartBackend::new(SvgSurface::new(&mut svg, size)).into_drawing_area();
            self.draw(&root, data, style).map_err(|e| e.to_string())?;
            root.present().map_err(|e| e.to_string())?;
        }
        Ok(svg)
    }
}

/// "12:30": minutes and seconds into the day.
pub fn clock(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    format!("{}:{:02}", s / 60, s % 60)
}

fn replicas(n: u32) -> String {
    if n == 1 {
        "1 replica".to_owned()
    } else {
        format!("{n} replicas")
    }
}

/// The x axis in minutes: plotters picks round ticks from the coordinate's own values.
fn minutes(t: f64) -> f64 {
    t / 60.0
}

fn time_axes<'f>(
    y_desc: &'f str,
    y_format: &'f dyn Fn(&f64) -> String,
    y_scale: Scale,
    y_samples: &'f [f64],
) -> Axes<'f> {
    Axes {
        x_desc: "minutes into the day",
        y_desc,
        x_format: &|m| format!("{m:.0}"),
        y_format,
        x_scale: Scale::Linear,
        y_scale,
        y_samples,
        x_labels: 7,
        y_labels: if y_scale == Scale::Log { 30 } else { 6 },
    }
}

fn x_range(data: &FleetChart) -> std::ops::Range<f64> {
    0.0..minutes(data.points.last().map_or(60.0, |p| p.t))
}

/// A count held from one reading to the next, drawn as steps.
fn steps(points: &[FleetPoint], count: fn(&FleetPoint) -> u32) -> Vec<(f64, Option<f64>)> {
    let mut line = Vec::with_capacity(points.len() * 2);
    let mut from = 0.0;
    for p in points {
        let n = Some(f64::from(count(p)));
        line.push((minutes(from), n));
        line.push((minutes(p.t), n));
        from = p.t;
    }
    line
}

fn scrubbed_at<X: super::frame::Axis, Y: super::frame::Axis>(
    chart: &mut Chart<'_, '_, X, Y>,
    style: &ChartStyle,
    data: &FleetChart,
) -> ChartResult {
    let pen = Pen::solid(style.palette.marker, Weight::Guide);
    draw_rule(chart, style, Rule::AtX(minutes(data.at)), pen)
}

fn draw_load(area: &ChartArea<'_>, data: &FleetChart, style: &ChartStyle) -> ChartResult {
    let palette = &style.palette;
    let offered = Series::new(
        format!(
            "offered load (1 = {} req/s)",
            format_number(data.per_replica_rps)
        ),
        Pen::solid(palette.throughput, Weight::Main),
    );
    let ready = Series::new("ready", Pen::solid(palette.goodput, Weight::Emphasis));
    let paid = Series::new(
        "ready + starting",
        Pen::dashed(palette.waiting, Weight::Main),
    );
    let legend: Vec<LegendEntry> = vec![(&offered).into(), (&ready).into(), (&paid).into()];
    let Some(body) = frame(area, style, "Load and replicas", &legend)? else {
        return Ok(());
    };
    let load = |p: &FleetPoint| p.offered_rps / data.per_replica_rps;
    let tops = data
        .points
        .iter()
        .flat_map(|p| [load(p), f64::from(p.ready + p.starting)]);
    let y_range = linear_range(tops, true, 0.08);
    let y_samples = [y_range.end];
    let axes = time_axes(
        "replicas",
        &|n| format!("{n:.0}"),
        Scale::Linear,
        &y_samples,
    );
    let mut chart = build_chart(
        &body,
        style,
        x_range(data),
        y_range,
        &axes,
        Margins::default(),
    )?;
    let offered_line = data.points.iter().map(|p| (minutes(p.t), Some(load(p))));
    draw_gapped_line(&mut chart, style, offered_line, offered.pen)?;
    let all = steps(&data.points, |p| p.ready + p.starting);
    draw_gapped_line(&mut chart, style, all, paid.pen)?;
    draw_gapped_line(
        &mut chart,
        style,
        steps(&data.points, |p| p.ready),
        ready.pen,
    )?;
    scrubbed_at(&mut chart, style, data)
}

fn draw_service(area: &ChartArea<'_>, data: &FleetChart, style: &ChartStyle) -> ChartResult {
    let palette = &style.palette;
    // The upper plot's line is its axis: named once, with its scale, so its key fits one row of a presenter's pane.
    let ttft = Series::new("p99 TTFT (log)", Pen::solid(palette.p99, Weight::Emphasis));
    let slo = Series::new(
        format!("SLO {}", format_latency(data.slo_ttft)),
        Pen::dashed(palette.slo, Weight::Guide),
    );
    let throughput = Series::new("throughput", Pen::dashed(palette.throughput, Weight::Main));
    let goodput = Series::new("goodput", Pen::solid(palette.goodput, Weight::Emphasis));
    let Some(body) = frame(area, style, "Latency and goodput", &[])? else {
        return Ok(());
    };
    // Two plots on one x axis, its labels and title under the lower one only (the upper one is that much taller, so
    // the two plots are about as tall). Each is named by a key over it, its axis and its lines, where a rotated axis
    // title would be longer than a short plot on a projected screen is tall; both keep the same room for their tick
    // labels, so their left edges and the scrubbed time's lines stand one above the other.
    let (_, height) = body.dim_in_pixel();
    let tick_style = style.text_style();
    let x_axis = body.estimate_text_size("0", &tick_style)?.1
        + body.estimate_text_size("0", &style.label_style())?.1
        + style.px(16.0);
    let (top, bottom) = body.split_vertically(height.saturating_sub(x_axis) / 2);
    let ttft_range = decade_range(
        data.points
            .iter()
            .filter_map(|p| p.ttft_p99)
            .chain([data.slo_ttft]),
    );
    let ttft_samples = [ttft_range.start, ttft_range.end, ttft_range.end / 2.0];
    let rates = data.points.iter().flat_map(|p| [p.goodput, p.throughput]);
    let rate_range = linear_range(rates, true, 0.08);
    let rate_samples = [rate_range.end];
    let mut y_ticks_width = 0;
    let tick_texts = ttft_samples
        .iter()
        .map(|y| format_latency(*y))
        .chain(rate_samples.iter().map(|r| format_number(*r)));
    for text in tick_texts {
        y_ticks_width = y_ticks_width.max(body.estimate_text_size(&text, &tick_style)?.0);
    }
    let margins = Margins {
        y_ticks_width,
        ..Margins::default()
    };
    {
        let keyed = [(&ttft).into(), (&slo).into()];
        let plot = plot_key(&top, style, None, &keyed)?;
        let axes = time_axes("", &|y| format_latency(*y), Scale::Log, &ttft_samples);
        let shared = Margins {
            shared_x: true,
            ..margins
        };
        let ttft_axis = ttft_range.log_scale();
        let mut chart = build_chart(&plot, style, x_range(data), ttft_axis, &axes, shared)?;
        draw_rule(&mut chart, style, Rule::AtY(data.slo_ttft), slo.pen)?;
        let line = data.points.iter().map(|p| (minutes(p.t), p.ttft_p99));
        draw_gapped_line(&mut chart, style, line, ttft.pen)?;
        scrubbed_at(&mut chart, style, data)?;
    }
    let keyed = [(&throughput).into(), (&goodput).into()];
    let plot = plot_key(&bottom, style, Some("req/s"), &keyed)?;
    let axes = time_axes("", &|r| format_number(*r), Scale::Linear, &rate_samples);
    let mut chart = build_chart(&plot, style, x_range(data), rate_range, &axes, margins)?;
    let all = data
        .points
        .iter()
        .map(|p| (minutes(p.t), Some(p.throughput)));
    draw_gapped_line(&mut chart, style, all, throughput.pen)?;
    let good = data.points.iter().map(|p| (minutes(p.t), Some(p.goodput)));
    draw_gapped_line(&mut chart, style, good, goodput.pen)?;
    scrubbed_at(&mut chart, style, data)
}
