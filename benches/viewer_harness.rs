//! The viewer of a benchmark: a headless window (`egui_kittest`) on a trace, loaded and with
//! its scope analysis done, as a user finds it once the trace is open.

use std::path::PathBuf;

use egui_kittest::Harness;
use prvscope_viewer::app::App;
use prvscope_viewer::loader::{LoadRequest, LoadSource};
use prvscope_viewer::settings::Settings;

/// A `width` x `height` window on `path` (no memory check), after its load and scope
/// analysis finished.
pub fn opened(path: PathBuf, width: f32, height: f32) -> Harness<'static, App> {
    let mut h = Harness::builder()
        .with_size(egui::vec2(width, height))
        .build_eframe(move |cc| {
            App::with_request(
                &cc.egui_ctx,
                LoadSource::File(path),
                prvscope_store::NullOverride::Auto,
                Settings::default(),
                LoadRequest {
                    skip_memory_check: true,
                    ..LoadRequest::default()
                },
            )
        });
    let ctx = h.ctx.clone();
    h.state_mut().wait_for_load(&ctx);
    h.state_mut().loaded_mut().expect("loaded").scopes.wait();
    h
}
