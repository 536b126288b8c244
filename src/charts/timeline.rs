//! The batch timeline: a few seconds of one replica's life, iteration by iteration, from the simulation itself.
//!
//! Time runs across. From the top: the followed request's life as one bar (waiting, prefill chunks, decoding); each
//! iteration's length as a bar split into its prefill part and the rest, so a long iteration towers over its
//! neighbours; the batch slots, one row each, every cell showing what that slot's sequence did in that iteration —
//! prefill (full height), decode (a thin bar), waiting for budget (an outline), recompute after a preemption — with
//! the iteration boundaries drawn through them; and the fleet's waiting queue below. Shape and position say as much
//! as colour, so the chart reads in greyscale and on a washed-out projector.
//!
//! Times are seconds of the run; the axis counts from the window's start.

use plotters::element::{PathElement, Rectangle, Text};
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{RGBColor, ShapeStyle};

use super::format::{format_latency, format_percent};
use super::frame::{frame, is_narrow, LegendEntry, PlotRect, Series, Shade};
use super::style::{ChartStyle, Pen, Weight};
use super::surface::{ChartArea, ChartResult};

mod data;
mod text;

pub use data::{
    Activity, BarSegment, BatchTimeline, FollowedBar, SlotRun, TimelineStep, WaitReason, MAX_ROWS,
};
pub use text::{followed_sentence, followed_story, timeline_summary, timeline_table};

/// Colours and pens of the timeline's parts.
struct Look {
    prefill: Shade,
    decode: Shade,
    recompute: Shade,
    stalled: Shade,
    waiting: Series,
    preempted: Series,
    followed: Series,
    step_rest: RGBColor,
}

impl Look {
    fn new(style: &ChartStyle, followed: Option<u64>) -> Self {
        let p = &style.palette;
        Look {
            prefill: Shade::solid("prefill", p.prefill),
            decode: Shade::solid("decode", p.decode),
            recompute: Shade::solid("recompute after preemption", p.kv_cache),
            stalled: Shade::new("in the batch, no budget left", p.marker),
            waiting: Series::new("waiting requests", Pen::solid(p.waiting, Weight::Emphasis)),
            preempted: Series::new("preempted", Pen::solid(p.text, Weight::Main)),
            followed: Series::new(
                followed.map_or("followed request".to_owned(), |r| format!("request #{r}")),
                Pen::solid(p.text, Weight::Main),
            ),
            step_rest: p.marker,
        }
    }
}

/// Draws the timeline and returns where its slots band lies (what a click maps through).
pub fn batch_timeline(
    area: &ChartArea<'_>,
    data: &BatchTimeline,
    style: &ChartStyle,
) -> ChartResult<Option<PlotRect>> {
    let look = Look::new(style, data.followed.as_ref().map(|f| f.request));
    let has = |activity: Activity| data.runs.iter().any(|r| r.activity == activity);
    let mut legend: Vec<LegendEntry> = vec![(&look.prefill).into(), (&look.decode).into()];
    if has(Activity::Stalled) {
        legend.push((&look.stalled).into());
    }
    if has(Activity::Recompute) {
        legend.push((&look.recompute).into());
    }
    if has(Activity::Preempted) {
        legend.push((&look.preempted).into());
    }
    legend.push((&look.waiting).into());
    if data.followed.is_some() {
        legend.push((&look.followed).into());
    }
    let title = format!(
        "One replica at {} load, chunked prefill {}",
        format_percent(data.offered_load),
        if data.chunked_prefill { "on" } else { "off" }
    );
    let Some(body) = frame(area, style, &title, &legend)? else {
        return Ok(None);
    };
    let layout = Layout::new(&body, data, style)?;
    let Some(layout) = layout else {
        return Ok(None);
    };
    if let Some(note) = &data.note {
        draw_centred(&body, style, &layout, note)?;
        return Ok(Some(layout.slots_rect(area, &body)));
    }
    let ticks = time_ticks(&body, style, &layout, data)?;
    draw_grid(&body, style, &layout, data, &ticks)?;
    draw_steps(&body, style, &layout, data, &look)?;
    draw_slots(&body, style, &layout, data, &look)?;
    draw_queue(&body, style, &layout, data, &look)?;
    if let Some(followed) = &data.followed {
        draw_followed(&body, style, &layout, data, followed, &look)?;
    }
    draw_axis(&body, style, &layout, data, &ticks)?;
    if data.steps.is_empty() {
        draw_centred(&body, style, &layout, "no iterations in this window")?;
    }
    Ok(Some(layout.slots_rect(area, &body)))
}

