//! The shape of the source tree the next engineer meets: the workspace's crates linking only what their manifests
//! name (the page and the fleet worker never reach the solver, the CSV reader or the stemmer; no wasm reaches the
//! lesson compiler's markdown parser), files small enough to
//! hold one job (tests too), the page's layers depending one way (the boot in `src/islands/` uses the components; no
//! component reaches back), and no circle of imports between files.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What only calibration (the solver, the CSV reader) and the teacher (its index, the stemmer) may link.
const KEPT_FROM_THE_PAGE: [&str; 5] = [
    "nalgebra",
    "csv",
    "rust-stemmers",
    "goodput-calibrate",
    "goodput-teacher",
];

/// What only the lesson's build may link: the lesson compiler (`src/lesson/compiler/`, a build-dependency of the
/// page) and its markdown parser, LaTeX to MathML and highlighter. It runs in `build.rs` and natively, never in a
/// browser.
const KEPT_FROM_EVERY_WASM: [&str; 4] = [
    "goodput-lesson-compiler",
    "pulldown-cmark",
    "pulldown-latex",
    "syntect",
];

/// The members built for the browser: the page and its web workers.
const WASM_MEMBERS: [&str; 5] = [
    "goodput",
    "fleet-worker",
    "lab-worker",
    "server-worker",
    "teacher-worker",
];

/// Every path from `package` to a package of `names` in its normal (not build, not dev) dependency graph for the
/// browser, as `goodput → goodput-calibrate → nalgebra`.
fn wasm_paths_to(package: &str, names: &[&str]) -> Vec<String> {
    paths_to(package, Some("wasm32-unknown-unknown"), names)
}

/// Every path from `package` to a package of `names` in its normal dependency graph for `target` (the host's when
/// `None`): read from `cargo tree`, offline and from Cargo.lock as committed, so the graph is the manifests' and not
/// a newer resolution's.
fn paths_to(package: &str, target: Option<&str>, names: &[&str]) -> Vec<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["tree", "--locked", "--offline", "-p", package])
        .args(
            target
                .map(|target| ["--target", target])
                .into_iter()
                .flatten(),
        )
        .args(["--edges", "normal"])
        .args(["--prefix", "depth", "--format", "{p}"])
        .output()
        .expect("cargo runs");
    let tree = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && !tree.is_empty(),
        "cargo tree -p {package} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    // Each line is the depth, then `name vX.Y.Z (path)`; the lines above a line at lower depths are its ancestors.
    let mut stack: Vec<String> = Vec::new();
    let mut paths = Vec::new();
    for line in tree.lines() {
        let digits = line.chars().take_while(char::is_ascii_digit).count();
        let depth: usize = line[..digits].parse().expect("a depth before each package");
        let name = line[digits..]
            .split(' ')
            .next()
            .unwrap_or_default()
            .to_owned();
        stack.truncate(depth);
        stack.push(name);
        if names.contains(&stack[depth].as_str()) {
            paths.push(stack.join(" → "));
        }
    }
    paths.sort();
    paths.dedup();
    paths
}

#[test]
fn the_page_and_the_fleet_and_lab_workers_link_no_solver_csv_reader_or_stemmer() {
    // The check sees real edges: the workers that calibrate and answer questions do link them.
    assert!(
        wasm_paths_to("server-worker", &KEPT_FROM_THE_PAGE)
            .contains(&"server-worker → goodput-calibrate → nalgebra".to_owned()),
        "the dependency scan finds the calibration's solver in its worker"
    );
    assert!(
        wasm_paths_to("teacher-worker", &KEPT_FROM_THE_PAGE)
            .contains(&"teacher-worker → goodput-teacher → rust-stemmers".to_owned()),
        "the dependency scan finds the stemmer in the teacher's worker"
    );
    for package in ["goodput", "fleet-worker", "lab-worker"] {
        let paths = wasm_paths_to(package, &KEPT_FROM_THE_PAGE);
        assert!(
            paths.is_empty(),
            "{package}'s wasm can link what only calibration and the teacher may (cut the edge, or move what it \
             needs into a crate both share): {paths:#?}"
        );
    }
}

