//! Leptos components, one widget a file, mounted as islands into the pre-rendered page ([`mount`], which the page's
//! boot in `crate::islands` and a presentation's screens call), and the hooks they share: the sliced sweep that runs
//! the model without blocking ([`sliced_sweep`]), presentation sync ([`sync`]), the theme, the chart canvas's sizing,
//! performance marks. A component reads signals, calls the model or a chart function, and renders; it holds no
//! simulation logic. Nothing here uses `crate::islands`.

pub mod address;
pub mod ask;
pub mod canvas_backend;
pub mod chart_canvas;
pub mod download;
pub mod lesson;
pub mod mount;
pub mod next_task;
pub mod on_demand;
pub mod perf;
pub mod present;
pub mod site_base;
pub mod sliced_sweep;
pub mod sync;
pub mod theme;
pub mod widgets;
pub mod worker;
