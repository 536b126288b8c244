//! The lab's controls: every one a labelled native form control, so the keyboard and screen readers work as they do
//! everywhere else. Numbers are committed on `change` (Enter or leaving the field), not on every keystroke, and a
//! value out of range is refused next to the field while the lab keeps its last good value.

use leptos::prelude::*;

use super::LabVariant;
use crate::charts::{LatencyMetric, LatencyScale};
use crate::components::perf;
use crate::lab::settings::{
    Choice, ARRIVAL_CV_RANGE, GPU_MEMORY_UTILIZATION_RANGE, MAX_NUM_BATCHED_TOKENS_RANGE,
    MAX_NUM_SEQS_RANGE, REPLICAS_RANGE, SLO_TPOT_MS_RANGE, SLO_TTFT_MS_RANGE,
};
use crate::lab::{LabSettings, LoopKind, Preset};

/// Chunked prefill and its token budget (`--max-num-batched-tokens`): the knee lab's and the batch timeline's. The
/// textbook queue has neither.
#[component]
pub fn ChunkingControls(settings: RwSignal<LabSettings>, budget_id: String) -> impl IntoView {
    let textbook = move || settings.with(|s| s.preset == Preset::Textbook);
    view! {
        <label class="lab-check">
            <input
                type="checkbox"
                prop:checked=move || settings.with(|s| s.chunked_prefill)
                disabled=textbook
                on:change=move |ev| settings.update(|s| s.chunked_prefill = event_target_checked(&ev))
            />
            " Chunked prefill"
        </label>
        <NumberField
            id=budget_id
            label="--max-num-batched-tokens"
            range=(f64::from(MAX_NUM_BATCHED_TOKENS_RANGE.0), f64::from(MAX_NUM_BATCHED_TOKENS_RANGE.1))
            step="256"
            whole=true
            disabled=Signal::derive(textbook)
            value=Signal::derive(move || f64::from(settings.with(|s| s.token_budget().unwrap_or(0))))
            on_valid=move |v: f64| settings.update(|s| s.max_num_batched_tokens = Some(v as u32))
        />
    }
}

/// How requests arrive (open or closed loop) and, in the full lab, which latency the charts show. The load slider is
/// not here: it sits in the lab's strip, beside the figures it moves.
#[component]
pub fn ArrivalControls(
    settings: RwSignal<LabSettings>,
    variant: LabVariant,
    id: String,
) -> impl IntoView {
    let field = |name: &str| format!("{id}-{name}");
    view! {
        <div class="lab-controls lab-primary" role="group" aria-label="Arrivals and the latency shown">
            <fieldset class="lab-loop">
                <legend>"Arrivals"</legend>
                {LoopKind::ALL.iter().map(|&kind| view! { <LoopRadio settings kind name=field("loop")/> }).collect_view()}
            </fieldset>
            {(variant == LabVariant::Full).then(|| view! { <MetricSelect settings id=field("metric")/> })}
            {(variant == LabVariant::Full).then(|| view! { <ScaleSwitch settings name=field("scale")/> })}
            {(variant == LabVariant::Full).then(|| view! { <super::queue_cap::QueueCapSelect settings id=field("queue-cap")/> })}
        </div>
    }
}

