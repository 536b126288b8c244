//! The shape of the source tree the next engineer meets: files small enough to hold one job, and the page's layers
//! depending one way (the boot in `src/islands/` uses the components; no component reaches back).

use std::fs;
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir).expect("the source folder is readable") {
        let path = entry.expect("a readable folder entry").path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            files.push(path);
        }
    }
    files
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn no_source_file_is_over_800_lines() {
    let long: Vec<String> = rust_files(&src())
        .into_iter()
        .filter_map(|path| {
            let lines = fs::read_to_string(&path).ok()?.lines().count();
            (lines > 800).then(|| format!("{} ({lines} lines)", path.display()))
        })
        .collect();
    assert!(long.is_empty(), "split along a seam: {long:?}");
}

#[test]
fn no_component_uses_the_page_boot() {
    let reaching_back: Vec<String> = rust_files(&src().join("components"))
        .into_iter()
        .filter(|path| {
            fs::read_to_string(path)
                .expect("a readable source file")
                .lines()
                .map(str::trim_start)
                // Doc comments may name the boot; code may not use it.
                .filter(|line| !line.starts_with("//"))
                .any(|line| line.contains("crate::islands"))
        })
        .map(|path| path.display().to_string())
        .collect();
    assert!(
        reaching_back.is_empty(),
        "components import crate::islands: {reaching_back:?}"
    );
}
