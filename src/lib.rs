//! goodput — an interactive course on why LLM serving latency explodes near full load.
//!
//! Data flows one way, from pure code to the page:
//! - [`model`]: the queue model (M/M/c and continuous batching), pure Rust with no web types; [`lab`] turns the
//!   knee lab's settings into model runs and chart data, [`charts`] draws them (canvas in the page, SVG natively);
//! - [`calibrate`]: "Your server": the model fitted to a benchmark's results, a trace or two `/metrics` scrapes;
//! - [`cluster`]: reading a real vLLM server's `/metrics`, the knee verdict and Little's Law sizing;
//! - [`address`]: the query string the lab's settings and a presentation's place share;
//! - [`lesson`]: lesson data compiled from `lessons/*.md` at build time, and [`presentation`], a lesson cut into
//!   projected screens, with its keys, URL and window-sync protocol;
//! - [`server_protocol`]: the messages between the page and its `server-worker`, typed both ways;
//!   [`fleet_protocol`], its `fleet-worker`'s, whose day [`fleet_view`] simulates and draws as HTML; and
//!   [`teacher_protocol`], the Ask box's with its `teacher-worker`;
//! - [`teacher`]: the Ask box's answers from the course (passages ranked by BM25, worked sizings and SLOs), and
//!   the pure parts of asking the learner's own model;
//! - [`views`]: each island's markup written once, a Leptos component the build renders to HTML and the page
//!   mounts live;
//! - `pages` (native): the static site, every page written as complete HTML at build time;
//! - `components` (wasm): the Leptos components the page mounts into that HTML, where it is interactive, mounting one
//!   island (`components::mount`) and the presentation's screens among them;
//! - `islands` (wasm): booting the page, which schedules the islands' mounting or starts a presentation; it uses
//!   the components and nothing uses it.

pub mod address;
pub mod calibrate;
pub mod charts;
pub mod cluster;
pub mod fleet_protocol;
pub mod fleet_view;
pub mod html_writer;
pub mod lab;
pub mod lesson;
pub mod model;
#[cfg(not(target_arch = "wasm32"))]
pub mod pages;
pub mod presentation;
pub mod printable;
pub mod server_protocol;
pub mod teacher;
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
