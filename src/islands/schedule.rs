//! When widgets mount. A widget is the page's heaviest island (the knee lab builds four charts and starts a
//! simulation), so none mounts during start-up: those that come within [`NEAR`] of the viewport mount first, each in
//! a task of its own; the others mount one at a time while the browser is idle, so that the lab's reading is ready
//! for the sizer and the metrics reader below it by the time the learner scrolls there.

use std::cell::RefCell;
use std::collections::VecDeque;

use leptos::prelude::Owner;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::Element;

use super::mount_island;
use crate::lesson::island_markup::MOUNTED_CLASS;

/// How far outside the viewport a widget counts as near: about a screen ahead of the reader.
const NEAR: &str = "100% 0px";
/// The longest an idle mount waits for the browser to be idle, milliseconds.
const IDLE_TIMEOUT_MS: u32 = 2_000;

#[derive(Default)]
struct Queue {
    /// The owner the widgets mount under (the page's).
    owner: Option<Owner>,
    /// Widgets near the viewport, in the order they came near.
    near: VecDeque<Element>,
    /// The other widgets not mounted yet, in page order.
    later: VecDeque<Element>,
    /// Whether a task to mount a near widget is already posted.
    task_posted: bool,
    /// Posts a message that runs [`mount_next_near`] as a task of its own (not a timer: a timer may be clamped or,
    /// in a backgrounded tab, throttled).
    channel: Option<web_sys::MessageChannel>,
}

thread_local! {
    static QUEUE: RefCell<Queue> = RefCell::default();
}

/// Mounts `widgets` under `owner`: near ones first, the rest when the page is idle.
pub fn schedule_widgets(widgets: Vec<Element>, owner: Owner) {
    if widgets.is_empty() {
        return;
    }
    QUEUE.with_borrow_mut(|queue| {
        queue.owner = Some(owner);
        queue.later.extend(widgets.iter().cloned());
    });
    if !observe_nearness(&widgets) {
        // No IntersectionObserver (a very old browser): every widget counts as near.
        QUEUE.with_borrow_mut(|queue| queue.near.extend(queue.later.drain(..)));
        post_task();
    }
    request_idle();
}

/// Watches each widget for coming near the viewport; false when the browser cannot.
fn observe_nearness(widgets: &[Element]) -> bool {
    let on_near = Closure::<dyn Fn(web_sys::js_sys::Array, web_sys::IntersectionObserver)>::new(
        |entries: web_sys::js_sys::Array, observer: web_sys::IntersectionObserver| {
            for entry in entries.iter() {
                let Ok(entry) = entry.dyn_into::<web_sys::IntersectionObserverEntry>() else {
                    continue;
                };
                if entry.is_intersecting() {
                    let widget = entry.target();
                    observer.unobserve(&widget);
                    QUEUE.with_borrow_mut(|queue| {
                        queue.later.retain(|later| *later != widget);
                        queue.near.push_back(widget);
                    });
                }
            }
            post_task();
        },
    );
    let options = web_sys::IntersectionObserverInit::new();
    options.set_root_margin(NEAR);
    let Ok(observer) =
        web_sys::IntersectionObserver::new_with_options(on_near.as_ref().unchecked_ref(), &options)
    else {
        return false;
    };
    for widget in widgets {
        observer.observe(widget);
    }
    // It calls back for as long as the page lives.
    on_near.forget();
    true
}

/// Posts one task that mounts the next near widget, unless one is posted already.
fn post_task() {
    let port = QUEUE.with_borrow_mut(|queue| {
        if queue.task_posted || queue.near.is_empty() {
            return None;
        }
        queue.task_posted = true;
        let channel = queue.channel.get_or_insert_with(|| {
            let channel = web_sys::MessageChannel::new()
                .expect("MessageChannel exists in every browser that runs wasm");
            let on_message = Closure::<dyn Fn()>::new(mount_next_near);
            channel
                .port1()
                .set_onmessage(Some(on_message.as_ref().unchecked_ref()));
            on_message.forget();
            channel
        });
        Some(channel.port2())
    });
    if let Some(port) = port {
        let _ = port.post_message(&JsValue::NULL);
    }
}

/// Mounts the next near widget, then posts a task for the one after it.
fn mount_next_near() {
    QUEUE.with_borrow_mut(|queue| queue.task_posted = false);
    mount_first(|queue| &mut queue.near);
    post_task();
}

/// Asks the browser for an idle moment to mount the next widget that is not near yet.
fn request_idle() {
    if QUEUE.with_borrow(|queue| queue.later.is_empty()) {
        return;
    }
    let on_idle = Closure::once_into_js(|| {
        mount_first(|queue| &mut queue.later);
        request_idle();
    });
    let window = leptos::prelude::window();
    let options = web_sys::IdleRequestOptions::new();
    options.set_timeout(IDLE_TIMEOUT_MS);
    let has_idle_callbacks =
        web_sys::js_sys::Reflect::has(&window, &JsValue::from_str("requestIdleCallback"))
            .unwrap_or(false);
    if has_idle_callbacks {
        let _ = window.request_idle_callback_with_options(on_idle.unchecked_ref(), &options);
    } else {
        // Safari has no idle callbacks: a moment after the page settles is near enough. (A plain timer, not
        // leptos-use's: this queue belongs to no component and lives as long as the page.)
        let _ = window
            .set_timeout_with_callback_and_timeout_and_arguments_0(on_idle.unchecked_ref(), 200);
    }
}

/// Mounts the first widget of one of the queue's lists (`near` or `later`), if it has one.
fn mount_first(list: fn(&mut Queue) -> &mut VecDeque<Element>) {
    let next = QUEUE.with_borrow_mut(|queue| {
        let widget = list(queue).pop_front()?;
        Some((widget, queue.owner.clone()))
    });
    if let Some((widget, owner)) = next {
        mount_widget(&widget, owner);
    }
}

fn mount_widget(widget: &Element, owner: Option<Owner>) {
    if widget.class_list().contains(MOUNTED_CLASS) {
        return;
    }
    let mounted = match owner {
        Some(owner) => owner.with(|| mount_island(widget)),
        None => mount_island(widget),
    };
    if let Some(mounted) = mounted {
        // The page's widgets live as long as the page.
        mounted.forget();
    }
}
