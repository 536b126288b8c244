//! Chart 3: the queue over time at the current load, as vLLM's gauges `num_requests_running` and
//! `num_requests_waiting` would show it on a dashboard. A waiting count that keeps climbing is the clearest sign the
//! server is past its knee. With a KV budget the chart adds `kv_cache_usage_perc` (drawn so that a full cache meets
//! the `max_num_seqs` line) and a mark at the foot of the plot wherever sequences were preempted.

use plotters::element::PathElement;

use super::format::{format_number, format_percent};
use super::frame::{
    build_chart, draw_gapped_line, draw_note, draw_right_tags, draw_rule, frame, is_narrow,
    linear_range, plot_rect, Axes, LegendEntry, Margins, PlotRect, Rule, Scale, Series, Tag,
};
use super::style::{ChartStyle, Pen, Weight};
use super::surface::{ChartArea, ChartResult};
use super::DataTable;

/// The data table shows at most this many samples, evenly spaced: enough to see the trend, few enough to tab through.
pub const MAX_TABLE_ROWS: usize = 60;

/// One scrape of the two gauges.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct QueueSample {
    /// Seconds since the start of the run.
    pub time_s: f64,
    /// `vllm:num_requests_running`: requests in the running batch.
    pub running: u32,
    /// `vllm:num_requests_waiting`: requests queued for admission.
    pub waiting: u32,
    /// `vllm:kv_cache_usage_perc`: share of the KV cache in use, 0–1 (with a KV budget).
    pub kv_usage: Option<f64>,
    /// `vllm:num_preemptions_total` since the start of the run (with a KV budget).
    pub preemptions: Option<u64>,
}

impl QueueOverTime {
    /// Whether the samples carry the KV cache (a KV budget and a cap to draw it against).
    pub fn has_kv_cache(&self) -> bool {
        self.max_num_seqs.is_some() && self.samples.iter().any(|s| s.kv_usage.is_some())
    }

    /// Preemptions over the samples: the counter's rise from the first sample to the last.
    pub fn preemptions(&self) -> Option<u64> {
        let first = self.samples.first()?.preemptions?;
        Some(self.samples.last()?.preemptions?.saturating_sub(first))
    }

    /// Each sample time at which the preemption counter rose, with the rise since the previous sample.
    fn preemption_steps(&self) -> Vec<(f64, u64)> {
        self.samples
            .windows(2)
            .filter_map(|w| {
                let rise = w[1].preemptions?.checked_sub(w[0].preemptions?)?;
                (rise > 0).then_some((w[1].time_s, rise))
            })
            .collect()
    }
}

/// Everything chart 3 shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QueueOverTime {
    /// Samples ordered by time.
    pub samples: Vec<QueueSample>,
    /// `--max-num-seqs`, the cap on running requests, drawn as a line when given.
    pub max_num_seqs: Option<u32>,
    /// The load these samples were taken at (for the title and summary).
    pub offered_load: f64,
}

