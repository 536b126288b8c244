//! The fleet widget: a day of the course box's fleet under an autoscaler, with the signal it scales on, the router,
//! the start-up delay and the traffic's shape to pick, and a scrubber (and Play) to move through the day.
//!
//! This file only holds the controls. The day is simulated and both charts are drawn, with their accessible text, by
//! the `fleet-worker` ([`crate::fleet_view`]), started when the widget mounts (as it nears the viewport): the fleet
//! model and the chart drawing stay out of the page's wasm. The worker keeps the days it computed, so scrubbing and
//! playing only redraw.
//!
//! The first visit downloads this file's code, so it is written for size: the controls are one HTML string written
//! once, their events are read where they bubble to the widget, and the few things that change are set on the DOM
//! directly rather than through reactive views.

use std::cell::RefCell;
use std::rc::Rc;

use super::WidgetFrame;
use crate::charts::fleet::clock;
use crate::charts::ChartTheme;
use crate::components::theme::use_chart_theme;
use crate::components::worker;
use crate::fleet_protocol::{FleetSettings, FromWorker, Policy, ToWorker, START_UP_DELAYS};
use crate::fleet_view::{DAY, START_AT, STEP};
use crate::lesson::WidgetEmbed;
use crate::model::fleet::{Route, Shape};
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Element, Event, HtmlInputElement};

/// Play moves one interval this often, milliseconds: the day in half a minute.
const PLAY_MS: u64 = 250;

/// What the widget holds between events.
#[derive(Default)]
struct State {
    /// The widget's `<div>`, once it is in the page.
    root: Option<Element>,
    /// The controls the worker sent, held until its first answer so that they, the summary and the charts come into
    /// the page together: the summary filling in later would push the scrubber down (a layout shift).
    controls: Option<String>,
    settings: FleetSettings,
    at: f64,
    /// The reader's theme, read at each draw.
    theme: Option<leptos::prelude::Signal<ChartTheme>>,
    /// The latest request posted: an older answer is dropped.
    request: u32,
    playing: Option<IntervalHandle>,
    worker: Option<web_sys::Worker>,
}

type Shared = Rc<RefCell<State>>;

/// The widget: its frame, into which the controls go once it is in the page.
pub fn fleet_widget(widget: &'static WidgetEmbed, id: String) -> impl IntoView {
    let theme = use_chart_theme();
    let state: Shared = Rc::new(RefCell::new(State {
        at: START_AT,
        ..State::default()
    }));
    state.borrow_mut().theme = Some(theme);
    let section = id.clone();
    // A new theme redraws the charts in it. The first run only subscribes: the frame below makes the first draw.
    let redraw = state.clone();
    Effect::new(move |subscribed: Option<()>| {
        theme.track();
        if subscribed.is_some() {
            draw(&redraw);
        }
    });
    // Once the frame is in the page: the controls, and the first draw.
    request_animation_frame(move || {
        build(&state, &section);
        draw(&state);
    });
    view! { <WidgetFrame widget id>""</WidgetFrame> }
}

/// Puts the controls into the widget's section and listens to them where their events bubble to.
fn build(state: &Shared, id: &str) {
    let Some(section) = document().get_element_by_id(id) else {
        return;
    };
    let Ok(root) = document().create_element("div") else {
        return;
    };
    root.set_class_name("lab-controls");
    // Until the worker sends the controls, only a place to say why it has not.
    root.set_inner_html("<p class=\"fleet-note\" role=\"alert\"></p>");
    let _ = section.append_child(&root);
    let events = state.clone();
    let listener = Closure::<dyn Fn(Event)>::new(move |event: Event| on_event(&events, &event));
    for kind in ["input", "click"] {
        let _ = root.add_event_listener_with_callback(kind, listener.as_ref().unchecked_ref());
    }
    // Kept as long as the widget's elements.
    listener.forget();
    state.borrow_mut().root = Some(root);
    post(state, ToWorker::Start { id: id.to_owned() });
}

/// A setting picked, the scrubber moved or Play pressed.
fn on_event(state: &Shared, event: &Event) {
    let Some(target) = event.target().and_then(|t| t.dyn_into::<Element>().ok()) else {
        return;
    };
    if event.type_() == "click" {
        if target.get_attribute("name").as_deref() == Some("play") {
            play(state);
        }
        return;
    }
    let value = event_target_value(event);
    let name = target.get_attribute("name");
    if name.as_deref() == Some("time") {
        return scrub(state, value.parse().unwrap_or(0.0));
    }
    let i: usize = value.parse().unwrap_or(0);
    {
        let settings = &mut state.borrow_mut().settings;
        match name.as_deref() {
            Some("policy") => settings.policy = Policy::ALL[i % Policy::ALL.len()],
            Some("route") => settings.route = Route::ALL[i % 3],
            Some("delay") => settings.start_up_delay = START_UP_DELAYS[i % 4],
            Some("shape") => settings.shape = Shape::ALL[i % 3],
            _ => return,
        }
    }
    draw(state);
}

/// The widget's first element matching the selector `class`.
fn part(state: &Shared, class: &str) -> Option<Element> {
    let state = state.borrow();
    state.root.as_ref()?.query_selector(class).ok().flatten()
}

fn say(state: &Shared, name: &str, text: &str) {
    if let Some(element) = part(state, name) {
        element.set_text_content(Some(text));
    }
}

