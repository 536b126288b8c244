//! The Little's Law sizer: concurrency cap, latency at the knee, peak demand and headroom in; per-replica max QPS,
//! replicas and requests in flight out, with the arithmetic written out in the learner's numbers. Below it, the
//! sizing as a ready-to-paste scaling rule, and SLOs to start from for common workloads. The sums live in
//! [`crate::cluster::sizing`] and [`crate::cluster::autoscale`]; this file only draws them.

use super::{use_lab_link, CopyBlock, LabReading, WidgetFrame};
use crate::charts::format::{format_latency, format_number, format_percent};
use crate::cluster::autoscale::{self, ScalingPlan, SLO_SUGGESTIONS};
use crate::cluster::sizing::{size_from_text, Sizing, SizingError, SizingField};
use crate::components::sync::synced_signal;
use crate::lesson::WidgetEmbed;
use crate::presentation::sync::keys;
use leptos::prelude::*;

/// How far above the forecast peak the autoscaler may grow the fleet.
const SURGE: f64 = 2.0;

type SizingResult = Result<Sizing, Vec<SizingError>>;

/// The sizer, its scaling rule and the SLO suggestions.
#[component]
pub fn LittlesLawSizer(widget: &'static WidgetEmbed, id: String) -> impl IntoView {
    let mut notes = Vec::new();
    let mut setting = |field: SizingField| {
        let key = field.setting_key();
        let (value, note) = widget.number_setting(key, field.default_value());
        notes.extend(note);
        synced_signal(keys::widget(&id, key), value.to_string())
    };
    let [cap, latency, peak, headroom] = SizingField::ALL.map(&mut setting);
    let model_name = synced_signal(keys::widget(&id, "model_name"), "my-model".to_owned());
    let sizing: Memo<SizingResult> = Memo::new(move |_| {
        size_from_text(&cap.read(), &latency.read(), &peak.read(), &headroom.read())
    });
    let error_of = move |field: SizingField| {
        Signal::derive(move || {
            sizing.with(|result| {
                result.as_ref().err().and_then(|errors| {
                    errors
                        .iter()
                        .find(|error| error.field == field)
                        .map(|error| error.message.clone())
                })
            })
        })
    };
    view! {
        <WidgetFrame widget id=id.clone() notes>
            <div class="sizer">
                <fieldset class="sizer-inputs">
                    <legend>"Your replica and your traffic"</legend>
                    <SizerField field=SizingField::MaxNumSeqs id=format!("{id}-cap") text=cap
                        error=error_of(SizingField::MaxNumSeqs) hint="requests a replica runs at once"/>
                    <SizerField field=SizingField::LatencySeconds id=format!("{id}-latency") text=latency
                        error=error_of(SizingField::LatencySeconds) hint="end to end, measured just below the knee"/>
                    <LabLatencyButton latency id=format!("{id}-lab")/>
                    <SizerField field=SizingField::PeakQps id=format!("{id}-peak") text=peak
                        error=error_of(SizingField::PeakQps) hint="the busiest demand you must serve"/>
                    <SizerField field=SizingField::Headroom id=format!("{id}-headroom") text=headroom
                        error=error_of(SizingField::Headroom) hint="fraction of the maximum, e.g. 0.8"/>
                </fieldset>
                <SizerResult sizing/>
            </div>
            <ScalingRule sizing model_name id=format!("{id}-model")/>
            <SloSuggestions/>
        </WidgetFrame>
    }
}

/// One labelled text field with its hint, and its error beside it when the value is refused.
#[component]
fn SizerField(
    field: SizingField,
    id: String,
    text: RwSignal<String>,
    error: Signal<Option<String>>,
    hint: &'static str,
) -> impl IntoView {
    let hint_id = format!("{id}-hint");
    let error_id = format!("{id}-error");
    let described_by = {
        let (hint_id, error_id) = (hint_id.clone(), error_id.clone());
        move || match error.get() {
            Some(_) => format!("{error_id} {hint_id}"),
            None => hint_id.clone(),
        }
    };
    view! {
        <div class="sizer-field" class:has-error=move || error.get().is_some()>
            <label for=id.clone()>{field.label()}</label>
            // Text, not type=number: the browser would hide what was typed ("1e", "abc") behind an empty value,
            // and the learner should see their own input with the reason it is refused.
            <input
                id=id
                type="text"
                inputmode="decimal"
                autocomplete="off"
                spellcheck="false"
                prop:value=move || text.get()
                on:input=move |event| text.set(event_target_value(&event))
                aria-invalid=move || if error.get().is_some() { "true" } else { "false" }
                aria-describedby=described_by
            />
            <span class="sizer-hint" id=hint_id>{hint}</span>
            <span class="field-error" id=error_id>{move || error.get()}</span>
        </div>
    }
}