/// Where each band lies in the body, in pixels from its top left.
struct Layout {
    left: i32,
    right: i32,
    follow: Option<(i32, i32)>,
    steps: (i32, i32),
    slots: (i32, i32),
    queue: (i32, i32),
    axis: i32,
    span: (f64, f64),
    text_height: i32,
}

impl Layout {
    fn new(
        body: &ChartArea<'_>,
        data: &BatchTimeline,
        style: &ChartStyle,
    ) -> ChartResult<Option<Self>> {
        let (width, height) = body.dim_in_pixel();
        let (width, height) = (width as i32, height as i32);
        let text = style.text_style();
        let (_, text_height) = body.estimate_text_size("0", &text)?;
        let text_height = text_height as i32;
        let gap = style.offset(if is_narrow(body, style) { 5.0 } else { 8.0 });
        let width_of = |label: &str| -> ChartResult<i32> {
            Ok(body.estimate_text_size(label, &text)?.0 as i32)
        };
        let mut widest = 0;
        for label in left_labels(data) {
            widest = widest.max(width_of(&label)?);
        }
        // The time axis's unit sits left of its first label, which is centred on the plot's left edge.
        widest = widest.max(width_of(TIME_LABEL)? + width_of("0.00")? / 2);
        let left = widest + 2 * gap;
        let right = width - style.offset(16.0);
        let axis_room = text_height + style.offset(5.0) + gap;
        let follow_room = if data.followed.is_some() {
            text_height + style.offset(16.0) + 2 * gap
        } else {
            0
        };
        let top = gap;
        let bottom = height - axis_room;
        let room = bottom - top - follow_room - 2 * gap;
        if right - left < style.offset(80.0) || room < style.offset(90.0) {
            return Ok(None);
        }
        let band = |share: f64, min: f64, max: f64| {
            ((f64::from(room) * share) as i32).clamp(style.offset(min), style.offset(max))
        };
        let steps_height = band(0.16, 18.0, 80.0);
        let queue_height = band(0.18, 22.0, 90.0);
        let follow = (follow_room > 0).then(|| (top, top + follow_room - gap));
        let steps_top = top + follow_room;
        let steps = (steps_top, steps_top + steps_height);
        let queue = (bottom - queue_height, bottom);
        let slots = (steps.1 + gap, queue.0 - gap);
        Ok(Some(Layout {
            left,
            right,
            follow,
            steps,
            slots,
            queue,
            axis: bottom,
            span: data.x_span(),
            text_height,
        }))
    }

    fn x(&self, t: f64) -> i32 {
        let (from, until) = self.span;
        let fraction = ((t - from) / (until - from)).clamp(0.0, 1.0);
        self.left + (fraction * f64::from(self.right - self.left)).round() as i32
    }

    /// The slots band in `area`'s pixels (the body sits inside it).
    fn slots_rect(&self, area: &ChartArea<'_>, body: &ChartArea<'_>) -> PlotRect {
        let (ax, ay) = area.get_base_pixel();
        let (bx, by) = body.get_base_pixel();
        let (dx, dy) = (f64::from(bx - ax), f64::from(by - ay));
        PlotRect {
            left: dx + f64::from(self.left),
            top: dy + f64::from(self.slots.0),
            right: dx + f64::from(self.right),
            bottom: dy + f64::from(self.slots.1),
        }
    }
}

/// The labels in the left margin, to size it.
fn left_labels(data: &BatchTimeline) -> Vec<String> {
    let mut labels = vec![
        "slot 1".to_owned(),
        format!("{}", data.rows()),
        format!("{} waiting", data.max_waiting()),
        data.longest_step()
            .map_or("0 ms".to_owned(), |s| format_latency(s.end_s - s.start_s)),
    ];
    if data.has_overflow() {
        labels.push(format!("+{}", data.max_num_seqs - MAX_ROWS));
    }
    if let Some(f) = &data.followed {
        labels.push(format!("#{}", f.request));
    }
    labels
}

fn solid(colour: RGBColor) -> ShapeStyle {
    ShapeStyle::from(colour).filled()
}