/// The scenario and its objectives: SLOs, and in the full lab the preset, the fleet and vLLM's flags, and the seed.
#[component]
pub fn ScenarioControls(
    settings: RwSignal<LabSettings>,
    variant: LabVariant,
    id: String,
) -> impl IntoView {
    let full = variant == LabVariant::Full;
    let textbook = move || settings.with(|s| s.preset == Preset::Textbook);
    let field = |name: &str| format!("{id}-{name}");
    view! {
        <fieldset class="lab-controls lab-scenario">
            <legend>{if full { "Scenario and SLOs" } else { "SLOs" }}</legend>
            <NumberField
                id=field("slo-ttft")
                label="TTFT SLO (p99, ms)"
                range=SLO_TTFT_MS_RANGE
                step="10"
                value=Signal::derive(move || settings.with(|s| s.slo_ttft_ms))
                on_valid=move |v| settings.update(|s| s.slo_ttft_ms = v)
            />
            <NumberField
                id=field("slo-tpot")
                label="TPOT SLO (p95, ms)"
                range=SLO_TPOT_MS_RANGE
                step="1"
                value=Signal::derive(move || settings.with(|s| s.slo_tpot_ms))
                on_valid=move |v| settings.update(|s| s.slo_tpot_ms = v)
            />
            {full.then(|| view! {
                <PresetSelect settings id=field("preset")/>
                <NumberField
                    id=field("replicas")
                    label=Signal::derive(move || if textbook() { "Servers" } else { "Replicas" }.to_owned())
                    range=(f64::from(REPLICAS_RANGE.0), f64::from(REPLICAS_RANGE.1))
                    step="1"
                    whole=true
                    value=Signal::derive(move || f64::from(settings.with(|s| s.replicas)))
                    on_valid=move |v: f64| settings.update(|s| s.replicas = v as u32)
                />
                <NumberField
                    id=field("max-num-seqs")
                    label="--max-num-seqs"
                    range=(f64::from(MAX_NUM_SEQS_RANGE.0), f64::from(MAX_NUM_SEQS_RANGE.1))
                    step="1"
                    whole=true
                    disabled=Signal::derive(textbook)
                    value=Signal::derive(move || f64::from(settings.with(|s| s.max_num_seqs)))
                    on_valid=move |v: f64| settings.update(|s| s.max_num_seqs = v as u32)
                />
                <ChunkingControls settings budget_id=field("max-num-batched-tokens")/>
                <NumberField
                    id=field("gpu-memory-utilization")
                    label="--gpu-memory-utilization"
                    range=GPU_MEMORY_UTILIZATION_RANGE
                    step="0.01"
                    disabled=Signal::derive(textbook)
                    value=Signal::derive(move || settings.with(|s| s.gpu_memory_utilization))
                    on_valid=move |v| settings.update(|s| s.gpu_memory_utilization = v)
                />
                <NumberField
                    id=field("arrival-cv")
                    label="Arrival gaps' CV (1 = Poisson)"
                    range=ARRIVAL_CV_RANGE
                    step="0.1"
                    disabled=Signal::derive(move || settings.with(|s| s.loop_kind == LoopKind::Closed))
                    value=Signal::derive(move || settings.with(|s| s.arrival_cv))
                    on_valid=move |v| settings.update(|s| s.arrival_cv = v)
                />
                <div class="lab-seed">
                    <button type="button" on:click=move |_| settings.update(|s| s.seed = s.seed.wrapping_add(1))>
                        "New sample"
                    </button>
                    <span>"seed " {move || settings.with(|s| s.seed)}</span>
                </div>
            })}
        </fieldset>
    }
}

/// The offered-load slider, its value always printed beside it. Each input is measured to the frame that shows it, as
/// `measure` (see [`perf`]).
#[component]
pub(crate) fn LoadSlider(
    settings: RwSignal<LabSettings>,
    id: String,
    measure: &'static str,
) -> impl IntoView {
    let min = move || settings.with(|s| s.load_range_percent().0);
    let max = move || settings.with(|s| s.load_range_percent().1);
    let percent = move || settings.with(|s| s.effective_load_percent());
    view! {
        <div class="lab-load">
            <label for=id.clone()>"Offered load"</label>
            <input
                id=id.clone()
                type="range"
                min=min
                max=max
                step="1"
                prop:value=move || percent().to_string()
                aria-valuetext=move || format!("{}% of saturation", percent())
                on:input=move |ev| {
                    if let Ok(value) = event_target_value(&ev).parse::<u32>() {
                        perf::measure_at_next_frame(measure.to_owned(), ev.time_stamp());
                        settings.update(|s| {
                            let (lo, hi) = s.load_range_percent();
                            s.load_percent = value.clamp(lo, hi);
                        });
                    }
                }
            />
            <output for=id class="lab-load-value">{move || format!("{}%", percent())}</output>
        </div>
    }
}

#[component]
fn LoopRadio(settings: RwSignal<LabSettings>, kind: LoopKind, name: String) -> impl IntoView {
    view! {
        <label class="lab-radio">
            <input
                type="radio"
                name=name
                value=kind.key()
                prop:checked=move || settings.with(|s| s.loop_kind == kind)
                on:change=move |_| settings.update(|s| s.loop_kind = kind)
            />
            " " {kind.label()}
        </label>
    }
}

