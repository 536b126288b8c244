//! The protocol presentation windows use to keep their synced values equal over a `BroadcastChannel`, as pure
//! logic: [`SyncPeer`] is one window's side of it. The page feeds it local changes and incoming messages and posts
//! what it returns; the tests run several peers against each other without a browser.
//!
//! Values travel as JSON text, keyed by the names widgets give [`crate::components::sync::synced_signal`].
//! - A local change is posted as [`SyncMessage::Set`] only if it differs from what the peer last saw for that key,
//!   and an incoming value is recorded before it is applied, so applying it never echoes back.
//! - A window that opens (or reloads) posts [`SyncMessage::Hello`]; every other window answers with a
//!   [`SyncMessage::Snapshot`] of all it knows. The newcomer applies snapshots only from windows that were there
//!   before it, so two windows opened at once do not swap their states.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The keys under which windows share state, made here only, so two parts of a page cannot collide and a key reads
/// the same in every window: the presentation's own (`present/…`), a reveal's, a predict step's, and a widget's
/// (under the widget's id, which is unique on the page).
pub mod keys {
    /// The screen shown.
    pub const SCREEN: &str = "present/screen";
    /// Whether the audience screen is blanked.
    pub const BLANK: &str = "present/blank";

    /// Whether the reveal whose answer has id `id` is open.
    pub fn reveal(id: &str) -> String {
        format!("reveal/{id}")
    }

    /// One part of the predict step `step_id`'s state: `guess`, `phase` or `tally`.
    pub fn predict(step_id: &str, part: &str) -> String {
        format!("predict/{step_id}/{part}")
    }

    /// One part of the widget `id`'s state, e.g. `widget("knee-lab", "settings")` is `"knee-lab/settings"`.
    pub fn widget(id: &str, part: &str) -> String {
        format!("{id}/{part}")
    }
}

/// One message on a presentation's channel, as `{"set": {…}}`: externally tagged, serde's default, because an
/// internally tagged enum (`{"type": "set", …}`) is read through serde's buffering of the whole value, which cost
/// the page's wasm about 10 kB more (raw, measured with twiggy).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SyncMessage {
    /// `key` now holds `value` (JSON) in window `from`.
    Set {
        /// The sending window.
        from: String,
        /// The synced key.
        key: String,
        /// The new value, as JSON.
        value: String,
    },
    /// Window `from` has just opened, at `opened_at`, and asks the others for their values.
    Hello {
        /// The new window.
        from: String,
        /// When it opened, in ms since the epoch.
        opened_at: f64,
    },
    /// Window `from` (open since `opened_at`) answers `to`'s hello with every value it knows.
    Snapshot {
        /// The answering window.
        from: String,
        /// The window that said hello.
        to: String,
        /// When the answering window opened, in ms since the epoch.
        opened_at: f64,
        /// Every key and its value, as JSON.
        values: BTreeMap<String, String>,
    },
}

impl SyncMessage {
    /// The message as the text posted on the channel.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// A message read from the channel; `None` for anything that is not one (another app on the same channel).
    pub fn from_json(text: &str) -> Option<SyncMessage> {
        serde_json::from_str(text).ok()
    }
}

/// What the page must do after a message arrived.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Received {
    /// Keys whose value changed, with the new value (JSON), to set on the live signals.
    pub apply: Vec<(String, String)>,
    /// A message to post in answer.
    pub reply: Option<SyncMessage>,
}

/// One window's side of the protocol: its identity and the last value it saw for every key.
#[derive(Clone, Debug, PartialEq)]
pub struct SyncPeer {
    id: String,
    opened_at: f64,
    values: BTreeMap<String, String>,
}

impl SyncPeer {
    /// A window called `id` (unique among the open windows), opened at `opened_at` ms since the epoch.
    pub fn new(id: impl Into<String>, opened_at: f64) -> Self {
        SyncPeer {
            id: id.into(),
            opened_at,
            values: BTreeMap::new(),
        }
    }

    /// The window's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The message that announces this window and asks for the others' values.
    pub fn hello(&self) -> SyncMessage {
        SyncMessage::Hello {
            from: self.id.clone(),
            opened_at: self.opened_at,
        }
    }

    /// The value a newly created signal for `key` should start with: the one this window already knows (the
    /// screen was shown before, or another window sent it), else `initial`, which is then remembered.
    pub fn adopt(&mut self, key: &str, initial: String) -> String {
        self.values
            .entry(key.to_string())
            .or_insert(initial)
            .clone()
    }

    /// The value this window knows for `key`.
    pub fn value(&self, key: &str) -> Option<&str> {
        self.values.get(key).map(String::as_str)
    }

    /// A local change of `key` to `value`: the message to post, or `None` when the value is what this window
    /// already had (a value that just arrived from another window, or no change at all).
    pub fn local_change(&mut self, key: &str, value: String) -> Option<SyncMessage> {
        if self.values.get(key) == Some(&value) {
            return None;
        }
        self.values.insert(key.to_string(), value.clone());
        Some(SyncMessage::Set {
            from: self.id.clone(),
            key: key.to_string(),
            value,
        })
    }

