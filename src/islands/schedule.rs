//! When islands mount. Nothing mounts during start-up itself: each island mounts in a task of its own, so no task
//! is long enough to hold up input after the first paint.
//!
//! - Islands within [`NEAR`] of the viewport mount first, in the order they came near.
//! - The small ones (predict steps, reveals, task lists, the progress line) mount one at a time while the browser is
//!   idle, so the whole lesson is live soon after it loads.
//! - Islands whose code the page fetches on demand (`components::mount::on_demand`: the widgets, and the chart predictions), mount only
//!   as they come near, so a visit fetches only the code of what the reader reaches. A widget that reads the knee
//!   lab's results (the sizer, the metrics reader) brings the lab to life with it.

use std::cell::RefCell;
use std::collections::VecDeque;

use gloo_timers::callback::Timeout;
use leptos::prelude::Owner;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::Element;

use crate::components::mount::{mount_island, on_demand};
use crate::components::next_task::NextTask;
use crate::lesson::island_markup::{MOUNTED_CLASS, WIDGET};
use crate::lesson::WidgetName;

/// How far outside the viewport an island counts as near: about a screen ahead of the reader.
const NEAR: &str = "100% 0px";
/// Where the browser has no idle callbacks (Safari), the pause before each idle mount, milliseconds.
const SAFARI_IDLE_MS: u32 = 50;
/// The longest an idle mount waits for the browser to be idle, milliseconds.
const IDLE_TIMEOUT_MS: u32 = 2_000;

#[derive(Default)]
struct Queue {
    /// The owner the islands mount under (the page's).
    owner: Option<Owner>,
    /// Every island of the page, to find one by what it is.
    all: Vec<Element>,
    /// Islands near the viewport, in the order they came near.
    near: VecDeque<Element>,
    /// Small islands not near yet, in page order, for idle moments.
    later: VecDeque<Element>,
    /// Small islands not mounted yet; when none are left, `settled` runs.
    small_left: usize,
    settled: Option<Box<dyn FnOnce()>>,
    /// Runs [`mount_next_near`] as a task of its own.
    next: Option<NextTask>,
}

thread_local! {
    static QUEUE: RefCell<Queue> = RefCell::default();
}

/// Mounts `islands` under `owner` as the module doc says; `settled` runs once every island but those with code on demand is live.
pub fn schedule_islands(islands: Vec<Element>, owner: Owner, settled: impl FnOnce() + 'static) {
    let small: Vec<Element> = islands
        .iter()
        .filter(|island| on_demand(island).is_none())
        .cloned()
        .collect();
    QUEUE.with_borrow_mut(|queue| {
        queue.owner = Some(owner);
        queue.all = islands.clone();
        queue.small_left = small.len();
        queue.settled = Some(Box::new(settled));
        queue.later.extend(small);
    });
    check_settled();
    if !observe_nearness(&islands) {
        // No IntersectionObserver (a very old browser): every island counts as near.
        QUEUE.with_borrow_mut(|queue| {
            queue.later.clear();
            queue.near.extend(islands);
        });
        post_task();
    }
    request_idle();
}

