//! A viewer's view written as a Paraver cfg ("Save view as Paraver cfg"): one timeline window
//! that Paraver and paramedir compute as the view shows it.
//!
//! - the State view is `State As Is`; an event view is `Last Evt Val` of its types (the last
//!   value of any of them, as the view reads them);
//! - thread rows are a thread-level window; CPU rows a CPU-level window, whose `Active Thd`
//!   gives each CPU the value of the thread running on it;
//! - the visible window is the cfg's time range (relative to the trace's end, as Paraver
//!   writes it), its draw mode and colour mode the view's.

use crate::cfg::Level;
use std::fmt::Write as _;

/// What the view reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ViewKind {
    States,
    /// The last value of any of these event types.
    Events(Vec<u32>),
}

/// A view to write.
#[derive(Debug, Clone, PartialEq)]
pub struct View {
    pub name: String,
    pub kind: ViewKind,
    /// The rows: threads, or CPUs (a level above them is written as the finest level of its
    /// model: the caller says so to the user).
    pub level: Level,
    /// The visible window, in ticks, and the trace's end.
    pub window: (u64, u64),
    pub end_time: u64,
    /// Paraver's draw mode (`draw_maximum`, `draw_last`, ...).
    pub draw_mode: &'static str,
    /// Drawn on a gradient (else a colour per value).
    pub gradient: bool,
}

/// The cfg text of `view`.
pub fn view_cfg(view: &View) -> String {
    let end = view.end_time.max(1) as f64;
    let rel = |t: u64| t as f64 / end;
    let (function, filter) = match &view.kind {
        ViewKind::States => ("State As Is", None),
        ViewKind::Events(types) => ("Last Evt Val", Some(types)),
    };
    let level = if view.level.is_resource() {
        Level::Cpu
    } else {
        Level::Thread
    }
    .word();
    let mut s = String::from("#ParaverCFG\nConfigFile.Version: 3.4\nConfigFile.NumWindows: 1\n\n");
    let name = view.name.replace(['\n', '\r'], " ");
    let _ = write!(
        s,
        "< NEW DISPLAYING WINDOW {name} >\n\
         window_name {name}\n\
         window_type single\n\
         window_id 1\n\
         window_units Nanoseconds\n\
         window_level {level}\n\
         window_scale_relative {:.12}\n\
         window_begin_time_relative {:.12}\n\
         window_end_time_relative {:.12}\n\
         window_object appl {{ 1, {{ All }} }}\n\
         window_noncolor_mode true\n\
         window_color_mode {}\n\
         window_drawmode {}\n\
         window_drawmode_rows {}\n\
         window_selected_functions {{ 14, {{ {{cpu, Active Thd}}, {{appl, Adding}}, \
         {{task, Adding}}, {{thread, {function}}}, {{node, Adding}}, {{system, Adding}}, \
         {{workload, Adding}}, {{from_obj, All}}, {{to_obj, All}}, {{tag_msg, All}}, \
         {{size_msg, All}}, {{bw_msg, All}}, {{evt_type, {}}}, {{evt_value, All}} }} }}\n\
         window_compose_functions {{ 9, {{ {{compose_cpu, As Is}}, {{compose_appl, As Is}}, \
         {{compose_task, As Is}}, {{compose_thread, As Is}}, {{compose_node, As Is}}, \
         {{compose_system, As Is}}, {{compose_workload, As Is}}, {{topcompose1, As Is}}, \
         {{topcompose2, As Is}} }} }}\n",
        rel(view.window.1.saturating_sub(view.window.0)),
        rel(view.window.0),
        rel(view.window.1),
        if view.gradient {
            "window_in_gradient_mode"
        } else {
            "window_in_code_mode"
        },
        view.draw_mode,
        view.draw_mode,
        if filter.is_some() { "=" } else { "All" },
    );
    if let Some(types) = filter {
        let list: Vec<String> = types.iter().map(u32::to_string).collect();
        let _ = writeln!(
            s,
            "window_filter_module evt_type {} {}",
            types.len(),
            list.join(" ")
        );
    }
    s
}
