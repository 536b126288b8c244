//! The page's address as data: the query string every part of a page shares. The knee lab keeps its settings there
//! (`load=0.97`) and a presentation its place (`present=1&screen=7`); each rewrites only its own parameters and keeps
//! everyone else's, so a presentation link carrying lab settings opens with them and keeps them from screen to screen.
//! Pure, tested natively; the page writes the result with `history.replaceState` in one place
//! (`components::address`).

/// `query` with the parameters `owns` picks replaced by `pairs` (appended after the others, in their order); every
/// other parameter is kept where it was. Returns the query without `?`, empty when nothing is left.
pub fn replace_params(
    query: &str,
    owns: impl Fn(&str) -> bool,
    pairs: impl IntoIterator<Item = (String, String)>,
) -> String {
    let mut kept: Vec<(String, String)> = query_pairs(query)
        .into_iter()
        .filter(|(key, _)| !owns(key))
        .collect();
    kept.extend(pairs);
    join_query(&kept)
}

/// `key=value` pairs as a query string (without `?`), each part percent-encoded.
pub fn join_query(pairs: &[(String, String)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
        .collect::<Vec<_>>()
        .join("&")
}

/// Splits a query string into decoded `(key, value)` pairs (`+` is a space; bad `%` escapes are kept literally).
pub fn query_pairs(query: &str) -> Vec<(String, String)> {
    query
        .trim_start_matches('?')
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            (decode(key), decode(value))
        })
        .collect()
}

fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = (bytes[i] == b'%')
            .then(|| bytes.get(i + 1..i + 3))
            .flatten()
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match (escaped, bytes[i]) {
            (Some(byte), _) => {
                out.push(byte);
                i += 3;
            }
            (None, b'+') => {
                out.push(b' ');
                i += 1;
            }
            (None, byte) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replacing_one_owner_s_parameters_keeps_the_others_in_place() {
        let query = "?present=1&load=0.97&screen=3&loop=closed";
        let presentation = |key: &str| matches!(key, "present" | "view" | "screen");
        let pairs = [("present", "1"), ("screen", "4")].map(|(k, v)| (k.to_owned(), v.to_owned()));
        assert_eq!(
            replace_params(query, presentation, pairs),
            "load=0.97&loop=closed&present=1&screen=4"
        );
        assert_eq!(replace_params("a=1", |_| true, []), "");
        assert_eq!(
            replace_params("note=a%20b+c", |_| false, [("x".into(), "é&".into())]),
            "note=a%20b%20c&x=%C3%A9%26"
        );
    }
}