/// Draws running and waiting requests over time, with the `max_num_seqs` cap as a dashed line tagged on the right.
pub fn queue_over_time(
    area: &ChartArea<'_>,
    data: &QueueOverTime,
    style: &ChartStyle,
) -> ChartResult<Option<PlotRect>> {
    let palette = &style.palette;
    let running = Series::new("running", Pen::solid(palette.running, Weight::Main));
    let waiting = Series::new("waiting", Pen::solid(palette.waiting, Weight::Emphasis));
    // On a phone the cap's value moves from its tag into the legend.
    let narrow = is_narrow(area, style);
    let kv = data.has_kv_cache();
    let cap = data.max_num_seqs.map(|cap| {
        let label = if narrow {
            format!("max_num_seqs = {cap}")
        } else {
            "max_num_seqs".to_owned()
        };
        (
            Series::new(label, Pen::dashed(palette.slo, Weight::Guide)),
            cap,
        )
    });
    // The cache's share in use, scaled so that a full cache sits on the cap line; preemptions as spikes at the foot.
    let kv_usage = Series::new(
        "KV cache in use (full at the cap)",
        Pen::dashed(palette.kv_cache, Weight::Emphasis),
    );
    let preempted = Series::new(
        "preemptions per interval",
        Pen::solid(palette.preemption, Weight::Main),
    );
    let show_preemptions = kv && data.preemptions().is_some_and(|n| n > 0);
    let mut legend: Vec<LegendEntry> = vec![(&running).into(), (&waiting).into()];
    legend.extend(cap.as_ref().map(|(series, _)| LegendEntry::from(series)));
    if kv {
        legend.push((&kv_usage).into());
    }
    if show_preemptions {
        legend.push((&preempted).into());
    }
    let title = format!(
        "Requests in the server at {} load",
        format_percent(data.offered_load)
    );
    let Some(body) = frame(area, style, &title, &legend)? else {
        return Ok(None);
    };
    let x_range = linear_range(data.samples.iter().map(|s| s.time_s), true, 0.0);
    let counts = data
        .samples
        .iter()
        .flat_map(|s| [f64::from(s.running), f64::from(s.waiting)]);
    let y_range = linear_range(counts.chain(data.max_num_seqs.map(f64::from)), true, 0.08);
    let y_samples = [y_range.end];
    let x_span = x_range.end - x_range.start;
    let axes = Axes {
        x_desc: "time (s)",
        y_desc: "requests",
        x_format: &|t| {
            if x_span < 10.0 {
                format!("{t:.1}")
            } else {
                format!("{t:.0}")
            }
        },
        y_format: &|n| format!("{n:.0}"),
        x_scale: Scale::Linear,
        y_scale: Scale::Linear,
        y_samples: &y_samples,
        x_labels: 8,
        y_labels: 6,
    };
    let right_tags: Vec<Tag> = cap
        .iter()
        .filter(|_| !narrow)
        .map(|(line, cap)| Tag {
            at: f64::from(*cap),
            text: if kv {
                format!("cap {cap}, KV full")
            } else {
                format!("cap {cap}")
            },
            color: line.pen.colour,
        })
        .collect();
    let margins = Margins {
        top_tags: &[],
        right_tags: &right_tags,
        ..Margins::default()
    };
    let mut chart = build_chart(&body, style, x_range, y_range, &axes, margins)?;

    let counts_of = |count: fn(&QueueSample) -> u32| {
        data.samples
            .iter()
            .map(move |s| (s.time_s, Some(f64::from(count(s)))))
    };
    draw_gapped_line(&mut chart, style, counts_of(|s| s.running), running.pen)?;
    draw_gapped_line(&mut chart, style, counts_of(|s| s.waiting), waiting.pen)?;
    if let (true, Some((_, cap))) = (kv, &cap) {
        let usage = data
            .samples
            .iter()
            .map(|s| (s.time_s, s.kv_usage.map(|u| u * f64::from(*cap))));
        draw_gapped_line(&mut chart, style, usage, kv_usage.pen)?;
    }
    if show_preemptions {
        // Each spike as tall as its share of the busiest interval's, so a steady stream and a burst look different.
        let steps = data.preemption_steps();
        let most = steps.iter().map(|&(_, n)| n).max().unwrap_or(1) as f64;
        let (y0, y1) = (chart.y_range().start, chart.y_range().end);
        let strip = (y1 - y0) * 0.12;
        let stroke = style.line(preempted.pen);
        chart.draw_series(steps.into_iter().map(|(t, n)| {
            PathElement::new(vec![(t, y0), (t, y0 + strip * n as f64 / most)], stroke)
        }))?;
    }
    if let Some((line, cap)) = &cap {
        draw_rule(&mut chart, style, Rule::AtY(f64::from(*cap)), line.pen)?;
    }
    draw_right_tags(&body, &chart, style, &right_tags)?;
    if data.samples.is_empty() {
        draw_note(&chart, style, "no samples yet")?;
    }
    Ok(Some(plot_rect(area, &chart)))
}

