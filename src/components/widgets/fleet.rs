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
use crate::components::sync::synced_signal;
use crate::components::theme::{use_chart_projection, use_chart_theme};
use crate::components::worker;
use crate::fleet_protocol::{FleetSettings, FromWorker, Policy, ToWorker, START_UP_DELAYS};
use crate::fleet_view::{DAY, START_AT, STEP};
use crate::lesson::WidgetEmbed;
use crate::model::fleet::{Route, Shape};
use crate::presentation::sync::keys;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};
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
    /// Whether the day plays, here or in another presentation window (the one where Play was pressed moves it).
    plays: bool,
    /// The reader's actions so far, in any window ([`Shown::acts`]).
    acts: u32,
    /// What the presentation windows share; a plain signal on the lesson page.
    shown: Option<RwSignal<Shown>>,
    /// The reader's theme, read at each draw.
    theme: Option<leptos::prelude::Signal<ChartTheme>>,
    /// How much larger a projected screen draws chart type (1 on the lesson page), read at each draw.
    projection: Option<leptos::prelude::Signal<f64>>,
    /// The latest request posted: an older answer is dropped.
    request: u32,
    /// The charts' width and height last asked for (height 0: each panel's own).
    asked_width: u32,
    asked_height: u32,
    /// This window's clock while it moves the day.
    playing: Option<IntervalHandle>,
    worker: Option<web_sys::Worker>,
}

type Shared = Rc<RefCell<State>>;

/// What presentation windows share of the widget ([`synced_signal`]): the settings as their lists' positions, the
/// scrubbed time and whether the day plays. A window that opens late starts from it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct Shown {
    picked: [usize; 4],
    at: f64,
    plays: bool,
    /// Counts the reader's actions (a setting, the scrubber, Play or Pause), not Play's steps: a step a window took
    /// before another's action reached it is older than that action, and is not shown.
    acts: u32,
}

impl Shown {
    fn of(state: &State) -> Shown {
        let s = state.settings;
        let at = |all: &[u32], x: u32| all.iter().position(|d| *d == x).unwrap_or(0);
        Shown {
            picked: [
                Policy::ALL.iter().position(|p| *p == s.policy).unwrap_or(0),
                Route::ALL.iter().position(|r| *r == s.route).unwrap_or(0),
                at(&START_UP_DELAYS, s.start_up_delay),
                Shape::ALL.iter().position(|x| *x == s.shape).unwrap_or(0),
            ],
            at: state.at,
            plays: state.plays,
            acts: state.acts,
        }
    }

    fn settings(self) -> FleetSettings {
        let [policy, route, delay, shape] = self.picked;
        FleetSettings {
            policy: Policy::ALL[policy % Policy::ALL.len()],
            route: Route::ALL[route % Route::ALL.len()],
            start_up_delay: START_UP_DELAYS[delay % START_UP_DELAYS.len()],
            shape: Shape::ALL[shape % Shape::ALL.len()],
        }
    }
}

/// The settings' names in the controls, in [`Shown::picked`]'s order.
const SETTINGS: [&str; 4] = ["policy", "route", "delay", "shape"];

/// The widget: its frame, into which the controls go once it is in the page.
pub fn fleet_widget(widget: &'static WidgetEmbed, id: String) -> impl IntoView {
    let theme = use_chart_theme();
    let state: Shared = Rc::new(RefCell::new(State {
        at: START_AT,
        ..State::default()
    }));
    let defaults = Shown::of(&state.borrow());
    let shown = synced_signal(keys::widget(&id, "day"), defaults);
    {
        // A window opened late starts where the others are (playing is left to the window that plays).
        let start = shown.get_untracked();
        let mut s = state.borrow_mut();
        (s.settings, s.at, s.plays, s.acts) = (start.settings(), start.at, start.plays, start.acts);
        s.shown = Some(shown);
    }
    // Another window's change: shown here, without sending it back.
    let follower = state.clone();
    Effect::new(move |_| follow(&follower, shown.get()));
    state.borrow_mut().theme = Some(theme);
    state.borrow_mut().projection = Some(use_chart_projection());
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
    // On a screen the slide's refit steps its type down after the first days are drawn, which widens the widget and
    // moves the charts up: the charts are drawn again at the box they then have (at 1920×1080 they had stopped 110
    // px above the navigation).
    let resized = state.clone();
    let on_resize = Closure::<dyn Fn()>::new(move || refit(&resized));
    if let Ok(observer) = web_sys::ResizeObserver::new(on_resize.as_ref().unchecked_ref()) {
        observer.observe(&root);
    }
    on_resize.forget();
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
        state.borrow_mut().acts += 1;
        return scrub(state, value.parse().unwrap_or(0.0));
    }
    let i: usize = value.parse().unwrap_or(0);
    let Some(which) = SETTINGS.iter().position(|n| Some(*n) == name.as_deref()) else {
        return;
    };
    {
        let mut s = state.borrow_mut();
        let mut shown = Shown::of(&s);
        shown.picked[which] = i;
        s.settings = shown.settings();
        s.acts += 1;
    }
    draw(state);
    publish(state);
}

