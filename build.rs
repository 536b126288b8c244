//! Compiles `lessons/*.md` into `$OUT_DIR/lessons.json`, which `goodput::lesson::catalog()` embeds.
//!
//! The compiler is the crate's own `src/lesson/compiler`, included here by path so that markdown, TOML, MathML and
//! highlighting run at build time only and never reach the wasm.

// The data types stand in for `crate::lesson` here, which is the path the compiler uses for them.
#[path = "src/lesson/types.rs"]
#[allow(dead_code)] // the build only produces the data, it never reads it
mod lesson;

// The compiler checks a lesson's `@answers` blocks against the passages the teacher cuts the lesson into, with the
// teacher's own cutting (`crate::teacher::passages`, which reads HTML with `crate::presentation::html`).
#[path = "src/presentation/html.rs"]
#[allow(dead_code)] // the build cuts passages only, it never measures screens
mod presentation_html;
mod presentation {
    pub(crate) use super::presentation_html as html;
}
#[path = "src/teacher/passages.rs"]
#[allow(dead_code)]
mod teacher_passages;
mod teacher {
    pub(crate) use super::teacher_passages as passages;
}

#[path = "src/lesson/compiler/mod.rs"]
#[allow(dead_code)] // helpers that only the library and its tests call
mod compiler;

use std::path::Path;

fn main() {
    let manifest_dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let out_dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    println!("cargo:rerun-if-changed=lessons");
    println!("cargo:rerun-if-changed=src/lesson/types.rs");
    println!("cargo:rerun-if-changed=src/lesson/compiler");
    println!("cargo:rerun-if-changed=src/teacher/passages.rs");
    println!("cargo:rerun-if-changed=src/presentation/html.rs");

    let lessons_dir = Path::new(&manifest_dir).join("lessons");
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
