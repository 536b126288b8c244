//! The `batch-timeline` widget: inside the batch at the knee lab's settings. A few seconds of one replica's life from
//! the simulation ([`crate::lab::timeline`]), one request followed through it, the step-time formula beside it, and
//! the same window under one other setting.
//!
//! State: the settings and the reader's view (the comparison, the request followed) are [`synced_signal`]s, so
//! presentation windows mirror them; the settings follow the knee lab's whenever the learner changes those (see
//! [`LabSettingsLink`](super::LabSettingsLink)). Each setting's figures are computed once (a few milliseconds: two
//! short runs of the model) and kept, so moving the load slider back and forth only redraws.

use std::sync::Arc;

use leptos::prelude::*;
use leptos_use_timeout_fn::use_timeout_fn;

use super::knee_lab::controls::{ChoiceSelect, ChunkingControls, LoadSlider, PresetSelect};
use super::knee_lab::{keep_reconciled, SettingNotes};
use super::{use_held_server, use_lab_settings_link, WidgetFrame};
use crate::charts::followed_sentence;
use crate::components::chart_canvas::{canvas_chart, ChartCanvas};
use crate::components::next_task::NextTask;
use crate::components::perf;
use crate::components::sync::synced_signal;
use crate::components::theme::use_chart_theme;
use crate::lab::timeline::{from_directive, worked_sentence, StepFormula, CAPTION};
use crate::lab::{timeline_figures, Compare, LabSettings, TimelineFigures, TimelineView};
use crate::lesson::WidgetEmbed;
use crate::presentation::sync::keys;

/// Settings whose figures are kept: every load of the slider (85-120% when a queue cap sheds), and a few more.
const KEPT: usize = 40;
/// The slider's loads computed ahead, nearest first: fewer than are kept, so that warming a wide range (the
/// learner's own server reaches down to 1%) never pushes out the figures on show.
const WARMED: usize = 32;

type Key = (LabSettings, TimelineView);

/// The figures computed so far, the oldest dropped first once [`KEPT`] are kept.
#[derive(Default)]
struct KeptFigures(Vec<(Key, Arc<TimelineFigures>)>);

impl KeptFigures {
    fn has(&self, key: &Key) -> bool {
        self.0.iter().any(|(k, _)| k == key)
    }

    /// The figures of `key`, computed (and timed as `timeline:compute`) unless they are kept.
    fn get_or_compute(&mut self, key: Key) -> Arc<TimelineFigures> {
        if let Some((_, found)) = self.0.iter().find(|(k, _)| *k == key) {
            return Arc::clone(found);
        }
        let started = perf::now();
        let computed = Arc::new(timeline_figures(&key.0, &key.1));
        perf::measure("timeline:compute", started, perf::now());
        if self.0.len() >= KEPT {
            self.0.remove(0);
        }
        self.0.push((key, Arc::clone(&computed)));
        computed
    }
}

/// The batch timeline with the directive's settings as defaults.
#[component]
pub fn BatchTimelineWidget(widget: &'static WidgetEmbed, id: String) -> impl IntoView {
    let (defaults, start_view, mut notes) = from_directive(&widget.settings);
    let held = use_held_server();
    let (defaults, clashes) = held.attached_to(defaults).reconciled();
    notes.extend(clashes);
    let notes = RwSignal::new(notes);
    let settings = synced_signal(keys::widget(&id, "settings"), defaults);
    keep_reconciled(settings, notes, held);
    let view = synced_signal(keys::widget(&id, "view"), start_view);
    follow_the_lab(settings);
    forget_the_followed_request_when_the_settings_change(settings, view);

    let kept = StoredValue::new(KeptFigures::default());
    let figures = Memo::new(move |_| {
        let key = (settings.get(), view.get());
        kept.try_update_value(|kept| kept.get_or_compute(key))
            .expect("kept lives as long as the memo")
    });
    warm_the_other_loads(settings, view, kept);

    let theme = use_chart_theme();
    let chart = canvas_chart(Memo::new(move |_| figures.with(|f| f.main.clone())));
    let on_pick = Callback::new(move |(across, down): (f64, f64)| {
        figures.with_untracked(|f| {
            let (from, until) = f.main.window;
            let time = from + across * (until - from);
            if let Some(request) = f.main.request_at(down, time) {
                let follow = (Some(request) != f.tail_pick).then_some(request);
                view.update(|v| v.follow = follow);
            }
        });
    });
    let field = |name: &str| format!("{id}-{name}");
    let [load_id, budget_id, preset_id, compare_id, follow_id] = [
        "load",
        "max-num-batched-tokens",
        "preset",
        "compare",
        "follow",
    ]
    .map(field);
    let story = move || figures.with(|f| f.main.followed.as_ref().map(followed_sentence));
    let frame_id = id.clone();
    view! {
        <WidgetFrame widget id=frame_id>
            <SettingNotes notes/>
            <div class="batch-timeline">
                // The slider stays in view while the timeline scrolls under it, as in the knee lab.
                <div class="lab-strip timeline-strip" role="group" aria-label="Offered load">
                    <LoadSlider settings id=load_id measure="timeline:input-to-paint"/>
                </div>
                <div class="lab-controls timeline-controls" role="group" aria-label="Settings of the timeline">
                    <ChunkingControls settings budget_id/>
                    <PresetSelect settings id=preset_id/>
                    <ChoiceSelect
                        id=compare_id
                        label="Compare with"
                        choices=compare_choices()
                        current=Signal::derive(move || view.with(|v| v.compare))
                        on_pick=move |compare| view.update(|v| v.compare = compare)
                    />
                    <FollowSelect id=follow_id figures view/>
                </div>
                <p class="timeline-story">{story}</p>
                <div class="timeline-main">
                    <ChartCanvas chart theme caption=CAPTION on_pick/>
                </div>
                <Formula formula=Signal::derive(move || figures.with(|f| f.formula.clone()))/>
                <Comparison figures theme/>
            </div>
        </WidgetFrame>
    }
}

