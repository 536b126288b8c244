//! `goodput-pages SITE_DIR`: writes the course's static pages into a built site (Trunk's post-build hook runs it,
//! see `tools/post-build.sh`). `SITE_DIR/index.html`, as Trunk wrote it, is the template of every page.

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    use goodput_pages::{build_site, write_site, PageTemplate};
    use std::path::PathBuf;

    let mut args = std::env::args().skip(1);
    let (Some(site_dir), None) = (args.next(), args.next()) else {
        eprintln!("usage: goodput-pages SITE_DIR   (SITE_DIR/index.html is Trunk's output, the template of every page)");
        std::process::exit(2);
    };
    let site_dir = PathBuf::from(site_dir);
    let result = std::fs::read_to_string(site_dir.join("index.html"))
        .map_err(|error| format!("{}: {error}", site_dir.join("index.html").display()))
        .and_then(|html| PageTemplate::parse(&html).map_err(|error| error.to_string()))
        .and_then(|template| {
            let site = build_site(goodput::lesson::catalog()).map_err(|error| error.to_string())?;
            write_site(&site_dir, &template, &site).map_err(|error| error.to_string())?;
            Ok(site)
        });
    match result {
        Ok(site) => eprintln!(
            "goodput-pages: wrote {} pages and {} pictures into {}",
            site.pages.len(),
            site.assets.len(),
            site_dir.display()
        ),
        Err(error) => {
            eprintln!("goodput-pages: {error}");
            std::process::exit(1);
        }
    }
}

/// The pages are written natively at build time; the browser build has nothing to do here.
#[cfg(target_arch = "wasm32")]
fn main() {}