/// What the knee lab's current run offers the sizer, in a sentence.
fn lab_note(reading: Option<&LabReading>) -> String {
    let Some(reading) = reading else {
        return "The knee lab has no run yet: run it above, then take its latency from here."
            .to_owned();
    };
    match reading.mean_latency_s {
        Some(mean) => format!(
            "The knee lab's run: mean latency {} at {} load, --max-num-seqs {}.",
            format_latency(mean),
            format_percent(reading.load),
            reading.max_num_seqs
        ),
        None => format!(
            "At {} open-loop load the knee lab's queue grows without bound, so it has no latency to size with: move \
             it below 100%.",
            format_percent(reading.load)
        ),
    }
}

/// "Use the knee lab's latency": copies the lab's mean latency into the latency field, or says why it cannot.
#[component]
fn LabLatencyButton(latency: RwSignal<String>, id: String) -> impl IntoView {
    let lab = use_lab_link().0;
    let note_id = format!("{id}-note");
    // The lab's mean latency, when its run has one (an open loop at 100% has none).
    let lab_latency = move || lab.with(|r| r.as_ref().and_then(|r| r.mean_latency_s));
    let note = move || lab.with(|reading| lab_note(reading.as_ref()));
    let use_latency = move |_| {
        if let Some(mean) = untrack(lab_latency) {
            // Two decimals of a second is finer than any knee measurement, and reads as typed.
            latency.set(format!("{mean:.2}"));
        }
    };
    view! {
        <div class="sizer-lab">
            <button type="button" class="widget-button" disabled=move || lab_latency().is_none()
                aria-describedby=note_id.clone() on:click=use_latency>
                "Use the knee lab's latency"
            </button>
            <span class="sizer-hint" id=note_id>{note}</span>
        </div>
    }
}

/// The three figures and the arithmetic, or a plain "fix the marked field" while an input is refused.
#[component]
fn SizerResult(sizing: Memo<SizingResult>) -> impl IntoView {
    // Each figure as (value, unit); "—" with no unit while an input is refused.
    let figure = move |pick: fn(&Sizing) -> (String, &'static str)| {
        let part = move |unit: bool| {
            sizing.with(|result| match (result, unit) {
                (Ok(sizing), false) => pick(sizing).0,
                (Ok(sizing), true) => pick(sizing).1.to_owned(),
                (Err(_), false) => "—".to_owned(),
                (Err(_), true) => String::new(),
            })
        };
        view! {
            <span class="figure-value">{move || part(false)}</span>
            <span class="figure-unit">{move || part(true)}</span>
        }
    };
    let arithmetic = move || {
        sizing.with(|result| match result {
            Ok(sizing) => sizing
                .arithmetic
                .iter()
                .map(|line| view! { <li>{line.clone()}</li> })
                .collect_view()
                .into_any(),
            Err(errors) => {
                let fields = errors
                    .iter()
                    .map(|error| error.field.label())
                    .collect::<Vec<_>>()
                    .join(", ");
                view! { <li class="sizer-blocked">{format!("Fix the marked field ({fields}) to see the arithmetic.")}</li> }
                    .into_any()
            }
        })
    };
    view! {
        <div class="sizer-result">
            <dl class="sizer-figures" aria-live="polite">
                <div>
                    <dt>"Per-replica max QPS"</dt>
                    <dd>{figure(|s| (format_number(s.per_replica_max_qps), " requests/s"))}</dd>
                </div>
                <div>
                    <dt>"Replicas needed"</dt>
                    <dd>{figure(|s| (s.replicas.to_string(), ""))}</dd>
                </div>
                <div>
                    <dt>"In flight at peak"</dt>
                    <dd>{figure(|s| (format_number(s.in_flight_at_peak), " requests"))}</dd>
                </div>
            </dl>
            <h3 class="widget-subheading">"The arithmetic, with your numbers"</h3>
            <ol class="sizer-arithmetic">{arithmetic}</ol>
        </div>
    }
}

