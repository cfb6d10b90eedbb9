//! The eframe/egui viewer.
//!
//! - [`app`]: the window (menus, view list, legend and details, load progress, exports);
//! - [`timeline`]: the timeline widget and its interaction;
//! - [`frame`], [`view`], [`rows`], [`find`], [`cfg_view`], [`render`], [`theme`]: what is
//!   drawn, from the `prvscope-draw` crate (no GUI crate);
//! - [`scope_panel`]: the Carnival-like source and scope panel beside the timeline;
//! - [`breakdown`]: a scope's time per thread and state in windows of their own (bar charts);
//! - [`shared`]: the types the panels and windows share (below all of them);
//! - [`commands`]: the one channel from the widgets to the app;
//! - [`windows`]: the floating windows of a trace (histograms, POP, clustering), driven alike;
//! - [`jobs`]: background work on its own thread, which wakes the UI when it is done, and the
//!   thread pools its parallel parts run on (background, at a low priority; interactive);
//! - [`loader`]: loading off the UI thread (after a memory check), the embedded demo trace;
//! - [`part_dialog`]: "Open part of a trace" (a time range, some threads) with memory estimates;
//! - [`settings`]: what the viewer remembers between runs (through eframe's persistence).

pub mod app;
pub mod bench_ui;
pub mod breakdown;
pub mod capture;
pub mod cluster_window;
pub mod commands;
pub mod compare_window;
pub mod file_dialog;
pub mod histogram;
pub mod jobs;
pub mod loader;
pub mod part_dialog;
pub mod pop_window;
pub mod properties;
pub mod reports;
pub mod scope_panel;
pub mod settings;
pub mod shared;
pub mod timeline;
pub mod windows;

// What is drawn, built without a window (`prvscope-draw`), under the names the viewer had.
pub use prvscope_draw::{cfg_view, find, frame, render, rows, theme, view};

use self::app::App;
use self::loader::LoadSource;
use prvscope_store::NullOverride;

/// How the window starts, from the command line.
#[derive(Debug, Clone, Default)]
pub struct Start {
    /// The view to open (the State view, or the first with data, otherwise).
    pub view: Option<prvscope_store::signal::SignalSpec>,
    /// Its draw mode, instead of the view's default.
    pub mode: Option<prvscope_store::summary::DrawMode>,
    /// Start with View > Measure frame rate on.
    pub measure_frame_rate: bool,
    /// Measure a fixed interaction, print its figures as JSON and exit (see [`bench_ui`]).
    pub bench_ui: bool,
    pub renderer: Renderer,
    /// More traces to open after the first, each shown as a timeline window under it in one
    /// synchronize group (`prvscope A B ...`).
    pub also: Vec<std::path::PathBuf>,
}

/// How the window is painted. Both draw the same picture; without a GPU (software
/// rasterizers: remote X, VNC, login nodes) OpenGL is several times faster: on the embedded demo
/// under Xvfb, 45 ms from frame to frame against 279 ms for wgpu on Vulkan (see README).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Renderer {
    /// OpenGL (`egui_glow`).
    #[default]
    Glow,
    /// wgpu (Vulkan, or OpenGL where Vulkan is missing).
    Wgpu,
}

impl Renderer {
    fn name(self) -> &'static str {
        match self {
            Renderer::Glow => "glow",
            Renderer::Wgpu => "wgpu",
        }
    }
}

/// Opens the viewer window on `source` and runs until it is closed.
pub fn run(
    source: LoadSource,
    null: NullOverride,
    start: Start,
    request: self::loader::LoadRequest,
) -> anyhow::Result<()> {
    // --bench-ui times the load and the first frame from here: the window's creation counts.
    let launched = std::time::Instant::now();
    let Start {
        view,
        mode,
        measure_frame_rate,
        bench_ui,
        renderer,
        also,
    } = start;
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_inner_size([1400.0, 800.0])
            .with_title("prvscope")
            .with_drag_and_drop(true),
        renderer: match renderer {
            Renderer::Glow => eframe::Renderer::Glow,
            Renderer::Wgpu => eframe::Renderer::Wgpu,
        },
        ..Default::default()
    };
    let shown = eframe::run_native(
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
            app.opening.start_view = view;
            app.opening.start_mode = mode;
            app.set_measure_rate(measure_frame_rate);
            app.open_also(also);
            if bench_ui {
                return Ok(Box::new(self::bench_ui::BenchUi::new(app, launched)));
            }
            Ok(Box::new(app))
        }),
    )
    .map_err(|e| {
        let other = match renderer {
            Renderer::Glow => Renderer::Wgpu,
            Renderer::Wgpu => Renderer::Glow,
        };
        anyhow::anyhow!(
            "could not open the viewer window with the {} renderer: {e} (try --renderer {})",
            renderer.name(),
            other.name()
        )
    });
    // The window is closed: the store cache's write, if one is under way, finishes first.
    if !jobs::wait_for_lingering(std::time::Duration::ZERO) {
        eprintln!("prvscope: finishing the store cache's write…");
        jobs::wait_for_lingering(std::time::Duration::from_mins(10));
    }
    shown
}
