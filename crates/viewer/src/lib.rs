//! The eframe/egui viewer.
//!
//! - [`app`]: the window (menus, view list, legend and details, load progress, exports);
//! - [`timeline`]: the timeline widget and its interaction;
//! - [`frame`]: building one frame of the timeline from per-pixel summaries (no GPU, benched);
//! - [`view`]: what a view reads and how its values become colours and labels;
//! - [`rows`]: rows grouped by application and task, collapsible;
//! - [`scope_panel`]: the Carnival-like source and scope panel beside the timeline;
//! - [`breakdown`]: a scope's time per thread and state in windows of their own (bar charts);
//! - [`jobs`]: background work on its own thread, which wakes the UI when it is done;
//! - [`loader`]: loading off the UI thread (after a memory check), the embedded demo trace;
//! - [`render`]: the timeline drawn headless as PNG and CSV (`prvscope render`);
//! - [`part_dialog`]: "Open part of a trace" (a time range, some threads) with memory estimates;
//! - [`settings`]: what the viewer remembers between runs (through eframe's persistence);
//! - [`theme`]: every colour.

pub mod app;
pub mod breakdown;
pub mod frame;
pub mod jobs;
pub mod loader;
pub mod part_dialog;
pub mod render;
pub mod rows;
pub mod scope_panel;
pub mod settings;
pub mod theme;
pub mod timeline;
pub mod view;

use self::app::App;
use self::loader::LoadSource;
use prvscope_store::NullOverride;

/// Opens the viewer window on `source` and runs until it is closed.
pub fn run(
    source: LoadSource,
    null: NullOverride,
    view: Option<prvscope_store::signal::SignalSpec>,
    mode: Option<prvscope_store::summary::DrawMode>,
    request: self::loader::LoadRequest,
) -> anyhow::Result<()> {
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_inner_size([1400.0, 800.0])
            .with_title("prvscope")
            .with_drag_and_drop(true),
        ..Default::default()
    };
    eframe::run_native(
        "prvscope",
        options,
        Box::new(move |cc| {
            let settings = self::settings::Settings::load(cc.storage);
            let mut app = App::with_request(&cc.egui_ctx, source, null, settings, request);
            if cc.storage.is_none() {
                // eframe found no folder it can keep settings in (none, or not writable).
                "settings will not be kept: no writable folder for them (XDG_DATA_HOME, else ~/.local/share)"
                    .clone_into(&mut app.status);
            }
            app.start_view = view;
            app.start_mode = mode;
            Ok(Box::new(app))
        }),
    )
    .map_err(|e| anyhow::anyhow!("could not open the viewer window: {e}"))
}
