//! The course page's entry point: Trunk builds this binary for wasm32, and the pre-rendered page loads it to bring
//! its interactive parts to life.
//!
//! The page's split points are here, in the binary and not the library: a `#[wasm_split]` point exports a symbol,
//! which every wasm binary linking the library (the workers too) would export, with the code behind it. The build
//! (tools/split-page.mjs) moves what only one point reaches into a module fetched on demand
//! (`goodput::components::on_demand` says how the page uses them). A new widget is one more point and one more arm.

#[cfg(target_arch = "wasm32")]
fn main() {
    goodput::components::on_demand::register(&split_points::POINTS);
    goodput::page_errors::install_panic_banner();
    goodput::islands::start();
    goodput::offline::register_service_worker();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!(
        "goodput: the course page is a WebAssembly app; run `make serve` to open it in a browser"
    );
    std::process::exit(2);
}

#[cfg(target_arch = "wasm32")]
mod split_points {
    use goodput::components::lesson::predict_chart::{self, ChartArgs, ChartParts};
    use goodput::components::on_demand::{ready_now, Loading, OnDemand, SplitPoints};
    use goodput::components::widgets::YourServerArgs;
    use goodput::components::{present, widgets};
    use goodput::lesson::island_markup::Module;
    use goodput::lesson::{WidgetEmbed, WidgetName};
    use leptos::prelude::AnyView;
    use leptos::wasm_split::{wasm_split, SplitLoaderError};
    use web_sys::{Element, UrlSearchParams};

    pub static POINTS: SplitPoints = SplitPoints {
        load,
        widget,
        your_server: |args| ready_now(your_server(args)),
        chart_parts: |args| ready_now(chart_parts(args)),
        present: |article, query| ready_now(presentation(article, query)),
    };

    fn load(code: OnDemand) -> Loading {
        match code.module() {
            Module::KneeLab => Box::pin(load_knee_lab()),
            Module::Sizer => Box::pin(load_sizer()),
            Module::MetricsReader => Box::pin(load_metrics_reader()),
            Module::BatchTimeline => Box::pin(load_batch_timeline()),
            Module::Fleet => Box::pin(load_fleet()),
            Module::YourServer => Box::pin(load_your_server()),
            Module::PredictChart => Box::pin(load_predict_chart()),
            Module::Presentation => Box::pin(load_presentation()),
        }
    }

    fn widget(widget: &'static WidgetEmbed, id: String) -> Option<AnyView> {
        use widgets::LabVariant::{Full, GoodputOnly};
        match widget.name {
            WidgetName::KneeLab => ready_now(knee_lab(widget, id, Full)),
            WidgetName::GoodputChart => ready_now(knee_lab(widget, id, GoodputOnly)),
            WidgetName::LittlesLawSizer => ready_now(sizer(widget, id)),
            WidgetName::MetricsReader => ready_now(metrics_reader(widget, id)),
            WidgetName::BatchTimeline => ready_now(batch_timeline(widget, id)),
            WidgetName::FleetDay => ready_now(fleet(widget, id)),
        }
    }

    #[wasm_split(knee_lab, wasm_split_path = ::leptos::wasm_split, fallible, preload(load_knee_lab))]
    fn knee_lab(
        widget: &'static WidgetEmbed,
        id: String,
        variant: widgets::LabVariant,
    ) -> Result<AnyView, SplitLoaderError> {
        Ok(widgets::knee_lab_view(widget, id, variant))
    }

    #[wasm_split(sizer, wasm_split_path = ::leptos::wasm_split, fallible, preload(load_sizer))]
    fn sizer(widget: &'static WidgetEmbed, id: String) -> Result<AnyView, SplitLoaderError> {
        Ok(widgets::sizer_view(widget, id))
    }

    #[wasm_split(metrics_reader, wasm_split_path = ::leptos::wasm_split, fallible, preload(load_metrics_reader))]
    fn metrics_reader(
        widget: &'static WidgetEmbed,
        id: String,
    ) -> Result<AnyView, SplitLoaderError> {
        Ok(widgets::metrics_reader_view(widget, id))
    }

    #[wasm_split(batch_timeline, wasm_split_path = ::leptos::wasm_split, fallible, preload(load_batch_timeline))]
    fn batch_timeline(
        widget: &'static WidgetEmbed,
        id: String,
    ) -> Result<AnyView, SplitLoaderError> {
        Ok(widgets::batch_timeline_view(widget, id))
    }

    #[wasm_split(fleet, wasm_split_path = ::leptos::wasm_split, fallible, preload(load_fleet))]
    fn fleet(widget: &'static WidgetEmbed, id: String) -> Result<AnyView, SplitLoaderError> {
        Ok(widgets::fleet_view(widget, id))
    }

    #[wasm_split(your_server, wasm_split_path = ::leptos::wasm_split, fallible, preload(load_your_server))]
    fn your_server(args: YourServerArgs) -> Result<(), SplitLoaderError> {
        widgets::your_server_panel(args);
        Ok(())
    }

    #[wasm_split(predict_chart, wasm_split_path = ::leptos::wasm_split, fallible, preload(load_predict_chart))]
    fn chart_parts(args: ChartArgs) -> Result<ChartParts, SplitLoaderError> {
        Ok(predict_chart::chart_parts(args))
    }

    #[wasm_split(presentation, wasm_split_path = ::leptos::wasm_split, fallible, preload(load_presentation))]
    fn presentation(
        article: Element,
        query: Option<UrlSearchParams>,
    ) -> Result<(), SplitLoaderError> {
        present::present(article, query);
        Ok(())
    }
}
