//! The islands' markup, written once: each island is a Leptos component that compiles on both targets. The page
//! build (`goodput-pages`, native, Leptos `ssr`) renders it to HTML with `to_html()`, the version a reader without
//! JavaScript gets; the wasm (`crate::components`, Leptos `csr`) mounts the same component live, with the state its
//! wiring gives it (storage, window sync). A view takes data and signals and touches no browser API, so a plain
//! native test renders it.
//!
//! The page writes each view in its pre-rendered state inside the island's wrapper, whose attributes (what the wasm
//! reads back) are [`crate::lesson::island_markup`]'s.

pub mod data_table;
pub mod island_codec;
pub mod predict;
pub mod progress;
pub mod reveal;
pub mod tasks;
pub mod theme;
pub mod widget_frame;