/// The comparison's choices for a [`ChoiceSelect`].
fn compare_choices() -> Vec<(Compare, &'static str, &'static str)> {
    Compare::ALL
        .iter()
        .map(|&c| (c, c.key(), c.label()))
        .collect()
}

/// Quiet time after the last change of the knee lab's settings before the timeline takes them, milliseconds: a drag
/// of the lab's slider then costs the lab nothing, and the timeline follows once the learner lets go.
const FOLLOW_DEBOUNCE_MS: f64 = 250.0;

/// Takes the knee lab's settings whenever the learner changes them there (at once when the timeline mounts).
fn follow_the_lab(settings: RwSignal<LabSettings>) {
    let link = use_lab_settings_link();
    let adopt = move |lab: LabSettings| {
        // `try_`: the timeline may have left the page (a presentation moved on) while the timer waited.
        if settings.try_with_untracked(|s| *s != lab) == Some(true) {
            settings.try_set(lab);
        }
    };
    // Taken before the timeline's first figures, so that mounting computes them once, for the lab's settings.
    if let Some(lab) = link.0.get_untracked() {
        adopt(lab);
    }
    // Each change restarts the pause; the timer is cleared with the timeline.
    let adopt_later = use_timeout_fn(adopt, FOLLOW_DEBOUNCE_MS).start;
    Effect::new(move |mounted: Option<()>| {
        let Some(lab) = link.0.get() else {
            return;
        };
        if mounted.is_none() {
            adopt(lab);
        } else {
            adopt_later(lab);
        }
    });
}

/// Once the figures on show are in, computes those of the slider's other loads (nearest first, the request followed
/// left to the slow-tail pick, as a load change leaves it), one a task: a drag then finds each load kept and only
/// redraws. Computed as the slider moves, a load cost its input 10-26 ms on a slow laptop, and with the drawing that
/// made tasks over 50 ms. A change of any other setting starts over from the new settings (a drag's loads are among
/// those already warming, so it starts nothing); the work stops with the timeline.
fn warm_the_other_loads(
    settings: RwSignal<LabSettings>,
    view: RwSignal<TimelineView>,
    kept: StoredValue<KeptFigures>,
) {
    let task = StoredValue::new_local(NextTask::new());
    // Everything but the load and the request followed, which the warmed keys set themselves.
    let warmed = Memo::new(move |_| {
        let settings = LabSettings {
            load_percent: 0,
            ..settings.get()
        };
        let view = TimelineView {
            follow: None,
            ..view.get()
        };
        (settings, view)
    });
    Effect::new(move |_| {
        let (others, view) = warmed.get();
        let (lo, hi) = others.load_range_percent();
        let here = settings.with_untracked(|s| s.load_percent);
        let mut loads: Vec<u32> = (lo..=hi).filter(|&load| load != here).collect();
        loads.sort_by_key(|&load| load.abs_diff(here));
        loads.truncate(WARMED);
        let keys: Vec<Key> = loads
            .into_iter()
            .map(|load_percent| {
                let settings = LabSettings {
                    load_percent,
                    ..others.clone()
                };
                (settings, view)
            })
            .collect();
        warm_next(task, kept, keys);
    });
}

