//! How sure the lab is of the learner's own server: the fit's [`Band`] (worked out by the calibration worker) on the
//! lab's load axis, and the capacity and the knee as ranges in words, with how far the prediction reaches beyond
//! what was measured.

use super::settings::{LabSettings, LoopKind};
use super::sweep::scenario_for;
use crate::charts::format::format_percent;
use crate::charts::{FitBand, FitBandPoint};
use crate::model::your_server::{Band, HeldServer, Range};
use crate::model::ServiceKind;

/// The server's band when the lab runs it as it was calibrated (open loop, its own flags, no queue cap), with the
/// arrival rate at the lab's 100% load: another setting is another server, which the band does not describe.
fn band_in_lab(settings: &LabSettings) -> Option<(&HeldServer, &Band, f64)> {
    let server = settings.running_server()?;
    let band = server.band.as_ref()?;
    let ServiceKind::Llm(fleet) = &server.scenario.service else {
        return None;
    };
    let as_calibrated = settings.loop_kind == LoopKind::Open
        && settings.queue_cap.is_none()
        && settings.replicas == fleet.replicas
        && settings.max_num_seqs == fleet.max_num_seqs
        && settings.chunked_prefill == fleet.chunked_prefill
        && settings
            .max_num_batched_tokens
            .is_none_or(|budget| budget == fleet.max_num_batched_tokens);
    let capacity = scenario_for(settings, 1.0).ok()?.arrival_rate()?;
    (as_calibrated && capacity > 0.0).then_some((server, band, capacity))
}

/// The TTFT band to draw on the lab's latency chart, loads as fractions of the lab's capacity.
pub fn fit_band(settings: &LabSettings) -> Option<FitBand> {
    let (_, band, capacity) = band_in_lab(settings)?;
    Some(FitBand {
        points: band
            .points
            .iter()
            .map(|p| FitBandPoint {
                offered_load: p.rate / capacity,
                p50_s: p.p50,
                p99_s: p.p99,
            })
            .collect(),
        knee: band.knee.map(|k| (k.low / capacity, k.high / capacity)),
    })
}

fn rate_range(r: &Range) -> String {
    format!("{:.2}–{:.2} req/s", r.low, r.high)
}

/// The capacity and the knee as ranges, in the lab's words; `None` when the lab does not run the learner's server as
/// it was calibrated, or the fit gave no band.
pub fn ranges_text(settings: &LabSettings) -> Option<String> {
    let server = settings.running_server()?;
    let Some((_, band, capacity)) = band_in_lab(settings) else {
        return server.band.as_ref().map(|_| {
            "The shaded ranges are your server's as you calibrated it (open loop, its own flags, no queue cap); with \
             these settings they are not drawn."
                .to_owned()
        });
    };
    let mut text = format!(
        "Within the uncertainty of its fitted step times, your server's capacity is {}",
        rate_range(&band.capacity)
    );
    match &band.knee {
        Some(knee) => {
            text += &format!(
                " and its knee, where p99 TTFT doubles from light load, is at {} ({}–{} load). The shaded bands \
                 around p50 and p99 are the TTFT those step times allow.",
                rate_range(knee),
                format_percent(knee.low / capacity),
                format_percent(knee.high / capacity)
            );
        }
        None => text += "; the model shows no knee below it.",
    }
    let reference = band.knee.map_or(band.capacity.central, |k| k.central);
    match band.highest_measured {
        Some(highest) if band.extrapolates() => {
            text += &format!(
                " Every run you gave is light load: the heaviest, {highest:.2} req/s, is {} of the knee. Up to about \
                 {:.2} req/s ({} load) the curves rest on measured batches; beyond that, and at the knee, they \
                 extrapolate the step-time model, and the bands leave out what that model itself gets wrong. Measure \
                 a run near the knee to be sure.",
                format_percent(highest / reference),
                2.0 * highest,
                format_percent(2.0 * highest / capacity)
            );
        }
        Some(highest) => {
            text += &format!(
                " Your runs reach {highest:.2} req/s, {} of the knee, so the knee is within what was measured.",
                format_percent(highest / reference)
            );
        }
        None => {
            text += " No run you gave says its rate, so how far this extrapolates is unknown.";
        }
    }
    Some(text)
}