    /// Handles a message from the channel.
    pub fn receive(&mut self, message: SyncMessage) -> Received {
        match message {
            SyncMessage::Set { from, key, value } if from != self.id => Received {
                apply: self.record(key, value).into_iter().collect(),
                reply: None,
            },
            SyncMessage::Hello { from, .. } if from != self.id => Received {
                apply: Vec::new(),
                reply: Some(SyncMessage::Snapshot {
                    from: self.id.clone(),
                    to: from,
                    opened_at: self.opened_at,
                    values: self.values.clone(),
                }),
            },
            SyncMessage::Snapshot {
                to,
                opened_at,
                values,
                ..
            } if to == self.id && opened_at <= self.opened_at => Received {
                apply: values
                    .into_iter()
                    .filter_map(|(key, value)| self.record(key, value))
                    .collect(),
                reply: None,
            },
            _ => Received::default(),
        }
    }

    /// Remembers `value` for `key`; returns the pair if it changed.
    fn record(&mut self, key: String, value: String) -> Option<(String, String)> {
        if self.values.get(&key) == Some(&value) {
            return None;
        }
        self.values.insert(key.clone(), value.clone());
        Some((key, value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_part_of_a_page_keys_its_state_apart() {
        assert_eq!(keys::reveal("why-p99"), "reveal/why-p99");
        assert_eq!(
            keys::predict("step-3-knee", "guess"),
            "predict/step-3-knee/guess"
        );
        assert_eq!(keys::widget("knee-lab", "settings"), "knee-lab/settings");
        assert!(keys::SCREEN.starts_with("present/") && keys::BLANK.starts_with("present/"));
        assert_ne!(keys::predict("a", "tally"), keys::predict("a", "guess"));
    }

    /// Delivers `message` to every peer but its sender, through JSON as on the channel, and delivers the replies
    /// in turn; returns what each peer was asked to apply.
    fn broadcast(peers: &mut [&mut SyncPeer], message: SyncMessage) -> Vec<Vec<(String, String)>> {
        let mut applied = vec![Vec::new(); peers.len()];
        let mut queue = vec![message];
        while let Some(message) = queue.pop() {
            let text = message.to_json();
            for (index, peer) in peers.iter_mut().enumerate() {
                let received = peer.receive(SyncMessage::from_json(&text).expect("round trip"));
                applied[index].extend(received.apply);
                queue.extend(received.reply);
            }
        }
        applied
    }

    #[test]
    fn a_change_reaches_the_other_window_and_does_not_echo() {
        let mut presenter = SyncPeer::new("p", 1.0);
        let mut audience = SyncPeer::new("a", 2.0);
        presenter.adopt("present/screen", "0".into());
        audience.adopt("present/screen", "0".into());
        let sent = presenter
            .local_change("present/screen", "3".into())
            .expect("a change is posted");
        let applied = broadcast(&mut [&mut presenter, &mut audience], sent);
        assert_eq!(
            applied[1],
            [("present/screen".to_string(), "3".to_string())]
        );
        assert!(applied[0].is_empty(), "the sender ignores its own message");
        // The audience's signal now changes to 3; its effect reports that as a local change, which must not echo.
        assert_eq!(audience.local_change("present/screen", "3".into()), None);
        assert_eq!(
            presenter.local_change("present/screen", "3".into()),
            None,
            "no change, no message"
        );
    }

    #[test]
    fn a_reopened_window_takes_the_values_of_the_windows_already_open() {
        let mut presenter = SyncPeer::new("p", 1.0);
        presenter.adopt("present/screen", "0".into());
        presenter.local_change("present/screen", "7".into());
        presenter.local_change("reveal/recall-knee-answer", "true".into());
        // The audience reopens with screen 2 in its URL.
        let mut audience = SyncPeer::new("a2", 5.0);
        assert_eq!(audience.adopt("present/screen", "2".into()), "2");
        let hello = audience.hello();
        let applied = broadcast(&mut [&mut presenter, &mut audience], hello);
        assert_eq!(
            applied[1],
            [
                ("present/screen".to_string(), "7".to_string()),
                ("reveal/recall-knee-answer".to_string(), "true".to_string())
            ]
        );
        assert!(
            applied[0].is_empty(),
            "the window already open keeps its values"
        );
        // A signal created later (the recall card's screen is shown) starts revealed.
        assert_eq!(
            audience.adopt("reveal/recall-knee-answer", "false".into()),
            "true"
        );
    }

    #[test]
    fn a_snapshot_from_a_newer_window_or_for_another_window_is_ignored() {
        let mut old = SyncPeer::new("old", 1.0);
        old.adopt("k", "1".into());
        let snapshot = |to: &str, opened_at| SyncMessage::Snapshot {
            from: "x".into(),
            to: to.into(),
            opened_at,
            values: BTreeMap::from([("k".to_string(), "2".to_string())]),
        };
        assert!(
            old.receive(snapshot("old", 9.0)).apply.is_empty(),
            "newer window"
        );
        assert!(
            old.receive(snapshot("other", 0.5)).apply.is_empty(),
            "addressed elsewhere"
        );
        assert_eq!(old.receive(snapshot("old", 0.5)).apply.len(), 1);
        assert_eq!(old.value("k"), Some("2"));
    }

    #[test]
    fn foreign_messages_are_ignored() {
        assert_eq!(SyncMessage::from_json("{\"hello\": 1}"), None);
        assert_eq!(SyncMessage::from_json("not json"), None);
        let set = SyncMessage::Set {
            from: "a".into(),
            key: "k".into(),
            value: "[1,2]".into(),
        };
        assert_eq!(
            set.to_json(),
            r#"{"set":{"from":"a","key":"k","value":"[1,2]"}}"#
        );
    }
}
