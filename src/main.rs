//! The course page's entry point: Trunk builds this binary for wasm32, and the pre-rendered page loads it to bring
//! its interactive parts to life.

#[cfg(target_arch = "wasm32")]
fn main() {
    goodput::page_errors::install_panic_banner();
    goodput::islands::start();
    goodput::offline::register_service_worker();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!(
        "goodput: the course page is a WebAssembly app; run `make serve` to open it in a browser"
    );
    std::process::exit(2);
}