fn rect(
    body: &ChartArea<'_>,
    (x0, y0): (i32, i32),
    (x1, y1): (i32, i32),
    style: ShapeStyle,
) -> ChartResult {
    body.draw(&Rectangle::new(
        [(x0, y0), (x1.max(x0 + 1), y1.max(y0 + 1))],
        style,
    ))
}

fn label(
    body: &ChartArea<'_>,
    style: &ChartStyle,
    text: &str,
    at: (i32, i32),
    pos: Pos,
    colour: RGBColor,
) -> ChartResult {
    let text_style = style.text_style().color(&colour).pos(pos);
    body.draw(&Text::new(text.to_owned(), at, text_style))
}

fn draw_centred(
    body: &ChartArea<'_>,
    style: &ChartStyle,
    layout: &Layout,
    note: &str,
) -> ChartResult {
    let centre = (
        (layout.left + layout.right) / 2,
        (layout.slots.0 + layout.slots.1) / 2,
    );
    let text_style = style
        .label_style()
        .pos(Pos::new(HPos::Center, VPos::Center));
    body.draw(&Text::new(note.to_owned(), centre, text_style))
}

/// Vertical grid lines at the time ticks, under every band, and a frame around the slots.
fn draw_grid(
    body: &ChartArea<'_>,
    style: &ChartStyle,
    layout: &Layout,
    data: &BatchTimeline,
    ticks: &TimeTicks,
) -> ChartResult {
    let grid = ShapeStyle::from(style.palette.grid).stroke_width(style.px(1.0));
    let top = layout.follow.map_or(layout.steps.0, |f| f.0);
    for &tick in &ticks.at {
        let x = layout.x(data.window.0 + tick);
        body.draw(&PathElement::new(vec![(x, top), (x, layout.queue.1)], grid))?;
    }
    Ok(())
}

/// The iterations' lengths: one bar each, its prefill part in the prefill colour at the foot.
fn draw_steps(
    body: &ChartArea<'_>,
    style: &ChartStyle,
    layout: &Layout,
    data: &BatchTimeline,
    look: &Look,
) -> ChartResult {
    let (top, bottom) = layout.steps;
    let longest = data
        .longest_step()
        .map_or(0.0, |s| s.end_s - s.start_s)
        .max(1e-9);
    let height = f64::from(bottom - top);
    let prefill = solid(look.prefill.colour);
    let rest = style.fill(look.step_rest);
    for step in &data.steps {
        let (x0, x1) = (layout.x(step.start_s), layout.x(step.end_s));
        let total = step.end_s - step.start_s;
        let prefill_s = data.step_cost(step).prefill;
        let bar_top = bottom - (height * total / longest).round() as i32;
        let split = bottom - (height * prefill_s.min(total) / longest).round() as i32;
        rect(body, (x0, bar_top), (x1, split), rest)?;
        if prefill_s > 0.0 {
            rect(body, (x0, split), (x1, bottom), prefill)?;
        }
    }
    let muted = style.palette.text;
    label(
        body,
        style,
        &format_latency(longest),
        (layout.left - style.offset(6.0), top),
        Pos::new(HPos::Right, VPos::Top),
        muted,
    )?;
    // Its name under the longest length, where the band has room for both.
    if bottom - top >= 3 * layout.text_height {
        label(
            body,
            style,
            "step",
            (layout.left - style.offset(6.0), bottom),
            Pos::new(HPos::Right, VPos::Bottom),
            muted,
        )?;
    }
    draw_boundaries(body, style, layout, data, layout.steps)
}

/// Iteration boundaries through a band, as thin lines of the background: all of them when iterations are wide enough
/// to tell apart, else only around the long ones (the stalls the timeline is about).
fn draw_boundaries(
    body: &ChartArea<'_>,
    style: &ChartStyle,
    layout: &Layout,
    data: &BatchTimeline,
    (top, bottom): (i32, i32),
) -> ChartResult {
    if data.steps.is_empty() {
        return Ok(());
    }
    let mut lengths: Vec<f64> = data.steps.iter().map(|s| s.end_s - s.start_s).collect();
    lengths.sort_unstable_by(f64::total_cmp);
    let median = lengths[lengths.len() / 2];
    let px_per_step = f64::from(layout.right - layout.left) / data.steps.len() as f64;
    let all = px_per_step >= 3.0 * style.scale;
    let line = ShapeStyle::from(style.palette.background).stroke_width(style.px(1.0));
    for step in data
        .steps
        .iter()
        .filter(|s| all || s.end_s - s.start_s > 1.8 * median)
    {
        for t in [step.start_s, step.end_s] {
            let x = layout.x(t);
            body.draw(&PathElement::new(vec![(x, top), (x, bottom)], line))?;
        }
    }
    Ok(())
}