/// Computes the first of `keys` not kept yet in a task of its own, then posts the rest.
fn warm_next(
    task: StoredValue<NextTask, LocalStorage>,
    kept: StoredValue<KeptFigures>,
    mut keys: Vec<Key>,
) {
    task.try_with_value(|channel| {
        channel.post(move || {
            let Some(at) = kept
                .try_with_value(|kept| keys.iter().position(|key| !kept.has(key)))
                .flatten()
            else {
                return;
            };
            let key = keys.remove(at);
            keys.drain(..at);
            kept.try_update_value(|kept| kept.get_or_compute(key));
            warm_next(task, kept, keys);
        })
    });
}

/// Another setting is another run: the request followed there is not the one followed here, so the slow-tail pick
/// takes over again.
fn forget_the_followed_request_when_the_settings_change(
    settings: RwSignal<LabSettings>,
    view: RwSignal<TimelineView>,
) {
    Effect::new(move |previous: Option<LabSettings>| {
        let current = settings.get();
        if previous.is_some_and(|p| p != current) && view.with_untracked(|v| v.follow.is_some()) {
            view.update(|v| v.follow = None);
        }
        current
    });
}

/// Picks the request followed, by keyboard: every request in the window, the slow-tail pick first named.
#[component]
fn FollowSelect(
    id: String,
    figures: Memo<Arc<TimelineFigures>>,
    view: RwSignal<TimelineView>,
) -> impl IntoView {
    let current = move || {
        figures.with(|f| {
            view.with(|v| v.follow)
                .or(f.tail_pick)
                .map(|i| i.to_string())
                .unwrap_or_default()
        })
    };
    let options = move || {
        figures.with(|f| {
            f.requests
                .iter()
                .map(|choice| {
                    let value = choice.index.to_string();
                    let selected = {
                        let value = value.clone();
                        move || current() == value
                    };
                    view! { <option value=value selected=selected>{choice.label.clone()}</option> }
                })
                .collect_view()
        })
    };
    view! {
        <div class="lab-field timeline-follow">
            <label for=id.clone()>"Follow request"</label>
            <select id=id prop:value=current on:change=move |ev| {
                let Ok(index) = event_target_value(&ev).parse::<u64>() else {
                    return;
                };
                let follow = figures.with_untracked(|f| (Some(index) != f.tail_pick).then_some(index));
                view.update(|v| v.follow = follow);
            }>
                {options}
            </select>
        </div>
    }
}

/// The step-time formula with the preset's coefficients, where they come from, and the longest iteration worked out.
#[component]
fn Formula(#[prop(into)] formula: Signal<StepFormula>) -> impl IntoView {
    let terms = move || {
        formula.with(|f| {
            let [(_, fixed), (_, prefill), (_, decode), (_, context)] = f.terms.clone();
            let memory = view! {
                <strong>{fixed}</strong>
                " + " <strong>{prefill}</strong> " × prefill tokens"
                " + " <strong>{decode}</strong> " × decoding sequences"
            };
            let kv_read = view! { <strong>{context}</strong> " × context tokens" };
            match f.compute.clone() {
                None => view! { "step time = " {memory} " + " {kv_read} }.into_any(),
                Some([compute_fixed, per_token]) => view! {
                    "step time = the larger of " {memory} " (memory) and " <strong>{compute_fixed}</strong>
                    " + " <strong>{per_token}</strong> " × (prefill tokens + decoding sequences) (compute), plus "
                    {kv_read} " (the KV read)"
                }
                .into_any(),
            }
        })
    };
    let example = move || formula.with(|f| f.example.as_ref().map(worked_sentence));
    view! {
        <div class="timeline-formula" role="group" aria-label="The step-time model">
            <p class="timeline-formula-terms">{terms}</p>
            <p class="timeline-formula-source">{move || formula.with(|f| f.source)}</p>
            <p class="timeline-formula-example">{example}</p>
        </div>
    }
}

/// The same window under the other setting, with a sentence saying what changed.
#[component]
fn Comparison(
    figures: Memo<Arc<TimelineFigures>>,
    theme: Signal<crate::charts::ChartTheme>,
) -> impl IntoView {
    // The canvas is made again only when what is compared changes, not at every new figure.
    let name =
        Memo::new(move |_| figures.with(|f| f.compare.as_ref().map(|(name, _)| name.clone())));
    let chart = canvas_chart(Memo::new(move |_| {
        figures.with(|f| {
            f.compare
                .as_ref()
                .map(|(_, t)| t.clone())
                .unwrap_or_default()
        })
    }));
    move || {
        name.get().map(|name| {
            view! {
                <p class="timeline-comparison">{move || figures.with(|f| f.comparison.clone())}</p>
                <div class="timeline-other">
                    <ChartCanvas chart theme caption=format!("The same requests with {name}")/>
                </div>
            }
        })
    }
}
