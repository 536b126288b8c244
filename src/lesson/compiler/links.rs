//! Link safety and heading anchors.

/// Why a link target is refused, if it is.
pub(super) fn refused_scheme(target: &str) -> Option<String> {
    // Browsers ignore whitespace and control characters inside a scheme (`java\tscript:`), so judge without them.
    let squeezed: String = target
        .chars()
        .filter(|c| !c.is_ascii_whitespace() && !c.is_ascii_control())
        .collect();
    let scheme_end = squeezed.find(':')?;
    let before_path = squeezed.find(['/', '?', '#']).unwrap_or(usize::MAX);
    if scheme_end > before_path {
        return None; // the colon is inside a relative path or fragment, not a scheme
    }
    let scheme = squeezed[..scheme_end].to_ascii_lowercase();
    match scheme.as_str() {
        "http" | "https" | "mailto" => None,
        _ => Some(scheme),
    }
}

/// The anchor GitHub gives a heading: lowercase, spaces to hyphens, punctuation other than `-` and `_` dropped.
/// Matching GitHub keeps `#links` working when the lesson is read as plain markdown.
pub(super) fn heading_anchor(text: &str) -> String {
    text.trim()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            '-' | '_' => Some(c),
            c if c.is_alphanumeric() => Some(c),
            _ => None,
        })
        .flat_map(char::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_web_and_mail_schemes_pass() {
        assert_eq!(refused_scheme("https://example.com"), None);
        assert_eq!(refused_scheme("mailto:a@b.c"), None);
        assert_eq!(refused_scheme("#the-knee"), None);
        assert_eq!(refused_scheme("../31-batching/"), None);
        assert_eq!(refused_scheme("notes/a:b"), None);
        assert_eq!(
            refused_scheme("javascript:alert(1)").as_deref(),
            Some("javascript")
        );
        assert_eq!(
            refused_scheme("JaVa\tScript:alert(1)").as_deref(),
            Some("javascript")
        );
        assert_eq!(refused_scheme("data:text/html,x").as_deref(), Some("data"));
    }

    #[test]
    fn anchors_follow_github() {
        assert_eq!(heading_anchor("The knee"), "the-knee");
        assert_eq!(
            heading_anchor("Goodput: only SLO-meeting work counts"),
            "goodput-only-slo-meeting-work-counts"
        );
        assert_eq!(
            heading_anchor("Little's Law sizes the fleet"),
            "littles-law-sizes-the-fleet"
        );
    }
}