fn draw_slots(
    body: &ChartArea<'_>,
    style: &ChartStyle,
    layout: &Layout,
    data: &BatchTimeline,
    look: &Look,
) -> ChartResult {
    let (top, bottom) = layout.slots;
    let rows = data.rows() + u32::from(data.has_overflow());
    let row_height = f64::from(bottom - top) / f64::from(rows.max(1));
    let row_y = |slot: u32| top + (f64::from(slot) * row_height).round() as i32;
    let frame_style = ShapeStyle::from(style.palette.axis).stroke_width(style.px(1.0));
    for run in data.runs.iter().filter(|r| r.slot < data.rows()) {
        let (x0, x1) = (layout.x(run.start_s), layout.x(run.end_s));
        let (y0, y1) = (row_y(run.slot), row_y(run.slot + 1));
        let inset = if row_height >= 4.0 * style.scale {
            1
        } else {
            0
        };
        match run.activity {
            Activity::Prefill => rect(
                body,
                (x0, y0 + inset),
                (x1, y1 - inset),
                solid(look.prefill.colour),
            )?,
            Activity::Recompute => rect(
                body,
                (x0, y0 + inset),
                (x1, y1 - inset),
                solid(look.recompute.colour),
            )?,
            Activity::Decode => {
                // A thin bar: decode is one token, prefill a whole chunk; the shape says so in greyscale.
                let thin = ((f64::from(y1 - y0)) * 0.25).round() as i32;
                rect(
                    body,
                    (x0, y0 + thin),
                    (x1, y1 - thin),
                    solid(look.decode.colour),
                )?
            }
            Activity::Stalled => rect(
                body,
                (x0, y0 + inset),
                (x1, y1 - inset),
                ShapeStyle::from(look.stalled.colour).stroke_width(style.px(1.0)),
            )?,
            Activity::Preempted => {
                // A cross where the sequence was evicted, large enough to see on rows a few pixels high.
                let stroke = style.line(look.preempted.pen);
                let reach = style.offset(5.0);
                let middle = (y0 + y1) / 2;
                let (top, bottom) = (middle - reach, middle + reach);
                body.draw(&PathElement::new(
                    vec![(x0 - reach, top), (x0 + reach, bottom)],
                    stroke,
                ))?;
                body.draw(&PathElement::new(
                    vec![(x0 - reach, bottom), (x0 + reach, top)],
                    stroke,
                ))?;
            }
            Activity::Waiting => {}
        }
    }
    if data.has_overflow() {
        // The slots beyond the drawn rows: a bar per iteration as tall as their share busy.
        let (y0, y1) = (row_y(data.rows()), bottom);
        let beyond = f64::from(data.max_num_seqs - MAX_ROWS);
        for step in &data.steps {
            let busy = f64::from(step.busy_slots.saturating_sub(MAX_ROWS));
            let h = (f64::from(y1 - y0) * busy / beyond).round() as i32;
            if h > 0 {
                rect(
                    body,
                    (layout.x(step.start_s), y1 - h),
                    (layout.x(step.end_s), y1),
                    style.fill(look.decode.colour),
                )?;
            }
        }
        label(
            body,
            style,
            &format!("+{}", data.max_num_seqs - MAX_ROWS),
            (layout.left - style.offset(6.0), (y0 + y1) / 2),
            Pos::new(HPos::Right, VPos::Center),
            style.palette.text,
        )?;
    }
    draw_boundaries(body, style, layout, data, layout.slots)?;
    // The followed request's cells, outlined.
    if let Some(followed) = &data.followed {
        let outline = ShapeStyle::from(style.palette.text).stroke_width(style.px(2.0));
        for run in data.runs.iter().filter(|r| {
            r.request == followed.request
                && r.slot < data.rows()
                && r.activity != Activity::Preempted
        }) {
            rect(
                body,
                (layout.x(run.start_s), row_y(run.slot)),
                (layout.x(run.end_s), row_y(run.slot + 1)),
                outline,
            )?;
        }
    }
    rect(
        body,
        (layout.left, top),
        (layout.right, bottom),
        frame_style,
    )?;
    let muted = style.palette.text;
    let edge = layout.left - style.offset(6.0);
    label(
        body,
        style,
        "slot 1",
        (edge, top),
        Pos::new(HPos::Right, VPos::Top),
        muted,
    )?;
    label(
        body,
        style,
        &data.rows().to_string(),
        (edge, row_y(data.rows())),
        Pos::new(HPos::Right, VPos::Bottom),
        muted,
    )
}

