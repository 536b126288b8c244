//! The real vLLM trace both validation suites read (tests/validation_vllm.rs, tests/validation_calibrate.rs). It is
//! not in the repository: see tests/fixtures/vllm-otel/README.md for where it comes from and how it is made.

/// Why the tests that read it are ignored by default.
pub const NEEDS_TRACE: &str = "needs the real vLLM trace: see tests/fixtures/vllm-otel/README.md";

/// The trace's text, from `GOODPUT_VLLM_TRACE` or beside the project in `../shared/data/vllm-otel/`.
pub fn trace() -> String {
    let path = std::env::var("GOODPUT_VLLM_TRACE").unwrap_or_else(|_| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../shared/data/vllm-otel/codellama-34b-sweep.csv"
        )
        .to_owned()
    });
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{path}: {error} ({NEEDS_TRACE})"))
}