/// Tells the other presentation windows what this one shows.
fn publish(state: &Shared) {
    let (signal, now) = {
        let s = state.borrow();
        (s.shown, Shown::of(&s))
    };
    if let Some(signal) = signal {
        if signal.try_with_untracked(|shown| *shown != now) == Some(true) {
            signal.try_set(now);
        }
    }
}

/// Tells the other windows again what this one shows, even unchanged: after a step older than this window's last
/// action arrived (and was not shown), so that every window ends on the action.
fn republish(state: &Shared) {
    let (signal, now) = {
        let s = state.borrow();
        (s.shown, Shown::of(&s))
    };
    if let Some(signal) = signal {
        signal.try_set(now);
    }
}

/// Shows what another window changed: its settings, time and whether the day plays.
fn follow(state: &Shared, shown: Shown) {
    if shown.acts < state.borrow().acts {
        return republish(state);
    }
    let (redraw, stop_here) = {
        let mut s = state.borrow_mut();
        let settings = shown.settings();
        let redraw = settings != s.settings || shown.at != s.at;
        (s.settings, s.at, s.plays, s.acts) = (settings, shown.at, shown.plays, shown.acts);
        (redraw, !shown.plays && s.playing.is_some())
    };
    if stop_here {
        if let Some(handle) = state.borrow_mut().playing.take() {
            handle.clear();
        }
    }
    reflect(state);
    if redraw {
        draw(state);
    }
}