fn draw_queue(
    body: &ChartArea<'_>,
    style: &ChartStyle,
    layout: &Layout,
    data: &BatchTimeline,
    look: &Look,
) -> ChartResult {
    let (top, bottom) = layout.queue;
    let most = data.max_waiting().max(1);
    let y =
        |w: u32| bottom - (f64::from(bottom - top) * f64::from(w) / f64::from(most)).round() as i32;
    let mut points = Vec::with_capacity(2 * data.steps.len());
    for step in &data.steps {
        points.push((layout.x(step.start_s), y(step.waiting)));
        points.push((layout.x(step.end_s), y(step.waiting)));
    }
    let axis = ShapeStyle::from(style.palette.axis).stroke_width(style.px(1.0));
    body.draw(&PathElement::new(
        vec![(layout.left, bottom), (layout.right, bottom)],
        axis,
    ))?;
    if !points.is_empty() {
        body.draw(&PathElement::new(points, style.line(look.waiting.pen)))?;
    }
    let edge = layout.left - style.offset(6.0);
    label(
        body,
        style,
        &format!("{} waiting", data.max_waiting()),
        (edge, top),
        Pos::new(HPos::Right, VPos::Top),
        look.waiting.pen.colour,
    )?;
    if bottom - top >= 3 * layout.text_height {
        label(
            body,
            style,
            "0",
            (edge, bottom),
            Pos::new(HPos::Right, VPos::Bottom),
            style.palette.text,
        )?;
    }
    Ok(())
}

fn draw_followed(
    body: &ChartArea<'_>,
    style: &ChartStyle,
    layout: &Layout,
    data: &BatchTimeline,
    followed: &FollowedBar,
    look: &Look,
) -> ChartResult {
    let Some((top, bottom)) = layout.follow else {
        return Ok(());
    };
    let bar_top = top + layout.text_height + style.offset(3.0);
    let bar = (bar_top, bottom);
    for segment in &followed.segments {
        let (x0, x1) = (layout.x(segment.start_s), layout.x(segment.end_s));
        if x1 <= x0 && segment.end_s - segment.start_s <= 0.0 {
            continue;
        }
        let fill = match segment.activity {
            Activity::Waiting => {
                ShapeStyle::from(look.waiting.pen.colour).stroke_width(style.px(1.5))
            }
            Activity::Prefill => solid(look.prefill.colour),
            Activity::Recompute => solid(look.recompute.colour),
            Activity::Stalled => ShapeStyle::from(look.stalled.colour).stroke_width(style.px(1.0)),
            Activity::Decode => solid(look.decode.colour),
            Activity::Preempted => continue,
        };
        rect(body, (x0, bar.0), (x1, bar.1), fill)?;
    }
    // Ticks at arrival, first token and last token.
    let tick = style.line(look.followed.pen);
    for t in [
        Some(followed.arrival_s),
        followed.first_token_s,
        followed.finish_s,
    ]
    .into_iter()
    .flatten()
    .filter(|t| *t >= data.window.0 && *t <= data.window.1)
    {
        let x = layout.x(t);
        body.draw(&PathElement::new(
            vec![(x, bar.0 - style.offset(3.0)), (x, bar.1)],
            tick,
        ))?;
    }
    label(
        body,
        style,
        &format!("#{}", followed.request),
        (layout.left - style.offset(6.0), (bar.0 + bar.1) / 2),
        Pos::new(HPos::Right, VPos::Center),
        style.palette.text,
    )?;
    // Its story in one line above the bar, as long as the width allows.
    let room = (layout.right - layout.left) as u32;
    let text_style = style.text_style();
    for caption in bar_captions(followed) {
        if body.estimate_text_size(&caption, &text_style)?.0 <= room {
            label(
                body,
                style,
                &caption,
                (layout.left, top),
                Pos::new(HPos::Left, VPos::Top),
                style.palette.text,
            )?;
            break;
        }
    }
    Ok(())
}