/// The chart's `aria-label`, e.g. "At 97% load over 60 s, on average 58 requests run (cap 64) and 12 wait, at most
/// 140; the waiting queue is growing."
pub fn queue_summary(data: &QueueOverTime) -> String {
    let load = format_percent(data.offered_load);
    let samples = &data.samples;
    if samples.is_empty() {
        return format!("No queue samples at {load} load yet.");
    }
    let mean = |part: &[QueueSample], of: fn(&QueueSample) -> u32| {
        part.iter().map(|s| f64::from(of(s))).sum::<f64>() / part.len().max(1) as f64
    };
    let duration = samples.last().map_or(0.0, |s| s.time_s) - samples[0].time_s;
    let mut sentence = format!(
        "At {load} load over {:.0} s, on average {} requests run",
        duration,
        format_number(mean(samples, |s| s.running))
    );
    if let Some(cap) = data.max_num_seqs {
        sentence += &format!(" (cap {cap})");
    }
    let kv = kv_sentence(data);
    let peak = samples.iter().map(|s| s.waiting).max().unwrap_or(0);
    if peak == 0 {
        return sentence + " and none wait." + &kv;
    }
    sentence += &format!(
        " and {} wait, at most {peak}",
        format_number(mean(samples, |s| s.waiting))
    );
    // Growing: the last quarter's mean queue is well above the first quarter's. A queue that merely fluctuates near
    // the knee does not count; one that keeps climbing means arrivals outpace service.
    let quarter = (samples.len() / 4).max(1);
    let early = mean(&samples[..quarter], |s| s.waiting);
    let late = mean(&samples[samples.len() - quarter..], |s| s.waiting);
    let trend = if late > early * 1.5 + 2.0 {
        "growing"
    } else {
        "not growing"
    };
    sentence + &format!("; the waiting queue is {trend}.") + &kv
}

/// " The KV cache is 62% full on average, 100% at peak; 118 sequences were preempted.", or nothing without a KV
/// budget.
fn kv_sentence(data: &QueueOverTime) -> String {
    if !data.has_kv_cache() {
        return String::new();
    }
    let usage: Vec<f64> = data.samples.iter().filter_map(|s| s.kv_usage).collect();
    let mean = usage.iter().sum::<f64>() / usage.len().max(1) as f64;
    let peak = usage.iter().copied().fold(0.0, f64::max);
    let preempted = match data.preemptions().unwrap_or(0) {
        0 => "none was preempted".to_owned(),
        1 => "1 sequence was preempted".to_owned(),
        n => format!("{n} sequences were preempted"),
    };
    format!(
        " The KV cache is {} full on average, {} at peak; {preempted}.",
        format_percent(mean),
        format_percent(peak)
    )
}

/// The chart's data table: time, running and waiting, thinned to at most [`MAX_TABLE_ROWS`] evenly spaced samples
/// (always including the last).
pub fn queue_table(data: &QueueOverTime) -> DataTable {
    let kv = data.has_kv_cache();
    let mut header = vec![
        "Time (s)".to_owned(),
        "Running".to_owned(),
        "Waiting".to_owned(),
    ];
    if kv {
        header.push("KV cache in use".to_owned());
        header.push("Preemptions so far".to_owned());
    }
    let samples = &data.samples;
    let first_count = samples.first().and_then(|s| s.preemptions);
    let stride = samples.len().div_ceil(MAX_TABLE_ROWS).max(1);
    let mut picked: Vec<&QueueSample> = samples.iter().step_by(stride).collect();
    if let Some(last) = samples.last() {
        if !(samples.len() - 1).is_multiple_of(stride) {
            if picked.len() == MAX_TABLE_ROWS {
                picked.pop();
            }
            picked.push(last);
        }
    }
    let rows = picked
        .into_iter()
        .map(|s| {
            let mut row = vec![
                format!("{:.1}", s.time_s),
                s.running.to_string(),
                s.waiting.to_string(),
            ];
            if kv {
                row.push(s.kv_usage.map_or(String::new(), format_percent));
                let since_start = s.preemptions.zip(first_count).map(|(n, f)| n - f);
                row.push(since_start.map_or(String::new(), |n| n.to_string()));
            }
            row
        })
        .collect();
    DataTable { header, rows }
}
