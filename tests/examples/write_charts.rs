//! Writes each chart, in each theme, to the system's temporary directory (`goodput-charts/`; the path is printed)
//! for a human to look at, at projector size and on a phone: `cargo run --example write-charts`.

#[path = "../support/chart_samples.rs"]
mod chart_samples;

use chart_samples::{goodput_sweep, growing_queue, knee_sweep, render, tail_heavy_samples};
use goodput::charts::{
    chart_svg, latency_distribution, latency_vs_load, queue_over_time, throughput_vs_goodput,
    BatchTimeline, Chart, ChartStyle, ChartTheme, LatencyScale, LatencyVsLoad,
};
use goodput::lab::timeline::{timeline_figures, Compare, TimelineView};
use goodput::lab::{LabSettings, Preset};

fn main() -> std::io::Result<()> {
    let dir = std::env::temp_dir().join("goodput-charts");
    std::fs::create_dir_all(&dir)?;
    for (name, theme) in [
        ("light", ChartTheme::Light),
        ("dark", ChartTheme::Dark),
        ("hc", ChartTheme::HighContrast),
    ] {
        let style = ChartStyle::new(theme, 1.0);
        let linear = LatencyVsLoad {
            scale: LatencyScale::Linear,
            ..knee_sweep()
        };
        let charts: [(&str, String); 5] = [
            (
                "latency",
                render(1200, 600, |a| latency_vs_load(a, &knee_sweep(), &style)),
            ),
            (
                "latency-linear",
                render(1200, 600, |a| latency_vs_load(a, &linear, &style)),
            ),
            (
                "goodput",
                render(1200, 600, |a| {
                    throughput_vs_goodput(a, &goodput_sweep(), &style)
                }),
            ),
            (
                "queue",
                render(1200, 600, |a| queue_over_time(a, &growing_queue(), &style)),
            ),
            (
                "distribution",
                render(1200, 600, |a| {
                    latency_distribution(a, &tail_heavy_samples(), &style)
                }),
            ),
        ];
        for (chart, svg) in charts {
            std::fs::write(dir.join(format!("{chart}-{name}.svg")), svg)?;
        }
    }
    // A phone-width chart at devicePixelRatio 2, where legends have to wrap.
    let narrow = ChartStyle::new(ChartTheme::Light, 2.0);
    let svg = render(720, 640, |a| latency_vs_load(a, &knee_sweep(), &narrow));
    std::fs::write(dir.join("latency-narrow-dpr2.svg"), svg)?;
    write_timelines(&dir)?;
    println!("charts written to {}", dir.display());
    Ok(())
}

/// The batch timeline at a few of the lab's settings, in the light and dark themes and on a phone, with the
/// comparison where one is asked for; its summary and comparison sentence printed beside.
fn write_timelines(dir: &std::path::Path) -> std::io::Result<()> {
    let at = |load_percent: u32| LabSettings {
        load_percent,
        ..LabSettings::default()
    };
    let small_budget = LabSettings {
        max_num_batched_tokens: Some(2048),
        ..at(90)
    };
    let kv_bound = LabSettings {
        preset: Preset::DistServe,
        gpu_memory_utilization: 0.8,
        ..at(99)
    };
    for (name, settings, compare) in [
        ("timeline-85", at(85), Compare::Nothing),
        ("timeline-99", at(99), Compare::Nothing),
        ("timeline-budget-2048", small_budget, Compare::Chunking),
        ("timeline-distserve", kv_bound, Compare::Nothing),
    ] {
        let view = TimelineView {
            compare,
            follow: None,
        };
        let figures = timeline_figures(&settings, &view);
        let svg = |spec: BatchTimeline, style: &ChartStyle, (w, h): (u32, u32)| {
            chart_svg(&spec, style, w, h).map_err(std::io::Error::other)
        };
        for (theme, suffix) in [(ChartTheme::Light, "light"), (ChartTheme::Dark, "dark")] {
            let style = ChartStyle::new(theme, 1.0);
            let main = figures.main.clone();
            std::fs::write(
                dir.join(format!("{name}-{suffix}.svg")),
                svg(main, &style, (1200, 560))?,
            )?;
            if let Some((_, other)) = &figures.compare {
                let other = other.clone();
                let file = dir.join(format!("{name}-compare-{suffix}.svg"));
                std::fs::write(file, svg(other, &style, (1200, 560))?)?;
            }
        }
        let phone = figures.main.clone();
        let text = svg(phone.clone(), &ChartStyle::default(), (319, 574))?;
        std::fs::write(dir.join(format!("{name}-phone.svg")), text)?;
        println!("{name}: {}", phone.summary());
        if let Some(sentence) = &figures.comparison {
            println!("  {sentence}");
        }
    }
    Ok(())
}
