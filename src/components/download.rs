//! Downloads the page makes itself (a chart's PNG or SVG, a calibrated server's scenario file): a transient
//! `<a download>`, and for text a `blob:` URL, which a strict CSP allows where a `data:` URL of SVG may be refused.

use leptos::prelude::document;
use wasm_bindgen::JsCast;

/// How long a download's object URL lives: long enough for any browser to have read it. Firefox and Safari read the
/// blob after the click returns, so revoking it at once can leave them an empty or failed download; revoked later,
/// as FileSaver.js does.
const REVOKE_DOWNLOAD_AFTER_MS: u32 = 40_000;

/// Saves `url` as `file_name` through a transient `<a download>`; it is never attached to the page.
pub fn save(url: &str, file_name: &str) {
    let Some(anchor) = document()
        .create_element("a")
        .ok()
        .and_then(|element| element.dyn_into::<web_sys::HtmlAnchorElement>().ok())
    else {
        return;
    };
    anchor.set_href(url);
    anchor.set_download(file_name);
    anchor.click();
}

/// Saves `text` as `file_name`, of type `mime`.
pub fn save_text(text: &str, mime: &str, file_name: &str) -> Result<(), String> {
    let parts = web_sys::js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options)
        .map_err(|e| format!("{e:?}"))?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(|e| format!("{e:?}"))?;
    save(&url, file_name);
    gloo_timers::callback::Timeout::new(REVOKE_DOWNLOAD_AFTER_MS, move || {
        let _ = web_sys::Url::revoke_object_url(&url);
    })
    .forget();
    Ok(())
}