/// The sizing as a Prometheus alert rule and a KEDA `ScaledObject`, with where each number came from.
#[component]
fn ScalingRule(
    sizing: Memo<SizingResult>,
    model_name: RwSignal<String>,
    id: String,
) -> impl IntoView {
    let plan: Memo<Option<ScalingPlan>> = Memo::new(move |_| {
        sizing.with(|result| {
            result
                .as_ref()
                .ok()
                .map(|sizing| autoscale::plan(sizing, SURGE))
        })
    });
    // An empty name would give an invalid selector; the placeholder name makes the gap obvious in the YAML.
    let name = move || {
        let name = model_name.get();
        if name.trim().is_empty() {
            "my-model".to_owned()
        } else {
            name.trim().to_owned()
        }
    };
    let rule = Signal::derive(move || {
        plan.with(|plan| {
            plan.as_ref()
                .map(|p| autoscale::prometheus_alert_rule(p, &name()))
                .unwrap_or_default()
        })
    });
    let keda = Signal::derive(move || {
        plan.with(|plan| {
            plan.as_ref()
                .map(|p| autoscale::keda_scaled_object(p, &name()))
                .unwrap_or_default()
        })
    });
    let body = move || match plan.get() {
        None => view! {
            <p class="sizer-blocked">"Fix the marked field above and the rule appears here."</p>
        }
        .into_any(),
        Some(plan) => {
            let input = plan.sizing.input;
            let summary = format!(
                "Both come from your numbers: a cap of {}, {} latency, a peak of {} requests/s and {} headroom. \
                 They scale on vllm:num_requests_waiting: more than {} waiting per replica means the fleet is past its knee. \
                 The fleet never shrinks below the {} replicas the sizer found, and may grow to {} for {}× the peak.",
                format_number(input.max_num_seqs),
                format_latency(input.latency_seconds),
                format_number(input.peak_qps),
                format_percent(input.headroom),
                plan.waiting_threshold,
                plan.min_replicas,
                plan.max_replicas,
                format_number(plan.surge)
            );
            let provenance = plan
                .provenance
                .iter()
                .map(|line| view! { <li>{line.clone()}</li> })
                .collect_view();
            view! {
                <p>{summary}</p>
                <ul class="sizer-provenance">{provenance}</ul>
            }
            .into_any()
        }
    };
    let heading_id = format!("{id}-heading");
    view! {
        <section class="sizer-rule" aria-labelledby=heading_id.clone()>
            <h3 class="widget-subheading" id=heading_id.clone()>"From numbers to an autoscaler"</h3>
            {body}
            <div class="sizer-field sizer-model">
                <label for=id.clone()>"Model name (the model_name label of your server)"</label>
                <input id=id type="text" autocomplete="off" spellcheck="false"
                    prop:value=move || model_name.get()
                    on:input=move |event| model_name.set(event_target_value(&event))/>
            </div>
            <Show when=move || plan.with(Option::is_some)>
                <CopyBlock caption="Prometheus alert rule" file_name="vllm-knee.rules.yaml" text=rule/>
                <CopyBlock caption="KEDA ScaledObject" file_name="vllm-keda.yaml" text=keda/>
            </Show>
        </section>
    }
}

/// Suggested TTFT/TPOT SLOs for each kind of application in the table, each with its reasoning.
#[component]
fn SloSuggestions() -> impl IntoView {
    let cards = SLO_SUGGESTIONS
        .iter()
        .map(|suggestion| {
            view! {
                <li class="slo-card">
                    <h4>{suggestion.name}</h4>
                    <p class="slo-targets">
                        <span>{format!("p99 TTFT ≤ {}", format_latency(suggestion.slo.ttft_p99))}</span>
                        <span>{format!("p95 TPOT ≤ {}", format_latency(suggestion.slo.tpot_p95))}</span>
                    </p>
                    <p>{suggestion.reasoning}</p>
                </li>
            }
        })
        .collect_view();
    view! {
        <section class="slo-suggestions">
            <h3 class="widget-subheading">"SLOs to start from"</h3>
            <p>"Starting points to argue with, not standards: tighten them where people watch the tokens, loosen them where nobody does."</p>
            <ul class="slo-cards">{cards}</ul>
        </section>
    }
}
