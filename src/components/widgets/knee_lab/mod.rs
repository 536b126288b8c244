//! The knee lab in the page: controls, four charts, readouts and the simulated `/metrics`, driven by the pure
//! [`crate::lab`]. The `goodput-chart` directive shows the same lab pared down to its load slider and chart 2.
//!
//! State: the learner's [`LabSettings`] live in one [`synced_signal`] (so presentation windows mirror them) and, for
//! the full lab, in the page URL (so an instructor can share "97% load, closed loop"). The sweep reruns only when a
//! setting other than the load or the metric changes: the slider just picks a point of a sweep already computed.

pub(super) mod controls;
mod queue_cap;
mod readouts;
mod url_state;
mod your_server;
mod your_server_slot;

use leptos::prelude::*;
use leptos_use_timeout_fn::use_timeout_fn;

use super::{
    use_held_server, use_lab_link, use_lab_settings_link, HeldServerLink, LabReading, WidgetFrame,
};
use crate::components::chart_canvas::{canvas_chart, ChartCanvas};
use crate::components::lesson::use_progress;
use crate::components::perf;
use crate::components::sliced_sweep::{use_sliced_sweep, Publish, RunState};
use crate::components::sync::synced_signal;
use crate::components::theme::use_chart_theme;
use crate::lab::settings::SettingNote;
use crate::lab::{sweep_for, Figures, LabSettings, LabTask};
use crate::lesson::WidgetEmbed;
use crate::model::your_server::HeldServer;
use crate::model::{Estimate, SlicedSweep};
use crate::presentation::sync::keys;

/// What "Your server"'s code, behind its own split point, fills in and wires: the `host` of the lab's panel
/// (`your_server_slot`), the lab's settings, which it switches to the calibrated server it puts in `held`, and the
/// lab's id.
pub struct YourServerArgs {
    pub host: web_sys::Element,
    pub settings: RwSignal<LabSettings>,
    pub held: HeldServerLink,
    pub id: String,
}

/// Fills in "Your server"'s panel in the lab (see [`YourServerArgs`]).
pub fn your_server_panel(args: YourServerArgs) {
    your_server::fill_panel(args);
}

/// Which parts of the lab a directive shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LabVariant {
    /// Every control and all four charts; its settings are kept in the URL.
    Full,
    /// The load slider, the SLOs and the throughput-vs-goodput chart.
    GoodputOnly,
}

