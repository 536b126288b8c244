//! Reading what the user hands over: a file, or `-` for standard input, up to a size limit.

use std::io::Read;

/// The text of `source` (a path, or `-` for standard input), at most `limit` bytes; `usual` says what size to expect
/// in the error for a larger one (e.g. "a vLLM /metrics page is usually under 100 kB").
pub fn read_text(source: &str, limit: usize, usual: &str) -> Result<String, String> {
    let mut bytes = Vec::new();
    let cap = limit as u64 + 1;
    let read = if source == "-" {
        std::io::stdin().take(cap).read_to_end(&mut bytes)
    } else {
        std::fs::File::open(source).and_then(|file| file.take(cap).read_to_end(&mut bytes))
    };
    read.map_err(|e| format!("cannot read {source}: {e}"))?;
    let name = display_name(source);
    if bytes.len() > limit {
        return Err(format!(
            "{name} is larger than the {} limit ({usual})",
            size(limit)
        ));
    }
    String::from_utf8(bytes).map_err(|_| format!("{name} is not UTF-8 text"))
}

/// How messages name `source`: its path, or "standard input" for `-`.
pub fn display_name(source: &str) -> &str {
    if source == "-" {
        "standard input"
    } else {
        source
    }
}

fn size(bytes: usize) -> String {
    if bytes >= 1024 * 1024 {
        format!("{} MB", bytes / (1024 * 1024))
    } else {
        format!("{} kB", bytes / 1024)
    }
}
