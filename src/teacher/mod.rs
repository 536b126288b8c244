//! The teacher at the end of the lesson: questions answered from the course itself, offline, and the pure parts of
//! asking the learner's own OpenAI-compatible server. No web types here; the Ask box (`goodput::components::ask`) and
//! the `teacher-worker` (`src/bin/teacher-worker/`), which ranks the passages and asks a learner's model, call into it.
//!
//! - [`passages`]: the lesson cut into passages (speaker notes left out), each with its section;
//! - [`rank`]: BM25 with English stemming over them;
//! - [`vocabulary`]: learners' words for the lesson's ideas ("time to first byte" is TTFT, "HPA" the autoscaler);
//! - `seen`: learners' words for what they see on their servers ("busy hours", "everyone else", "useless");
//! - `spelling`: a misspelt word read as the word meant ("waht is goodptu");
//! - `typed`: how learners type (chat spellings, "b4", "tput"), read as whole words;
//! - [`untaught`]: what the lesson does not teach (prices, neighbouring topics, setting up tools it never names);
//! - [`kinds`]: the kind of a question (definition, difference, explain simply, what if, which metric, why) and
//!   the blocks that answer it best;
//! - `shapes`: a question's shape beyond its cue ("how does X work", "is X due to A or B", "does X count Y");
//! - [`select`]: the passages that answer a question, ranked by passage, section and kind;
//! - [`quantities`]: the numbers of a question, read with their units as people write them;
//! - [`worked`]: the two questions that are worked, not looked up: a Little's Law sizing, SLOs to start from;
//! - [`answer`]: the answer as data and as the Ask box's HTML;
//! - [`model`]: the learner's own model: its address, the request, the stream's events, its two clocks and every
//!   failure as a sentence with its fix.
//!
//! ```
//! let lesson = goodput::lesson::find("latency-throughput-slos").unwrap();
//! let teacher = goodput_teacher::Teacher::new(lesson);
//! let html = teacher.answer_html("30 QPS, 64 concurrent sequences, 8 s per request: how many replicas?");
//! assert!(html.contains("<strong>4 replicas</strong>"));
//! ```

pub mod answer;
mod answer_html;
pub mod kinds;
pub mod model;
pub mod quantities;
pub mod rank;
mod seen;
pub mod select;
mod shapes;
mod spelling;
mod typed;
pub mod untaught;
pub mod vocabulary;
pub mod worked;

pub use answer::{Answer, Teacher};
/// The Ask box's element ids, which the page and the static site share: the page's crate holds them.
pub use goodput::lesson::ask_markup as markup;
/// The lesson cut into passages: the page's crate holds the cutting, which the lesson compiler also runs.
pub use goodput::lesson::passages;

// The page's crate, under the names this crate's modules use (`crate::lesson::…`, `crate::cluster::…`).
use goodput::{charts, cluster, html_writer, lesson};