#[test]
fn no_wasm_links_the_lesson_compiler_or_its_markdown_latex_or_highlighter() {
    // The check sees real edges: the compiler links the markdown parser.
    assert!(
        paths_to("goodput-lesson-compiler", None, &KEPT_FROM_EVERY_WASM)
            .contains(&"goodput-lesson-compiler → pulldown-cmark".to_owned()),
        "the dependency scan finds the markdown parser in the lesson compiler"
    );
    for package in WASM_MEMBERS {
        let paths = wasm_paths_to(package, &KEPT_FROM_EVERY_WASM);
        assert!(
            paths.is_empty(),
            "{package}'s wasm can link the lesson compiler's parsers (compile lessons at build time, and send the \
             browser their output): {paths:#?}"
        );
    }
}

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
fn no_source_or_test_file_is_over_800_lines() {
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let long: Vec<String> = rust_files(&src())
        .into_iter()
        .chain(rust_files(&tests))
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

/// A source file's module path from `src/`: `charts/frame/axes.rs` → `["charts", "frame", "axes"]`, `cluster/mod.rs`
/// → `["cluster"]`, `lib.rs` → `[]`.
fn module_of(path: &Path) -> Vec<String> {
    let relative = path.strip_prefix(src()).expect("under src/");
    let mut parts: Vec<String> = relative
        .with_extension("")
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The paths a `use` tree names, its braces expanded: `super::{a, b::{c, d}}` → `super::a`, `super::b::c`, …
fn expand_use(tree: &str) -> Vec<String> {
    let tree: String = tree.chars().filter(|c| !c.is_whitespace()).collect();
    let Some(open) = tree.find('{') else {
        return vec![tree];
    };
    let (prefix, inner) = (&tree[..open], &tree[open + 1..tree.len() - 1]);
    let mut items = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&inner[start..]);
    items
        .into_iter()
        .filter(|item| !item.is_empty())
        .flat_map(|item| expand_use(&format!("{prefix}{item}")))
        .collect()
}

/// Every module path a file's code (not its comments, not its `#[cfg(test)]` module) names: its `use` items and the
/// `crate::…` / `super::…` paths written inline.
fn named_paths(text: &str) -> Vec<String> {
    let code: Vec<&str> = text
        .lines()
        .take_while(|line| line.trim() != "#[cfg(test)]")
        .map(|line| line.split("//").next().unwrap_or(""))
        .collect();
    let code = code.join("\n");
    let mut paths = Vec::new();
    let mut rest = code.as_str();
    while let Some(at) = rest.find("use ") {
        let starts_word = at == 0 || !rest.as_bytes()[at - 1].is_ascii_alphanumeric();
        let after = &rest[at + 4..];
        let end = after.find(';').unwrap_or(after.len());
        let tree = after[..end].trim();
        if starts_word && (tree.starts_with("crate::") || tree.starts_with("super::")) {
            paths.extend(expand_use(tree));
        }
        rest = &after[end.min(after.len())..];
    }
    for word in code.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')) {
        if word.starts_with("crate::") || word.starts_with("super::") {
            paths.push(word.to_owned());
        }
    }
    paths
}

/// The folder of the workspace member whose files `module` is in: `["calibrate"]` for `calibrate/fit`, `[]` for the
/// page's crate (`src/`), whose library root is `lib.rs`.
fn crate_root_of(module: &[String]) -> Vec<String> {
    (1..module.len())
        .rev()
        .map(|n| module[..n].to_vec())
        .find(|prefix| {
            let dir = prefix.iter().fold(src(), |dir, part| dir.join(part));
            dir.join("Cargo.toml").is_file()
        })
        .unwrap_or_default()
}

/// The module a path names, resolved from `module` (`crate`, `super`, `self`), cut to the longest prefix that is a
/// file of its own. `crate` is the root of the member `module` belongs to.
fn resolve(path: &str, module: &[String], files: &[Vec<String>]) -> Option<Vec<String>> {
    let mut at: Vec<String> = module.to_vec();
    let mut segments = path.split("::").filter(|s| !s.is_empty()).peekable();
    match segments.peek().copied() {
        Some("crate") => at = crate_root_of(module),
        Some("super") => {}
        _ => return None,
    }
    for segment in segments {
        match segment {
            "crate" | "self" => {}
            "super" => {
                at.pop()?;
            }
            name => at.push(name.to_owned()),
        }
    }
    (0..=at.len())
        .rev()
        .map(|n| at[..n].to_vec())
        .find(|prefix| files.contains(prefix))
}

