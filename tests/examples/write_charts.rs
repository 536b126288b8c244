//! Writes each chart, in each theme, to the system's temporary directory (`goodput-charts/`; the path is printed)
//! for a human to look at, at projector size and on a phone: `cargo run --example write-charts`.

#[path = "../support/chart_samples.rs"]
mod chart_samples;

use chart_samples::{goodput_sweep, growing_queue, knee_sweep, render, tail_heavy_samples};
use goodput::charts::{
    latency_distribution, latency_vs_load, queue_over_time, throughput_vs_goodput, ChartStyle,
    ChartTheme, LatencyScale, LatencyVsLoad,
};

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
    println!("charts written to {}", dir.display());
    Ok(())
}
