//! State that presentation windows share. Every interactive control whose value an audience should see (slider
//! positions, switches, guesses, reveals, tallies) keeps it in a [`synced_signal`] under a key unique on the page.
//! On an ordinary page that is a plain signal. In presentation mode the presentation provides a [`SyncGroup`]: one
//! `BroadcastChannel` per lesson that mirrors each keyed signal to the other windows of the same lesson, both ways
//! (the protocol, echo suppression and resynchronisation are in [`crate::presentation::sync`]).
//!
//! The channel is leptos-use's hook; the group on it is ours, since the protocol needs one peer per window shared
//! by every synced signal (to drop echoes and catch a reopened window up), not a channel per value.
//!
//! ```ignore
//! let settings = synced_signal(keys::widget(&id, "settings"), initial);
//! view! { <input type="range" prop:value=move || settings.get().load_percent on:input=move |e| … /> }
//! ```
//!
//! Every key is made by [`crate::presentation::sync::keys`].

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use codee::string::FromToStringCodec;
use leptos::prelude::*;
use leptos_use_broadcast_channel::use_broadcast_channel;
use serde::{de::DeserializeOwned, Serialize};

use crate::presentation::sync::{SyncMessage, SyncPeer};

/// A signal holding `initial`, shared with the other presentation windows under `key` when the page is presenting.
///
/// `key` must be stable across windows and unique on the page: one made by [`crate::presentation::sync::keys`], e.g.
/// `"knee-lab/settings"` or `"predict/step-3-knee/guess"`.
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
    listeners: RefCell<Vec<(u64, String, Listener)>>,
    next_listener: Cell<u64>,
    /// Posts on the lesson's channel (a no-op until it is open, and without `BroadcastChannel`).
    post: Rc<dyn Fn(&String)>,
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
        // The channel is closed when the presentation goes; messages travel as the protocol's JSON text.
        let channel = use_broadcast_channel::<String, FromToStringCodec>(channel_name);
        let group = SyncGroup(StoredValue::new_local(GroupInner {
            peer: RefCell::new(peer),
            listeners: RefCell::new(Vec::new()),
            next_listener: Cell::new(0),
            post: Rc::new(channel.post),
        }));
        provide_context(group);
        // Each message arrives in a task of its own, so this effect runs once for every one.
        let message = channel.message;
        Effect::new(move |_| {
            if let Some(text) = message.get() {
                untrack(|| group.receive(&text));
            }
        });
        // The hook opens the channel in an effect: say hello once it is open.
        let open = channel.channel;
        Effect::new(move |greeted: Option<bool>| {
            let greeted = greeted.unwrap_or(false);
            if greeted || open.with(Option::is_none) {
                return greeted;
            }
            let hello = group.0.with_value(|inner| inner.peer.borrow().hello());
            group.post(&hello);
            true
        });
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
                let id = inner.next_listener.get() + 1;
                inner.next_listener.set(id);
                inner
                    .listeners
                    .borrow_mut()
                    .push((id, key.to_string(), Rc::new(listener)));
                id
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
        self.0
            .try_with_value(|inner| (inner.post)(&message.to_json()));
    }
}
