//! Where "Your server" sits in the knee lab: its summary line, and the server this browser keeps. The panel itself
//! (its form, the files it reads, the worker it talks to: `your_server.rs`) is code of its own, fetched behind the
//! page's `your_server` split point when the learner opens the panel, or at once when a server is kept: a link to
//! the lab draws its charts without waiting for it. The kept server is read here, before the lab first reconciles its
//! settings (a link saying `preset=yours` needs it), so the lab runs it without the panel's code.

use leptos::prelude::*;

use super::YourServerArgs;
use crate::components::on_demand::{points, report_unloaded, try_again_while_online, OnDemand};
use crate::components::widgets::HeldServerLink;
use crate::lab::settings::SettingNote;
use crate::lab::LabSettings;
use crate::model::handoff;
use crate::model::your_server::HeldServer;

/// Local-storage keys: the server in handoff form, its fit report, its scenario file.
pub(super) const SERVER_KEY: &str = "goodput-your-server";
pub(super) const REPORT_KEY: &str = "goodput-your-server-report";
pub(super) const SCENARIO_KEY: &str = "goodput-your-server-scenario";

/// The panel's summary, the one line of it the lab shows closed.
const SUMMARY: &str = "Your server: put your own benchmark in the lab";

pub(super) fn storage() -> Option<web_sys::Storage> {
    window().local_storage().ok().flatten()
}

pub(super) fn stored(key: &str) -> Option<String> {
    storage()?.get_item(key).ok().flatten()
}

pub(super) fn forget_stored() {
    if let Some(storage) = storage() {
        for key in [SERVER_KEY, REPORT_KEY, SCENARIO_KEY] {
            let _ = storage.remove_item(key);
        }
    }
}

/// Reads the server this browser keeps into `held` (once per page), before the lab first reconciles its settings (a
/// link saying `preset=yours` needs it). A kept server that cannot be read is forgotten, with a note saying so.
pub(super) fn restore(held: HeldServerLink) -> Option<SettingNote> {
    if held.0.with_untracked(Option::is_some) {
        return None;
    }
    let text = stored(SERVER_KEY)?;
    match handoff::decode(&text) {
        Ok(server) => {
            held.0.set(Some(HeldServer::new(server)));
            None
        }
        Err(error) => {
            forget_stored();
            Some(SettingNote {
                key: "your_server".to_owned(),
                message: format!(
                    "the server this browser kept could not be read ({error}), so it was forgotten: calibrate \
                     it again under \"Your server\""
                ),
            })
        }
    }
}

/// Where the panel's code is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PanelCode {
    /// Not asked for: nobody opened the panel.
    Waiting,
    Loading,
    /// Could not be fetched (offline before its first use): asked for again when the panel is next opened or the
    /// browser is back online.
    Failed,
    /// Fetched, and the panel filled in.
    Here,
}

/// The panel as the lab first shows it: its summary, which the panel's code fills in below once fetched (on the same
/// `<details>`, so its place, its open state and the keyboard's focus stay as they were). Asked for when the learner
/// opens it (or points at, tabs to or drags a file over it, a moment before), and at once when this browser keeps a
/// server: the panel then opens on it, with its report.
#[component]
pub(super) fn YourServerSlot(
    settings: RwSignal<LabSettings>,
    held: HeldServerLink,
    id: String,
) -> impl IntoView {
    let host = NodeRef::<leptos::html::Div>::new();
    let details = NodeRef::<leptos::html::Details>::new();
    let code = RwSignal::new(PanelCode::Waiting);
    let id = StoredValue::new(id);
    // Failed fetches in a row, and a tick that asks for the code again (a closure cannot call itself).
    let failures = StoredValue::new(0_u32);
    let again = Trigger::new();
    let load = move || {
        if !matches!(code.get_untracked(), PanelCode::Waiting | PanelCode::Failed) {
            return;
        }
        code.set(PanelCode::Loading);
        leptos::task::spawn_local(async move {
            if let Err(error) = OnDemand::YourServer.load().await {
                report_unloaded("YourServer", &error);
                code.try_set(PanelCode::Failed);
                let failed = failures.try_update_value(|n| {
                    *n += 1;
                    *n
                });
                if let Some(n) = failed {
                    try_again_while_online(n, move || again.notify());
                }
                return;
            }
            failures.try_set_value(0);
            // The lab may have gone meanwhile (a presentation screen left).
            let Some(host) = host.get_untracked() else {
                return;
            };
            let args = YourServerArgs {
                host: host.into(),
                settings,
                held,
                id: id.get_value(),
            };
            let filled = points().and_then(|points| (points.your_server)(args));
            code.try_set(match filled {
                Some(()) => PanelCode::Here,
                None => PanelCode::Failed,
            });
        });
    };
    let kept = held.0.with_untracked(Option::is_some);
    host.on_load(move |_| {
        if kept {
            load();
        }
    });
    let is_open = move || details.get_untracked().is_some_and(|d| d.open());
    // Back online with the panel open and its code missing: try again, and a little later should that fail too.
    let online = window_event_listener(leptos::ev::online, move |_| {
        if code.get_untracked() == PanelCode::Failed && is_open() {
            failures.set_value(0);
            load();
        }
    });
    Effect::new(move |first: Option<()>| {
        again.track();
        if first.is_some() {
            load();
        }
    });
    on_cleanup(move || online.remove());
    let note = move || {
        match code.get() {
        PanelCode::Waiting | PanelCode::Loading => "Loading the calibration panel…",
        PanelCode::Failed => {
            "This part could not be loaded: the connection seems to be off. It comes to life once you are back \
             online."
        }
        PanelCode::Here => "",
    }
    };
    view! {
        <div node_ref=host>
            <details
                class="lab-your-server"
                data-yours="panel"
                node_ref=details
                open=kept
                on:toggle=move |_| {
                    if is_open() {
                        load();
                    }
                }
                // A file dragged here before the code came: the browser must not open it in the lesson's place. The
                // panel opens, loading, and takes the next drop.
                on:dragover=move |event| {
                    event.prevent_default();
                    load();
                }
                on:drop=move |event| {
                    if code.get_untracked() != PanelCode::Here {
                        event.prevent_default();
                        if let Some(details) = details.get_untracked() {
                            details.set_open(true);
                        }
                        load();
                    }
                }
            >
                <summary on:focus=move |_| load() on:pointerenter=move |_| load()>{SUMMARY}</summary>
                <p class="lab-your-loading" role="status" hidden=move || code.get() == PanelCode::Here>
                    {note}
                </p>
            </details>
        </div>
    }
}