/// The knee lab (or its goodput-only variant) with the directive's settings as defaults.
#[component]
pub fn KneeLab(widget: &'static WidgetEmbed, id: String, variant: LabVariant) -> impl IntoView {
    let (defaults, mut notes) = LabSettings::from_directive(&widget.settings);
    // Before the first reconciliation: a link saying `preset=yours` needs the server this browser keeps.
    let held = use_held_server();
    notes.extend(your_server_slot::restore(held));
    let initial = if variant == LabVariant::Full {
        let (from_url, url_notes) = url_state::read(&defaults);
        notes.extend(url_notes);
        from_url
    } else {
        defaults.clone()
    };
    let (initial, clashes) = held.attached_to(initial).reconciled();
    notes.extend(clashes);
    let notes = RwSignal::new(notes);
    let settings = synced_signal(keys::widget(&id, "settings"), initial);
    keep_reconciled(settings, notes, held);
    if variant == LabVariant::Full {
        url_state::keep_in_url(settings, defaults.clone());
    }
    // The sweep depends on everything but the load, the metric and the latency axis.
    // Reconciled here too: a field's clashing value is in the signal for a moment before `keep_reconciled` mends it,
    // and the sweep should never start on it.
    let sweep_settings = Memo::new(move |_| {
        let settings = settings.get().reconciled().0;
        LabSettings {
            load_percent: 100,
            metric: Default::default(),
            scale: Default::default(),
            // The band, which comes after the server, changes what is drawn, not what is simulated.
            your_server: settings.your_server.as_ref().map(HeldServer::without_band),
            ..settings
        }
    });
    // Only the full lab reports to the benchmark and to the other widgets: one lab per page is "the" lab.
    let label = match variant {
        LabVariant::Full => "lab",
        LabVariant::GoodputOnly => "goodput-chart",
    };
    let (snapshot, run_state) = use_sliced_sweep(
        move || Some(sweep_settings.get()),
        move |settings| sweep_for(settings, &settings.load_points()),
        Snapshot::of,
        Publish::EveryPass,
        Some(label),
    );
    let figures = Memo::new(move |_| {
        let settings = settings.get();
        snapshot.with(|snapshot| {
            let points: Vec<_> = snapshot
                .iter()
                .flat_map(|s| s.points.iter().map(|(load, e)| (*load, e.as_ref())))
                .collect();
            Figures::new(&settings, &points)
        })
    });
    if variant == LabVariant::Full {
        publish_settings(settings, defaults.clone());
        publish_reading(settings, figures, run_state);
        first_draw_mark(snapshot);
        tick_tasks(settings, figures, run_state);
    }

    let theme = use_chart_theme();
    let throughput = canvas_chart(Memo::new(move |_| figures.with(|f| f.throughput.clone())));
    let (main_charts, more) = match variant {
        LabVariant::Full => {
            let latency = canvas_chart(Memo::new(move |_| figures.with(|f| f.latency.clone())));
            let queue = canvas_chart(Memo::new(move |_| figures.with(|f| f.queue.clone())));
            let distribution =
                canvas_chart(Memo::new(move |_| figures.with(|f| f.distribution.clone())));
            (
                view! {
                    <div class="lab-charts lab-charts-main">
                        <ChartCanvas chart=latency theme caption_only=true caption="Latency against offered load"/>
                        <ChartCanvas chart=throughput theme caption_only=true caption="Throughput and goodput against offered load"/>
                    </div>
                }
                .into_any(),
                Some(view! {
                    <readouts::MoreReadouts figures/>
                    <div class="lab-charts lab-charts-more">
                        <ChartCanvas chart=queue theme caption="Running and waiting requests over time"/>
                        <ChartCanvas chart=distribution theme caption="Latency distribution at the current load"/>
                    </div>
                }),
            )
        }
        LabVariant::GoodputOnly => (
            view! {
                <div class="lab-charts lab-charts-main lab-charts-single">
                    <ChartCanvas chart=throughput theme caption_only=true caption="Throughput and goodput against offered load"/>
                </div>
            }
            .into_any(),
            None,
        ),
    };
    let frame_id = id.clone();
    let full = variant == LabVariant::Full;
    view! {
        <WidgetFrame widget id=frame_id>
            <SettingNotes notes/>
            <div class=format!("knee-lab knee-lab-{}", if full { "full" } else { "goodput" })>
                // Stays in view while the charts scroll under it (style/lab.css): the slider and the figures it
                // moves, on the screen with the picture at every size.
                <div class="lab-strip" role="group" aria-label="Offered load and what it does">
                    <controls::LoadSlider settings id=format!("{id}-load") measure="lab:input-to-paint"/>
                    <readouts::SliderReadouts figures variant/>
                </div>
                <controls::ArrivalControls settings variant id=id.clone()/>
                {main_charts}
                <readouts::LabStory figures run_state/>
                {more}
                <controls::ScenarioControls settings variant id=id.clone()/>
                {full.then(|| view! {
                    <your_server_slot::YourServerSlot settings held id=id.clone()/>
                    <SimulatedMetrics settings/>
                })}
            </div>
        </WidgetFrame>
    }
}

impl HeldServerLink {
    /// `settings` holding this window's calibrated server (settings from a URL or another window hold none).
    pub(super) fn attached_to(self, settings: LabSettings) -> LabSettings {
        LabSettings {
            your_server: self.0.get_untracked(),
            ..settings
        }
    }
}

/// Keeps `settings` ones the model accepts, holding this window's calibrated server (`held`): whatever a field, the
/// URL or another window puts in the signal is reconciled ([`LabSettings::reconciled`]), and each change made is
/// added to `notes` for the learner to see.
pub(super) fn keep_reconciled(
    settings: RwSignal<LabSettings>,
    notes: RwSignal<Vec<SettingNote>>,
    held: HeldServerLink,
) {
    Effect::new(move |_| {
        let current = settings.get();
        let with_server = LabSettings {
            your_server: held.0.get(),
            ..current.clone()
        };
        let (reconciled, changes) = with_server.reconciled();
        if reconciled != current {
            notes.update(|notes| notes.extend(changes));
            settings.set(reconciled);
        }
    });
}

/// The values from the lesson or the URL that could not be used as given, with what was used instead.
#[component]
pub(super) fn SettingNotes(notes: RwSignal<Vec<SettingNote>>) -> impl IntoView {
    view! {
        <Show when=move || notes.with(|n| !n.is_empty())>
            <div class="lab-notes" role="status">
                <p>"Some settings were adjusted:"</p>
                <ul>
                    {move || notes.get().into_iter().map(|note| view! { <li>{note.message}</li> }).collect_view()}
                </ul>
                <button type="button" on:click=move |_| notes.set(Vec::new())>"Dismiss"</button>
            </div>
        </Show>
    }
}

