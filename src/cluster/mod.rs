//! "On your cluster": the lesson's ideas read off real vLLM servers. Pure Rust, no web types.
//!
//! - [`metrics`]: a bounded, line-numbered parser for the Prometheus text format a vLLM server serves at `/metrics`;
//! - [`vllm`]: the four signals per model, percentile estimates from histogram buckets, and the knee verdict;
//! - [`sizing`]: the Little's Law sizer (replicas from the concurrency cap, latency and peak demand);
//! - [`autoscale`]: the sizing as a Prometheus alert rule and a KEDA trigger, and SLO suggestions per workload;
//! - [`exposition`]: the model's run rendered as a simulated vLLM `/metrics` page.

pub mod autoscale;
pub mod exposition;
pub mod metrics;
pub mod sizing;
pub mod vllm;