/// Posts the day as it stands, starting the worker the first time.
fn draw(state: &Shared) {
    let message = {
        let mut s = state.borrow_mut();
        s.request += 1;
        ToWorker::Draw {
            settings: s.settings,
            at: s.at,
            width: s
                .root
                .as_ref()
                .map_or(0, |root| chart_width(root.client_width())),
            theme: s.theme.map(|t| t.get_untracked()).unwrap_or_default(),
            request: s.request,
        }
    };
    post(state, message);
}

/// Posts `message` to the worker, starting it the first time.
fn post(state: &Shared, message: ToWorker) {
    if state.borrow().worker.is_none() {
        let replies = state.clone();
        let Some(started) = worker::start("fleet-worker", move |reply| on_reply(&replies, &reply))
        else {
            return say(
                state,
                ".fleet-note",
                "The fleet model needs web workers, which this browser refuses.",
            );
        };
        state.borrow_mut().worker = Some(started);
    }
    if let Some(worker) = &state.borrow().worker {
        worker::post(worker, message.encode());
    }
}

/// What the worker sent: the charts and the summary, or why there are none.
fn on_reply(state: &Shared, reply: &web_sys::js_sys::Array) {
    let note = match FromWorker::decode(&worker::strings(reply)) {
        Ok(FromWorker::Controls(html)) => {
            state.borrow_mut().controls = Some(html);
            return;
        }
        Ok(FromWorker::Drawn {
            charts_html,
            summary,
            request,
        }) => {
            if request != state.borrow().request {
                return;
            }
            show_controls(state);
            if let Some(charts) = part(state, ".fleet-charts") {
                charts.set_inner_html(&charts_html);
            }
            // The comparison comes next: the last one stays (same rows, same height) marked as being redone.
            if let Some(compared) = part(state, ".fleet-compared") {
                let _ = compared.set_attribute("aria-busy", "true");
            }
            say(state, ".fleet-summary", &summary);
            String::new()
        }
        Ok(FromWorker::Compared { compared, request }) => {
            if request == state.borrow().request {
                if let Some(element) = part(state, ".fleet-compared") {
                    element.set_inner_html(&compared);
                    let _ = element.remove_attribute("aria-busy");
                }
            }
            return;
        }
        Ok(FromWorker::Crashed(said)) => {
            // The next change starts a new worker.
            if let Some(ended) = state.borrow_mut().worker.take() {
                ended.terminate();
            }
            format!(
                "The fleet model failed and was stopped; change a setting to try again. ({said})"
            )
        }
        Ok(FromWorker::Failed(_)) => {
            "The fleet model could not load: it is downloaded when the widget first \
            shows, so it needs the network once."
                .to_owned()
        }
        Ok(FromWorker::Refused(why) | FromWorker::Unreadable(why)) => why,
        Err(why) => why.to_string(),
    };
    // Without a day drawn the controls still come, so that a setting can be changed to try again.
    show_controls(state);
    say(state, ".fleet-note", &note);
}

/// Puts the controls the worker sent into the widget, the first time only: after that the page never rewrites
/// them, so focus and the scrubber's position stay put.
fn show_controls(state: &Shared) {
    let mut s = state.borrow_mut();
    if let (Some(html), Some(root)) = (s.controls.take(), &s.root) {
        root.set_inner_html(&html);
    }
}

/// Moves the scrubber (and what reads it) to `at`, and draws.
fn scrub(state: &Shared, at: f64) {
    state.borrow_mut().at = at;
    if let Some(input) =
        part(state, ".fleet-time").and_then(|e| e.dyn_into::<HtmlInputElement>().ok())
    {
        input.set_value(&at.to_string());
        let _ = input.set_attribute("aria-valuetext", &clock(at));
    }
    say(state, ".fleet-clock", &clock(at));
    draw(state);
}

/// Play, or Pause while playing.
fn play(state: &Shared) {
    if stop(state) {
        return;
    }
    if state.borrow().at >= DAY {
        scrub(state, 0.0);
    }
    let ticks = state.clone();
    let handle = set_interval_with_handle(
        move || {
            let next = (ticks.borrow().at + STEP).min(DAY);
            // A widget taken off the page (a presentation's screen changed) stops playing.
            let shown = ticks
                .borrow()
                .root
                .as_ref()
                .is_some_and(|r| r.is_connected());
            if shown {
                scrub(&ticks, next);
            }
            if next >= DAY || !shown {
                stop(&ticks);
            }
        },
        std::time::Duration::from_millis(PLAY_MS),
    );
    state.borrow_mut().playing = handle.ok();
    say(state, ".fleet-play", "Pause");
}

/// Stops playing; whether it was.
fn stop(state: &Shared) -> bool {
    let Some(handle) = state.borrow_mut().playing.take() else {
        return false;
    };
    handle.clear();
    say(state, ".fleet-play", "Play");
    true
}

/// One chart's width in the widget of `width` CSS px: half of it, less the gap, where the stylesheet puts two charts
/// side by side (two 30rem columns and a 1rem gap); 720 before the widget is laid out.
fn chart_width(width: i32) -> u32 {
    match width.max(0) as u32 {
        0 => 720,
        w if w >= 61 * 16 => (w - 16) / 2,
        w => w,
    }
}
