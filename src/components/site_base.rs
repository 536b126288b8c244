//! Where the site lives. The site is static and may be copied under any sub-path, so its base is read at run time
//! from the document's base URL: every page below the root carries a `<base href>` back to it (`goodput-pages`).

use leptos::prelude::*;

/// Where the site lives, as a path without a trailing slash: `""` at a host's root, `"/course"` under a sub-path.
/// Provided to the page's islands through context.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SiteBase(pub String);

impl SiteBase {
    /// The base of this document, from `document.baseURI`: the folder of the page, or what its `<base>` says.
    pub fn from_document() -> SiteBase {
        let base_uri = document().base_uri().ok().flatten().unwrap_or_default();
        let pathname = web_sys::Url::new(&base_uri)
            .map(|url| url.pathname())
            .unwrap_or_default();
        let folder = &pathname[..pathname.rfind('/').unwrap_or(0)];
        SiteBase(folder.to_string())
    }

    /// An absolute href for a site path such as `"/lessons/x/"`.
    pub fn href(&self, site_path: &str) -> String {
        format!("{}{}", self.0, site_path)
    }
}

/// The page's base, or the document's when none was provided.
pub fn use_site_base() -> SiteBase {
    use_context::<SiteBase>().unwrap_or_else(SiteBase::from_document)
}