/// The followed request's caption, from the fullest to the shortest.
fn bar_captions(f: &FollowedBar) -> Vec<String> {
    let wait = format!("waited {}", format_latency(f.wait_s));
    let chunks = match f.chunks {
        1 => "1 chunk".to_owned(),
        n => format!("{n} chunks"),
    };
    let ttft = f.ttft_s().map(|t| format!("TTFT {}", format_latency(t)));
    let tpot = f.tpot_s().map(|t| format!("TPOT {}", format_latency(t)));
    let mut full = vec![
        format!("request #{}", f.request),
        wait.clone(),
        format!("prefill in {chunks}"),
    ];
    full.extend(ttft.clone());
    full.extend(tpot);
    if f.preemptions > 0 {
        full.push(format!("preempted {}×", f.preemptions));
    }
    let mut short = vec![wait, chunks];
    short.extend(ttft);
    vec![full.join(" · "), short.join(" · "), String::new()]
}

/// Ticks of the time axis, which the grid lines share.
struct TimeTicks {
    /// Seconds since the window's start.
    at: Vec<f64>,
    /// Decimals they print with.
    decimals: usize,
}

/// Time ticks that fit without touching: the smallest step of the list whose labels leave a character's room.
fn time_ticks(
    body: &ChartArea<'_>,
    style: &ChartStyle,
    layout: &Layout,
    data: &BatchTimeline,
) -> ChartResult<TimeTicks> {
    let (from, until) = data.x_span();
    let span = until - from;
    let width = f64::from(layout.right - layout.left);
    let text = style.text_style();
    // (step in seconds, decimals its labels need)
    for (step, decimals) in [
        (0.1, 1),
        (0.2, 1),
        (0.25, 2),
        (0.5, 1),
        (1.0, 0),
        (2.0, 0),
        (2.5, 1),
        (5.0, 0),
        (10.0, 0),
        (20.0, 0),
        (30.0, 0),
        (60.0, 0),
        (120.0, 0),
    ] {
        let count = (span / step).floor() as usize;
        if count > 40 {
            continue;
        }
        let sample = format!("{:.*}", decimals, span);
        let (w, _) = body.estimate_text_size(&sample, &text)?;
        let spacing = width * step / span;
        if spacing >= f64::from(w) + f64::from(style.px(style.text_px)) {
            let at = (0..=count).map(|i| i as f64 * step).collect();
            return Ok(TimeTicks { at, decimals });
        }
    }
    Ok(TimeTicks {
        at: vec![0.0, span],
        decimals: 1,
    })
}

fn draw_axis(
    body: &ChartArea<'_>,
    style: &ChartStyle,
    layout: &Layout,
    data: &BatchTimeline,
    ticks: &TimeTicks,
) -> ChartResult {
    let decimals = ticks.decimals;
    let first_half_width = body
        .estimate_text_size(&format!("{:.decimals$}", 0.0), &style.text_style())?
        .0 as i32
        / 2;
    let axis = ShapeStyle::from(style.palette.axis).stroke_width(style.px(1.0));
    let tick_length = style.offset(5.0);
    for tick in &ticks.at {
        let x = layout.x(data.window.0 + tick);
        body.draw(&PathElement::new(
            vec![(x, layout.axis), (x, layout.axis + tick_length)],
            axis,
        ))?;
        label(
            body,
            style,
            &format!("{tick:.decimals$}"),
            (x, layout.axis + tick_length + style.offset(2.0)),
            Pos::new(HPos::Center, VPos::Top),
            style.palette.text,
        )?;
    }
    label(
        body,
        style,
        TIME_LABEL,
        (
            layout.left - first_half_width - style.offset(6.0),
            layout.axis + tick_length + style.offset(2.0),
        ),
        Pos::new(HPos::Right, VPos::Top),
        style.palette.text,
    )
}

/// The time axis's unit, in the left margin beside its first label.
const TIME_LABEL: &str = "time (s)";
