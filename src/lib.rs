//! goodput — an interactive course on why LLM serving latency explodes near full load. This is the page's crate:
//! the library its wasm, the page build and the workers share, and the page's own live parts. What it may link is
//! what `src/Cargo.toml` names; calibration (`goodput-calibrate`), the teacher (`goodput-teacher`) and the static
//! site (`goodput-pages`) are crates of their own, which build on this one.
//!
//! Data flows one way, from pure code to the page:
//! - [`model`]: the queue model (M/M/c and continuous batching), the `goodput-model` crate re-exported: pure Rust
//!   with no web types; [`lab`] turns the knee lab's settings into model runs and chart data, [`charts`] draws them
//!   (canvas in the page, SVG natively);
//! - [`server_files`]: the files a learner gives "Your server", as the page holds them before the server's worker
//!   calibrates from them (`goodput-calibrate`);
//! - [`cluster`]: reading a real vLLM server's `/metrics`, the knee verdict and Little's Law sizing;
//! - [`address`]: the query string the lab's settings and a presentation's place share;
//! - [`lesson`]: lesson data compiled from `lessons/*.md` at build time, and [`presentation`], a lesson cut into
//!   projected screens, with its keys, URL and window-sync protocol;
//! - [`server_protocol`]: the messages between the page and its `server-worker`, typed both ways;
//!   [`fleet_protocol`], its `fleet-worker`'s, whose day [`fleet_view`] simulates and draws as HTML; and
//!   [`teacher_protocol`], the Ask box's with its `teacher-worker`; [`lab_protocol`], the `lab-worker`'s, which
//!   draws the knee lab's first screen ([`lab_view`]) for an address that opens on it, before the page's wasm runs;
//! - the Ask box's answers are `goodput-teacher`'s, in its worker; the lesson's passages it ranks are cut by
//!   `goodput-lesson` ([`lesson::passages`]), as the lesson compiler cuts them to check answers against;
//! - [`views`]: each island's markup written once, a Leptos component the build renders to HTML and the page
//!   mounts live;
//! - `goodput-pages` (native, its own crate): the static site, every page written as complete HTML at build time;
//! - `components` (wasm): the Leptos components the page mounts into that HTML, where it is interactive, mounting one
//!   island (`components::mount`) and the presentation's screens among them;
//! - `islands` (wasm): booting the page, which schedules the islands' mounting or starts a presentation; it uses
//!   the components and nothing uses it.

pub use goodput_model as model;

pub mod address;
pub mod charts;
pub mod cluster;
pub mod fleet_protocol;
pub mod fleet_view;
pub mod html_writer;
pub mod lab;
pub mod lab_protocol;
pub mod lab_view;
pub mod lesson;
pub mod presentation;
pub mod printable;
pub mod server_files;
pub mod server_protocol;
pub mod teacher_protocol;
pub mod theme;
pub mod views;

#[cfg(target_arch = "wasm32")]
pub mod components;
#[cfg(target_arch = "wasm32")]
pub mod islands;
#[cfg(target_arch = "wasm32")]
pub mod offline;
#[cfg(target_arch = "wasm32")]
pub mod page_errors;