/// Sets the controls to the state: each setting, the scrubber, its clock and Play or Pause.
fn reflect(state: &Shared) {
    let (shown, root) = {
        let s = state.borrow();
        (Shown::of(&s), s.root.clone())
    };
    let Some(root) = root else { return };
    for (name, picked) in SETTINGS.iter().zip(shown.picked) {
        let select = root.query_selector(&format!("select[name=\"{name}\"]"));
        if let Ok(Some(select)) = select {
            // A select's value, set through the property (web-sys's select type would add a binding for one line).
            let value = JsValue::from_str(&picked.to_string());
            let _ = web_sys::js_sys::Reflect::set(&select, &JsValue::from_str("value"), &value);
        }
    }
    set_time(state, shown.at);
    say(
        state,
        ".fleet-play",
        if shown.plays { "Pause" } else { "Play" },
    );
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

/// Draws the charts again when, on a screen, the box they would be drawn at is no longer the one they were asked for
/// (by more than a few pixels, so that their own new height does not draw them again).
fn refit(state: &Shared) {
    let changed = {
        let s = state.borrow();
        match &s.root {
            Some(root) if s.asked_height > 0 => {
                let width = chart_width(root.client_width(), true);
                let height = presented_height(Some(root));
                width.abs_diff(s.asked_width) > 8 || height.abs_diff(s.asked_height) > 8
            }
            _ => false,
        }
    };
    if changed {
        draw(state);
    }
}

/// Posts the day as it stands, starting the worker the first time.
fn draw(state: &Shared) {
    let message = {
        let mut s = state.borrow_mut();
        s.request += 1;
        let projection = s
            .projection
            .and_then(|p| p.try_get_untracked())
            .unwrap_or(1.0);
        let width = s
            .root
            .as_ref()
            .map_or(0, |root| chart_width(root.client_width(), on_screen(root)));
        let height = presented_height(s.root.as_ref());
        (s.asked_width, s.asked_height) = (width, height);
        ToWorker::Draw {
            settings: s.settings,
            at: s.at,
            width,
            height,
            projection,
            theme: s
                .theme
                .and_then(|t| t.try_get_untracked())
                .unwrap_or_default(),
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

/// What the worker sent: the charts and the summary's figures, or why there are none.
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
            // On a screen the first day is drawn before the controls above the charts are in: once they are, the
            // charts take the room left under them.
            let (asked, root) = {
                let s = state.borrow();
                (s.asked_height, s.root.clone())
            };
            if asked.abs_diff(presented_height(root.as_ref())) > 8 {
                draw(state);
            }
            // The comparison comes next: the last one stays (same rows, same height) marked as being redone.
            if let Some(compared) = part(state, ".fleet-compared") {
                let _ = compared.set_attribute("aria-busy", "true");
            }
            if let Some(figures) = part(state, ".fleet-summary") {
                figures.set_inner_html(&summary);
            }
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
    let shown = {
        let mut s = state.borrow_mut();
        let (Some(html), Some(root)) = (s.controls.take(), &s.root) else {
            return;
        };
        root.set_inner_html(&html);
        true
    };
    // The controls come at their defaults: a window that opened late shows the day the others show.
    if shown {
        reflect(state);
    }
}

/// Moves the scrubber (and what reads it) to `at`, draws, and tells the other windows.
fn scrub(state: &Shared, at: f64) {
    state.borrow_mut().at = at;
    set_time(state, at);
    draw(state);
    publish(state);
}

/// The scrubber and its clock at `at`.
fn set_time(state: &Shared, at: f64) {
    if let Some(input) =
        part(state, ".fleet-time").and_then(|e| e.dyn_into::<HtmlInputElement>().ok())
    {
        if input.value() != at.to_string() {
            input.set_value(&at.to_string());
        }
        let _ = input.set_attribute("aria-valuetext", &clock(at));
    }
    say(state, ".fleet-clock", &clock(at));
}

/// Play, or Pause while the day plays (here or in another window).
fn play(state: &Shared) {
    state.borrow_mut().acts += 1;
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
    {
        let mut s = state.borrow_mut();
        s.playing = handle.ok();
        s.plays = true;
    }
    say(state, ".fleet-play", "Pause");
    publish(state);
}

/// Stops the day playing, here or in another window; whether it was.
fn stop(state: &Shared) -> bool {
    let (handle, played) = {
        let mut s = state.borrow_mut();
        let played = s.plays || s.playing.is_some();
        s.plays = false;
        (s.playing.take(), played)
    };
    if let Some(handle) = handle {
        handle.clear();
    }
    if played {
        say(state, ".fleet-play", "Play");
        publish(state);
    }
    played
}

/// Each chart's height on a screen of the presentation (the audience's or the presenter's pane): both the same, the room left on the screen's
/// slide under the figures and controls, less what stands under the charts (the widget's padding, border and margin,
/// the slide's padding: 58 px at 1920×1080, where a fixed 28 px let the slide overflow once the charts filled it);
/// 45% of the slide before the charts' box is laid out; 0 (each panel's own) on the lesson page.
fn presented_height(root: Option<&Element>) -> u32 {
    let Some(root) = root else { return 0 };
    let Some(slide) = root.closest(".present-slide").ok().flatten() else {
        return 0;
    };
    let bottom = slide.get_bounding_client_rect().bottom();
    let charts = root.query_selector(".fleet-charts").ok().flatten();
    let room = match (charts, root.parent_element()) {
        (Some(charts), Some(widget)) => {
            let charts = charts.get_bounding_client_rect();
            let under = widget.get_bounding_client_rect().bottom() - charts.bottom()
                + css_px(&widget, "margin-bottom")
                + css_px(&slide, "padding-bottom");
            // A pixel for rounding: the slide must not scroll by one.
            Some(bottom - charts.top() - under - 1.0).filter(|_| charts.top() > 0.0)
        }
        _ => None,
    };
    match room {
        Some(room) if room > 200.0 => room as u32,
        _ => (f64::from(slide.client_height()) * 0.45) as u32,
    }
}

/// Whether the widget is on a screen of the presentation (the presenter's pane included, whose type is not
/// projected), not on the lesson page.
fn on_screen(root: &Element) -> bool {
    root.closest(".present-slide").ok().flatten().is_some()
}

/// A length property of `element`'s computed style, CSS px (0 when it cannot be read).
fn css_px(element: &Element, property: &str) -> f64 {
    web_sys::window()
        .and_then(|w| w.get_computed_style(element).ok().flatten())
        .and_then(|style| style.get_property_value(property).ok())
        .and_then(|value| value.trim_end_matches("px").parse().ok())
        .unwrap_or(0.0)
}

/// One chart's width in the widget of `width` CSS px: half of it, less the gap, where the stylesheet puts two charts
/// side by side (two 30rem columns and a 1rem gap, or always on a screen, `presented`, the presenter's narrow pane
/// included); 720 before the widget is laid out.
fn chart_width(width: i32, presented: bool) -> u32 {
    match width.max(0) as u32 {
        0 => 720,
        w if presented || w >= 61 * 16 => w.saturating_sub(16) / 2,
        w => w,
    }
}
