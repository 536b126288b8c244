//! "On your cluster": the lesson's ideas read off real vLLM servers. Pure Rust, no web types.
//!
//! - [`admission`]: what a server turned away (vLLM's queue caps, the API server's 5xx answers), and the waiting
//!   reasons and prefix-cache hit rate beside it;
//! - [`metrics`]: a bounded, line-numbered parser for the Prometheus text format a vLLM server serves at `/metrics`;
//! - [`vllm`]: the signals per model and engine (current and older metric names), percentile estimates from histogram
//!   buckets, and the knee verdict;
//! - [`window`]: two scrapes as the window between them (the present, where one scrape shows the history);
//! - [`reading`]: one scrape or the window between two, read per label set with its verdict: what the CLI prints
//!   and the page's metrics reader renders;
//! - [`report`]: `goodput-sim metrics`, a reading as text or JSON;
//! - [`sizing`]: the Little's Law sizer (replicas from the concurrency cap, latency and peak demand);
//! - [`autoscale`]: the sizing as a Prometheus alert rule and a KEDA trigger, and SLO suggestions per workload;
//! - [`exposition`]: the model's run rendered as a simulated vLLM `/metrics` page.

pub mod admission;
pub mod autoscale;
pub mod exposition;
pub mod metrics;
pub mod reader_view;
pub mod reading;
pub mod report;
pub mod sizing;
pub mod vllm;
pub mod window;