/// Which files each file depends on. A module may use what its parent (or any ancestor) holds: that is where it is
/// declared, not a dependency.
fn import_graph() -> Vec<(Vec<String>, Vec<Vec<String>>)> {
    let files: Vec<PathBuf> = rust_files(&src())
        .into_iter()
        .filter(|p| !p.starts_with(src().join("bin")))
        .collect();
    let modules: Vec<Vec<String>> = files.iter().map(|p| module_of(p)).collect();
    files
        .iter()
        .zip(&modules)
        .map(|(path, module)| {
            let text = fs::read_to_string(path).expect("a readable source file");
            let mut uses: Vec<Vec<String>> = named_paths(&text)
                .iter()
                .filter_map(|p| resolve(p, module, &modules))
                .filter(|target| !module.starts_with(target))
                .collect();
            uses.sort();
            uses.dedup();
            (module.clone(), uses)
        })
        .collect()
}

/// The circles of `graph`: its strongly connected components of more than one file.
fn circles(graph: &[(Vec<String>, Vec<Vec<String>>)]) -> Vec<Vec<String>> {
    let index = |m: &Vec<String>| graph.iter().position(|(n, _)| n == m);
    let edges: Vec<Vec<usize>> = graph
        .iter()
        .map(|(_, uses)| uses.iter().filter_map(index).collect())
        .collect();
    let reaches = |from: usize| {
        let mut seen = vec![false; graph.len()];
        let mut stack = vec![from];
        while let Some(n) = stack.pop() {
            for &next in &edges[n] {
                if !seen[next] {
                    seen[next] = true;
                    stack.push(next);
                }
            }
        }
        seen
    };
    let reach: Vec<Vec<bool>> = (0..graph.len()).map(reaches).collect();
    let mut found: Vec<Vec<String>> = Vec::new();
    for (a, from_a) in reach.iter().enumerate() {
        let mut circle: Vec<String> = (0..graph.len())
            .filter(|&b| b != a && from_a[b] && reach[b][a])
            .chain([a])
            .map(|b| graph[b].0.join("/"))
            .collect();
        circle.sort();
        if circle.len() > 1 && !found.contains(&circle) {
            found.push(circle);
        }
    }
    found
}

#[test]
fn the_import_graph_finds_a_circle_and_the_source_has_none() {
    let module = |s: &str| s.split('/').map(str::to_owned).collect::<Vec<_>>();
    // The scanner reads grouped `use` trees and inline paths, and a circle of two files is found.
    assert_eq!(
        expand_use("super::{a, b::{c, d}}"),
        ["super::a", "super::b::c", "super::b::d"]
    );
    let files = [module("x"), module("x/y"), module("x/z")];
    assert_eq!(
        resolve("super::z::Thing", &files[1], &files),
        Some(module("x/z"))
    );
    // `crate` in a member's file is that member's root: the model's `crate::sim` is `src/model/sim`.
    assert_eq!(crate_root_of(&module("model/sim/llm/kv")), module("model"));
    assert_eq!(crate_root_of(&module("charts/frame")), Vec::<String>::new());
    let toy = vec![
        (module("x/y"), vec![module("x/z")]),
        (module("x/z"), vec![module("x/y")]),
        (module("w"), vec![module("x/y")]),
    ];
    assert_eq!(circles(&toy), [["x/y", "x/z"]]);
    let graph = import_graph();
    assert!(
        graph
            .iter()
            .any(|(m, uses)| m == &module("charts/frame/marks")
                && uses.contains(&module("charts/style"))),
        "the graph holds real edges"
    );
    assert!(
        graph
            .iter()
            .any(|(m, uses)| m == &module("model/sim/llm/kv")
                && uses.contains(&module("model/scenario"))),
        "the graph holds real edges inside a member crate"
    );
    let found = circles(&graph);
    assert!(
        found.is_empty(),
        "cut these circles along a seam: {found:?}"
    );
}

/// Each on-demand module the page names (a widget's island carries it; the build's loader prefetches by it) is a
/// split point of the page's binary, and each split point is one of them: a renamed point would leave the name
/// pointing nowhere, and a deep link would only wait, as before, for the page's wasm to ask for the module.
#[test]
fn every_on_demand_module_is_a_split_point_of_the_page() {
    use goodput::lesson::island_markup::Module;
    let main = fs::read_to_string(src().join("main.rs")).expect("src/main.rs");
    let points: Vec<&str> = main
        .split("#[wasm_split(")
        .skip(1)
        .map(|rest| rest.split([',', ')']).next().unwrap_or("").trim())
        .collect();
    assert!(
        !points.is_empty(),
        "src/main.rs defines no #[wasm_split] point"
    );
    let mut modules: Vec<&str> = Module::ALL.iter().map(|module| module.as_str()).collect();
    let mut sorted_points = points.clone();
    modules.sort_unstable();
    sorted_points.sort_unstable();
    assert_eq!(
        modules, sorted_points,
        "island_markup::Module against src/main.rs's split points"
    );
}
