//! A panic must never leave a blank or frozen page: it is logged and shown as a visible banner.
//!
//! The release build aborts on panic, so the wasm instance is gone after this hook returns; the
//! banner therefore uses plain DOM calls and asks the learner to reload.

use wasm_bindgen::JsCast;

/// Install the panic hook; call it once, before the first island mounts.
pub fn install_panic_banner() {
    std::panic::set_hook(Box::new(|info| {
        let message = info.to_string();
        web_sys::console::error_1(&format!("goodput panicked: {message}").into());
        show_banner(&message);
    }));
}

fn show_banner(message: &str) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Some(body) = document.body() else { return };
    let Ok(banner) = document.create_element("div") else {
        return;
    };
    banner.set_class_name("page-error");
    let _ = banner.set_attribute("role", "alert");
    banner.set_text_content(Some(&format!(
        "Sorry — the course page hit an internal error and stopped. Reload the page to continue. \
         (Details for a bug report: {message})"
    )));
    if let Ok(banner) = banner.dyn_into::<web_sys::HtmlElement>() {
        let _ = body.prepend_with_node_1(&banner);
    }
}

/// Panics on purpose. The browser tests call it through Trunk's `window.wasmBindings` to check that a panic
/// shows the banner instead of leaving a dead page; nothing in the page calls it.
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn panic_for_test() {
    panic!("a deliberate panic, raised by the browser test");
}