/// The latency chart's axis, linear or log: two radio buttons, so arrow keys switch it as in any radio group.
#[component]
fn ScaleSwitch(settings: RwSignal<LabSettings>, name: String) -> impl IntoView {
    let radio = move |scale: LatencyScale| {
        view! {
            <label class="lab-radio">
                <input
                    type="radio"
                    name=name.clone()
                    value=scale.key()
                    prop:checked=move || settings.with(|s| s.scale == scale)
                    on:change=move |_| settings.update(|s| s.scale = scale)
                />
                " " {scale.label()}
            </label>
        }
    };
    view! {
        <fieldset class="lab-scale">
            <legend>"Latency axis"</legend>
            {LatencyScale::ALL.iter().map(|&scale| radio(scale)).collect_view()}
        </fieldset>
    }
}

#[component]
fn MetricSelect(settings: RwSignal<LabSettings>, id: String) -> impl IntoView {
    view! {
        <ChoiceSelect
            id
            label="Latency shown"
            choices={choices::<LatencyMetric>()}
            current=Signal::derive(move || settings.with(|s| s.metric))
            on_pick=move |metric| settings.update(|s| s.metric = metric)
        />
    }
}

#[component]
pub(crate) fn PresetSelect(settings: RwSignal<LabSettings>, id: String) -> impl IntoView {
    view! {
        <ChoiceSelect
            id
            label="Scenario"
            choices={choices::<Preset>()}
            current=Signal::derive(move || settings.with(|s| s.preset))
            on_pick=move |preset| settings.update(|s| s.preset = preset)
        />
    }
}

/// Every value of a lab choice with its form key and label, for a [`ChoiceSelect`].
pub(crate) fn choices<T: Choice>() -> Vec<(T, &'static str, &'static str)> {
    T::ALL.iter().map(|&c| (c, c.key(), c.label())).collect()
}

/// A labelled `<select>` over `choices` (value, form key, label shown).
#[component]
pub(crate) fn ChoiceSelect<T>(
    id: String,
    label: &'static str,
    choices: Vec<(T, &'static str, &'static str)>,
    #[prop(into)] current: Signal<T>,
    on_pick: impl Fn(T) + 'static,
) -> impl IntoView
where
    T: Copy + PartialEq + Send + Sync + 'static,
{
    let options = choices
        .iter()
        .map(|&(value, key, text)| {
            view! { <option value=key selected=move || current.get() == value>{text}</option> }
        })
        .collect_view();
    view! {
        <div class="lab-field">
            <label for=id.clone()>{label}</label>
            <select id=id on:change=move |ev| {
                let key = event_target_value(&ev);
                if let Some(&(value, _, _)) = choices.iter().find(|(_, k, _)| *k == key) {
                    on_pick(value);
                }
            }>
                {options}
            </select>
        </div>
    }
}

/// A number input that commits only valid values and explains an invalid one beside itself.
#[component]
pub(crate) fn NumberField(
    id: String,
    #[prop(into)] label: Signal<String>,
    range: (f64, f64),
    step: &'static str,
    #[prop(optional)] whole: bool,
    #[prop(optional, into)] disabled: Signal<bool>,
    #[prop(into)] value: Signal<f64>,
    on_valid: impl Fn(f64) + 'static,
) -> impl IntoView {
    let error = RwSignal::new(None::<String>);
    let error_id = format!("{id}-error");
    let described_by = error_id.clone();
    let check = move |text: &str| -> Result<f64, String> {
        let number: f64 = text
            .trim()
            .parse()
            .map_err(|_| "Enter a number.".to_owned())?;
        if !number.is_finite() || number < range.0 || number > range.1 {
            return Err(format!("Enter a number from {} to {}.", range.0, range.1));
        }
        if whole && number.fract() != 0.0 {
            return Err("Enter a whole number.".to_owned());
        }
        Ok(number)
    };
    view! {
        <div class="lab-field">
            <label for=id.clone()>{move || label.get()}</label>
            <input
                id=id
                type="number"
                inputmode="decimal"
                min=range.0
                max=range.1
                step=step
                disabled=move || disabled.get()
                prop:value=move || value.get().to_string()
                aria-invalid=move || error.with(Option::is_some).to_string()
                aria-describedby=move || error.with(Option::is_some).then(|| described_by.clone())
                on:change=move |ev| match check(&event_target_value(&ev)) {
                    Ok(number) => {
                        error.set(None);
                        on_valid(number);
                    }
                    Err(message) => error.set(Some(message)),
                }
            />
            <Show when=move || error.with(Option::is_some)>
                <p class="lab-field-error" id=error_id.clone()>{move || error.get()}</p>
            </Show>
        </div>
    }
}
