//! State that presentation windows share. Every interactive control whose value an audience should see (slider
//! positions, switches, guesses, reveals, tallies) keeps it in a [`synced_signal`] under a key unique on the page.
//! On an ordinary page that is a plain signal. In presentation mode the presentation provides a [`SyncGroup`]: one
//! `BroadcastChannel` per lesson that mirrors each keyed signal to the other windows of the same lesson, both ways
//! (the protocol, echo suppression and resynchronisation are in [`crate::presentation::sync`]).
//!
//! ```ignore
//! let load = synced_signal(format!("knee-lab/{id}/load"), 0.85_f64);
//! view! { <input type="range" prop:value=move || load.get() on:input=move |e| load.set(parse(e)) /> }
//! ```

use std::cell::RefCell;
use std::rc::Rc;

use leptos::prelude::*;
use serde::{de::DeserializeOwned, Serialize};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

use crate::presentation::sync::{SyncMessage, SyncPeer};

/// A signal holding `initial`, shared with the other presentation windows under `key` when the page is presenting.
///
/// `key` must be stable across windows and unique on the page, e.g. `"knee-lab/load"` or `"predict/knee-guess/choice"`.
/// In presentation mode the signal starts from the value the window already knows for `key` (from another window,
/// or from an earlier visit to the same screen), so going back to a screen or reopening a window loses nothing.
pub fn synced_signal<T>(key: impl Into<String>, initial: T) -> RwSignal<T>
where
    T: Clone + PartialEq + Serialize + DeserializeOwned + Send + Sync + 'static,
{
    let key: String = key.into();
    let Some(group) = use_context::<SyncGroup>() else {
        return RwSignal::new(initial);
    };
    let initial_json = serde_json::to_string(&initial).unwrap_or_default();
    let start_json = group.adopt(&key, initial_json);
    let start = serde_json::from_str(&start_json).unwrap_or(initial);
    let signal = RwSignal::new(start);

    // Values from the other windows; compared first, so an unchanged value does not wake anything.
    let listener = group.listen(&key, move |json| {
        let Ok(value) = serde_json::from_str::<T>(json) else {
            return;
        };
        if signal.try_with_untracked(|current| *current != value) == Some(true) {
            signal.try_set(value);
        }
    });
    on_cleanup(move || group.unlisten(listener));

    // Changes made here; the peer drops values it already had, so a value that came in is never sent back.
    Effect::new(move |_| {
        let json = signal.with(|value| serde_json::to_string(value).unwrap_or_default());
        group.local_change(&key, json);
    });
    signal
}

/// The sync group of a presentation: one per presentation window, provided as context above the lesson.
#[derive(Clone, Copy)]
pub struct SyncGroup(StoredValue<GroupInner, LocalStorage>);

type Listener = Rc<dyn Fn(&str)>;

struct GroupInner {
    peer: RefCell<SyncPeer>,
    channel: Option<web_sys::BroadcastChannel>,
    listeners: RefCell<Vec<(u64, String, Listener)>>,
    next_listener: RefCell<u64>,
    /// Kept alive as long as the channel's `onmessage` points at it.
    _on_message: Option<Closure<dyn FnMut(web_sys::MessageEvent)>>,
}

impl Drop for GroupInner {
    fn drop(&mut self) {
        if let Some(channel) = &self.channel {
            channel.set_onmessage(None);
            channel.close();
        }
    }
}

impl SyncGroup {
    /// Joins the channel `channel_name` (every window of one lesson uses the same name), provides the group as
    /// context, and asks the windows already open for their values. Without `BroadcastChannel` the window still
    /// works on its own.
    pub fn provide(channel_name: &str) -> SyncGroup {
        let id = format!(
            "{:x}{:x}",
            web_sys::js_sys::Date::now() as u64,
            (web_sys::js_sys::Math::random() * 1e12) as u64
        );
        let peer = SyncPeer::new(id, web_sys::js_sys::Date::now());
        let channel = web_sys::BroadcastChannel::new(channel_name).ok();
        let slot: Rc<RefCell<Option<SyncGroup>>> = Rc::new(RefCell::new(None));
        let on_message = channel.as_ref().map(|channel| {
            let slot = Rc::clone(&slot);
            let closure = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(
                move |event: web_sys::MessageEvent| {
                    if let (Some(group), Some(text)) = (*slot.borrow(), event.data().as_string()) {
                        group.receive(&text);
                    }
                },
            );
            channel.set_onmessage(Some(closure.as_ref().unchecked_ref()));
            closure
        });
        let group = SyncGroup(StoredValue::new_local(GroupInner {
            peer: RefCell::new(peer),
            channel,
            listeners: RefCell::new(Vec::new()),
            next_listener: RefCell::new(0),
            _on_message: on_message,
        }));
        *slot.borrow_mut() = Some(group);
        provide_context(group);
        let hello = group.0.with_value(|inner| inner.peer.borrow().hello());
        group.post(&hello);
        group
    }

    fn adopt(&self, key: &str, initial_json: String) -> String {
        self.0
            .try_with_value(|inner| inner.peer.borrow_mut().adopt(key, initial_json.clone()))
            .unwrap_or(initial_json)
    }

    fn listen(&self, key: &str, listener: impl Fn(&str) + 'static) -> u64 {
        self.0
            .try_with_value(|inner| {
                let mut next = inner.next_listener.borrow_mut();
                *next += 1;
                inner
                    .listeners
                    .borrow_mut()
                    .push((*next, key.to_string(), Rc::new(listener)));
                *next
            })
            .unwrap_or_default()
    }

    fn unlisten(&self, id: u64) {
        self.0.try_with_value(|inner| {
            inner
                .listeners
                .borrow_mut()
                .retain(|(listener, _, _)| *listener != id);
        });
    }

    fn local_change(&self, key: &str, json: String) {
        let message = self
            .0
            .try_with_value(|inner| inner.peer.borrow_mut().local_change(key, json))
            .flatten();
        if let Some(message) = message {
            self.post(&message);
        }
    }

    fn receive(&self, text: &str) {
        let Some(message) = SyncMessage::from_json(text) else {
            return;
        };
        let Some(received) = self
            .0
            .try_with_value(|inner| inner.peer.borrow_mut().receive(message))
        else {
            return;
        };
        for (key, value) in &received.apply {
            // Collected first: a listener may create or drop other synced signals.
            let listeners: Vec<Listener> = self
                .0
                .try_with_value(|inner| {
                    inner
                        .listeners
                        .borrow()
                        .iter()
                        .filter(|(_, listening, _)| listening == key)
                        .map(|(_, _, listener)| Rc::clone(listener))
                        .collect()
                })
                .unwrap_or_default();
            for listener in listeners {
                listener(value);
            }
        }
        if let Some(reply) = received.reply {
            self.post(&reply);
        }
    }

    fn post(&self, message: &SyncMessage) {
        self.0.try_with_value(|inner| {
            if let Some(channel) = &inner.channel {
                // A closed channel (the window is going away) has nobody left to tell.
                let _ = channel.post_message(&message.to_json().into());
            }
        });
    }
}
