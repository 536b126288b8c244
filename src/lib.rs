//! goodput — an interactive course on why LLM serving latency explodes near full load.
//!
//! The crate has three layers, and data flows one way through them:
//! - [`model`]: the queue model (M/M/c and continuous batching), pure Rust with no web types;
//! - [`lesson`]: lesson data, compiled from `lessons/*.md` at build time;
//! - `app` and `components` (wasm only): the Leptos page that drives the model and renders lessons.

pub mod charts;
pub mod cluster;
pub mod lab;
pub mod lesson;
pub mod model;
pub mod presentation;
pub mod theme;

#[cfg(target_arch = "wasm32")]
pub mod app;
#[cfg(target_arch = "wasm32")]
pub mod components;
#[cfg(target_arch = "wasm32")]
pub mod offline;
#[cfg(target_arch = "wasm32")]
pub mod page_errors;
