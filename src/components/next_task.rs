//! One way for the page to yield to the browser: [`NextTask`] runs a piece of work as a task of its own, as soon as
//! input and rendering have had their turn. It posts a message on a `MessageChannel` rather than setting a timer:
//! `setTimeout(0)` is clamped to 4 ms once timers nest a few levels deep (a sweep's 6 ms slices would then idle 4 ms
//! between them), and background tabs throttle timers. The island scheduler and the sliced sweep both use it.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::MessageChannel;

type Work = Box<dyn FnOnce()>;

/// Work to run in a task of its own; at most one piece is pending, and it can be cancelled. Dropped, it runs
/// nothing more.
pub struct NextTask {
    channel: MessageChannel,
    pending: Rc<RefCell<Option<Work>>>,
    /// Whether a message is on its way (posting again then only replaces the work it will run).
    posted: Rc<Cell<bool>>,
    _on_message: Closure<dyn Fn()>,
}

impl NextTask {
    /// A channel of its own.
    pub fn new() -> NextTask {
        let channel =
            MessageChannel::new().expect("MessageChannel exists in every browser that runs wasm");
        let pending: Rc<RefCell<Option<Work>>> = Rc::default();
        let posted = Rc::new(Cell::new(false));
        let (work, flag) = (pending.clone(), posted.clone());
        let on_message = Closure::<dyn Fn()>::new(move || {
            flag.set(false);
            // Taken before it runs, so the work may post the next piece.
            let next = work.borrow_mut().take();
            if let Some(next) = next {
                next();
            }
        });
        channel
            .port1()
            .set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        NextTask {
            channel,
            pending,
            posted,
            _on_message: on_message,
        }
    }

    /// Runs `work` in a task of its own, in place of any work posted and not run yet.
    pub fn post(&self, work: impl FnOnce() + 'static) {
        *self.pending.borrow_mut() = Some(Box::new(work));
        if !self.posted.replace(true) {
            let _ = self.channel.port2().post_message(&JsValue::NULL);
        }
    }

    /// Drops the work posted and not run yet.
    pub fn cancel(&self) {
        self.pending.borrow_mut().take();
    }
}

impl Default for NextTask {
    fn default() -> Self {
        NextTask::new()
    }
}

impl Drop for NextTask {
    fn drop(&mut self) {
        self.channel.port1().set_onmessage(None);
        self.channel.port1().close();
    }
}
