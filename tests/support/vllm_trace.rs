//! The real vLLM trace both validation suites read (src/model/tests/validation_vllm.rs,
//! src/calibrate/tests/validation_calibrate.rs): vendored in tests/fixtures/vllm-otel/ (Apache-2.0; source and how it
//! was made in its README).

/// The trace's text, from `GOODPUT_VLLM_TRACE` when set, else the vendored copy (two levels above the crate whose
/// tests read it).
pub fn trace() -> String {
    let path = std::env::var("GOODPUT_VLLM_TRACE").unwrap_or_else(|_| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/vllm-otel/codellama-34b-sweep.csv"
        )
        .to_owned()
    });
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{path}: {error}"))
}
