//! The lesson as data: the types the lesson compiler (`goodput-lesson-compiler`) produces and the page, the page
//! build and the teacher read, the lesson cut into passages, and the reading of the compiler's HTML both of those
//! need. Plain Rust and serde: no markdown parser, nothing of the browser. The page re-exports it as
//! `goodput::lesson`.

mod types;

pub use types::*;

pub mod html;
pub mod passages;
