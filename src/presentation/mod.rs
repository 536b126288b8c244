//! Presentation mode, the parts that need no browser: a lesson cut into [`screens`], the [`keys`] and what they
//! do, the place in the [`url`], the [`sync`] protocol between presenter and audience windows, and the presenter's
//! [`stopwatch`]. The page (`components::present`) only wires these to the DOM.

pub use goodput_lesson::html;
pub mod keys;
pub mod screens;
pub mod stopwatch;
pub mod sync;
pub mod url;