/// Watches each island for coming near the viewport; false when the browser cannot.
fn observe_nearness(islands: &[Element]) -> bool {
    let on_near = Closure::<dyn Fn(web_sys::js_sys::Array, web_sys::IntersectionObserver)>::new(
        |entries: web_sys::js_sys::Array, observer: web_sys::IntersectionObserver| {
            // Those the reader sees now go before those only near it.
            let window_height = leptos::prelude::window()
                .inner_height()
                .ok()
                .and_then(|h| h.as_f64())
                .unwrap_or(0.0);
            let mut seen = Vec::new();
            for entry in entries.iter() {
                let Ok(entry) = entry.dyn_into::<web_sys::IntersectionObserverEntry>() else {
                    continue;
                };
                if entry.is_intersecting() {
                    let island = entry.target();
                    observer.unobserve(&island);
                    let rect = entry.bounding_client_rect();
                    if rect.bottom() > 0.0 && rect.top() < window_height {
                        seen.push(island);
                    } else {
                        make_near(island);
                    }
                }
            }
            QUEUE.with_borrow_mut(|queue| {
                for island in seen.into_iter().rev() {
                    queue.later.retain(|later| *later != island);
                    queue.near.retain(|near| *near != island);
                    queue.near.push_front(island);
                }
            });
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
    for island in islands {
        observer.observe(island);
    }
    // It calls back for as long as the page lives.
    on_near.forget();
    true
}

fn make_near(island: Element) {
    QUEUE.with_borrow_mut(|queue| {
        queue.later.retain(|later| *later != island);
        if !queue.near.contains(&island) {
            queue.near.push_back(island);
        }
    });
}

/// Posts one task that mounts the next near island, unless one is posted already.
fn post_task() {
    QUEUE.with_borrow_mut(|queue| {
        if !queue.near.is_empty() {
            queue
                .next
                .get_or_insert_with(NextTask::new)
                .post(mount_next_near);
        }
    });
}

/// Mounts the next near island, then posts a task for the one after it.
fn mount_next_near() {
    let next = QUEUE.with_borrow_mut(|queue| queue.near.pop_front());
    if let Some(island) = next {
        mount(&island);
    }
    post_task();
}

/// Asks the browser for an idle moment to mount the next small island that is not near yet.
fn request_idle() {
    if QUEUE.with_borrow(|queue| queue.later.is_empty()) {
        return;
    }
    let mount_next = || {
        if let Some(island) = QUEUE.with_borrow_mut(|queue| queue.later.pop_front()) {
            mount(&island);
        }
        request_idle();
    };
    let window = leptos::prelude::window();
    let has_idle_callbacks =
        web_sys::js_sys::Reflect::has(&window, &JsValue::from_str("requestIdleCallback"))
            .unwrap_or(false);
    if has_idle_callbacks {
        let options = web_sys::IdleRequestOptions::new();
        options.set_timeout(IDLE_TIMEOUT_MS);
        let on_idle = Closure::once_into_js(mount_next);
        let _ = window.request_idle_callback_with_options(on_idle.unchecked_ref(), &options);
    } else {
        // Safari has no idle callbacks: a moment after the page settles is near enough. The queue belongs to no
        // component and lives as long as the page, so its timer is a plain one, left to run (not leptos-use's,
        // which a component's cleanup cancels).
        Timeout::new(SAFARI_IDLE_MS, mount_next).forget();
    }
}

/// Mounts `island` (once) under the page's owner, and what it brings with it.
fn mount(island: &Element) {
    if island.class_list().contains(MOUNTED_CLASS) {
        return;
    }
    let owner = QUEUE.with_borrow(|queue| queue.owner.clone());
    // `mount_island` keeps what the reader sees where it is.
    let mounted = match owner {
        Some(owner) => owner.with(|| mount_island(island)),
        None => mount_island(island),
    };
    if let Some(mounted) = mounted {
        // The page's islands live as long as the page.
        mounted.forget();
    }
    if on_demand(island).is_some() {
        if reads_the_lab(island) {
            bring_the_lab();
        }
    } else {
        QUEUE.with_borrow_mut(|queue| queue.small_left = queue.small_left.saturating_sub(1));
        check_settled();
    }
}

/// Whether the widget `island` uses the knee lab's reading (its "use the lab's …" buttons).
fn reads_the_lab(island: &Element) -> bool {
    island
        .get_attribute(WIDGET)
        .as_deref()
        .and_then(WidgetName::from_name)
        .is_some_and(|name| {
            matches!(
                name,
                WidgetName::LittlesLawSizer | WidgetName::MetricsReader
            )
        })
}

/// Queues the page's knee lab as if it had come near.
fn bring_the_lab() {
    let lab = QUEUE.with_borrow(|queue| {
        queue
            .all
            .iter()
            .find(|island| {
                island.get_attribute(WIDGET).as_deref() == Some(WidgetName::KneeLab.as_str())
            })
            .cloned()
    });
    if let Some(lab) = lab {
        make_near(lab);
        post_task();
    }
}

fn check_settled() {
    let settled = QUEUE.with_borrow_mut(|queue| {
        if queue.small_left == 0 {
            queue.settled.take()
        } else {
            None
        }
    });
    if let Some(settled) = settled {
        settled();
    }
}
