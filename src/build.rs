//! Compiles `lessons/*.md` into `$OUT_DIR/lessons.json`, which `goodput::lesson::catalog()` embeds.
//!
//! The compiler is the crate `goodput-lesson-compiler` (`src/lesson/compiler/`), a build-dependency only, so that
//! markdown, TOML, MathML and highlighting run at build time and never reach the wasm.

use goodput_lesson_compiler as compiler;

// The tables of models and GPUs, for the lists "Your server" offers: written into the page as HTML here, so the
// page's wasm holds the names and not the tables (the calibration's worker has those).
#[path = "model/hardware/models.rs"]
#[allow(dead_code)]
mod models;

#[path = "model/hardware/gpus.rs"]
#[allow(dead_code)]
mod gpus;

use std::path::Path;

/// `<option>`s of `(value, words, names)`: `data-match` holds the names' keys, by which the page finds the option a
/// result file names.
fn options<'a>(entries: impl Iterator<Item = (&'a str, &'a str, Vec<String>)>) -> String {
    let mut html = String::new();
    for (value, words, keys) in entries {
        let mut keys = keys;
        keys.sort();
        keys.dedup();
        assert!(
            !(value.to_owned() + words).contains(['<', '>', '&', '"']),
            "a name of the hardware tables needs no HTML escaping: {value}"
        );
        html += &format!(
            "<option value=\"{value}\" data-match=\"{}\">{words}</option>",
            keys.join(" ")
        );
    }
    html
}

fn write_hardware_options(out_dir: &str) {
    println!("cargo:rerun-if-changed=model/hardware/models.rs");
    println!("cargo:rerun-if-changed=model/hardware/gpus.rs");
    let models = options(models::KNOWN_MODELS.iter().map(|m| {
        let keys = m.names().map(models::match_key).collect();
        (m.id, m.name, keys)
    }));
    let gpus = options(gpus::KNOWN_GPUS.iter().map(|g| {
        let keys = g.names().map(gpus::match_key).collect();
        (g.name, g.name, keys)
    }));
    for (name, html) in [("model-options.html", models), ("gpu-options.html", gpus)] {
        std::fs::write(Path::new(out_dir).join(name), html).expect("OUT_DIR is writable");
    }
}

fn main() {
    let manifest_dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let out_dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    // Paths from this package's folder, src/.
    // The compiler and the lesson types are a dependency's: cargo reruns this when they change.
    println!("cargo:rerun-if-changed=../lessons");
    // The page's wasm keeps its relocations, which tools/split-page (run by tools/post-build.sh) needs to cut it into
    // the module every visit loads and the parts loaded on demand (`#[lazy]`). The workers are not split.
    if std::env::var("TARGET").is_ok_and(|target| target.starts_with("wasm32")) {
        println!("cargo:rustc-link-arg-bin=goodput=--emit-relocs");
    }

    write_hardware_options(&out_dir);

    let lessons_dir = Path::new(&manifest_dir).join("../lessons");
    match compiler::compile_dir(&lessons_dir, "lessons") {
        Ok(lessons) => {
            let json = serde_json::to_string(&lessons).expect("lesson data serialises to JSON");
            std::fs::write(Path::new(&out_dir).join("lessons.json"), json)
                .expect("OUT_DIR is writable");
        }
        Err(error) => {
            // Cargo shows a failing build script's stderr; the first line is the clickable `file:line: message`.
            eprintln!("{error}");
            eprintln!("error: lesson compilation failed (see the message above; the format is in lessons/README.md)");
            std::process::exit(1);
        }
    }
}