/// Shares the full lab's settings with the batch timeline once they differ from the lesson's `defaults` (and from
/// then on, every change).
fn publish_settings(settings: RwSignal<LabSettings>, defaults: LabSettings) {
    let link = use_lab_settings_link();
    Effect::new(move |published: Option<bool>| {
        let current = settings.get();
        let publish = published == Some(true) || current != defaults;
        if publish && link.0.try_get_untracked().flatten().as_ref() != Some(&current) {
            link.0.try_set(Some(current));
        }
        publish
    });
}

/// Quiet time after the last change before the reading (with its simulated `/metrics`) is shared, milliseconds: the
/// page is only asked for that extra run once the learner has settled on a setting.
const READING_DEBOUNCE_MS: f64 = 300.0;

/// Shares the lab's converged reading with the sizer and the metrics reader.
fn publish_reading(
    settings: RwSignal<LabSettings>,
    figures: Memo<Figures>,
    run_state: ReadSignal<RunState>,
) {
    let link = use_lab_link();
    // The simulated `/metrics` is an extra run: made once the pause is over.
    let timer = use_timeout_fn(
        move |(settings, reading): (LabSettings, LabReading)| {
            link.0.set(Some(LabReading {
                metrics_text: crate::lab::simulated_metrics(&settings).unwrap_or_default(),
                ..reading
            }));
        },
        READING_DEBOUNCE_MS,
    );
    let (publish_later, cancel) = (timer.start, timer.stop);
    Effect::new(move |_| {
        let settings = settings.get();
        let reading = figures.with(|f| LabReading {
            load: f.readouts.load,
            replicas: settings.replicas,
            max_num_seqs: settings.max_num_seqs,
            mean_latency_s: f.readouts.mean_latency_s,
            throughput_rps: f.readouts.throughput,
            metrics_text: String::new(),
        });
        if run_state.get() == RunState::Done {
            publish_later((settings, reading));
        } else {
            cancel();
        }
    });
}

/// Ticks the lesson's lab tasks (see [`LabTask`]) the moment the converged lab shows one done.
fn tick_tasks(
    settings: RwSignal<LabSettings>,
    figures: Memo<Figures>,
    run_state: ReadSignal<RunState>,
) {
    let progress = use_progress();
    Effect::new(move |_| {
        if run_state.get() != RunState::Done {
            return;
        }
        let settings = settings.get();
        figures.with(|figures| {
            for task in LabTask::ALL {
                if task.is_done(&settings, figures) {
                    progress.tick(task.id());
                }
            }
        });
    });
}

/// Marks `lab:first-draw` at the frame after the first results arrive.
fn first_draw_mark(snapshot: ReadSignal<Option<Snapshot>>) {
    let marked = StoredValue::new(false);
    Effect::new(move |_| {
        if snapshot.with(Option::is_some) && !marked.get_value() {
            marked.set_value(true);
            request_animation_frame(|| perf::mark("lab:first-draw"));
        }
    });
}

/// The sweep's results after a pass.
#[derive(Clone, Debug, PartialEq)]
struct Snapshot {
    /// Load and latest estimate per point, ordered by load.
    points: Vec<(f64, Option<Estimate>)>,
}

impl Snapshot {
    fn of(sweep: &SlicedSweep) -> Snapshot {
        Snapshot {
            points: sweep
                .points()
                .map(|(load, estimate)| (load, estimate.cloned()))
                .collect(),
        }
    }
}

/// The current run as the `/metrics` page a vLLM server would serve, computed when the learner opens it.
#[component]
fn SimulatedMetrics(settings: RwSignal<LabSettings>) -> impl IntoView {
    let open = RwSignal::new(false);
    let text = Memo::new(move |_| {
        if !open.get() {
            return String::new();
        }
        crate::lab::simulated_metrics(&settings.get())
            .unwrap_or_else(|error| format!("# cannot simulate these settings: {error}"))
    });
    view! {
        <details class="lab-metrics" on:toggle=move |ev| {
            open.set(event_target::<web_sys::HtmlDetailsElement>(&ev).open());
        }>
            <summary>"Simulated /metrics at the current load"</summary>
            <p>"What a Prometheus scrape of this server would return now (same metric names and buckets as vLLM):"</p>
            <pre class="lab-metrics-text" tabindex="0">{move || text.get()}</pre>
        </details>
    }
}
