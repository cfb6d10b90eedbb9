//! Whether Paraver reads an analyzer of a cfg at all: its values, and its windows.

use crate::cfg::{AnalyzerCfg, Cfg};

/// Can Paraver read every value of the analyzer? A number that is not one (a template's
/// `@histlo@`) or a switch that is not `True`/`False` makes it drop the analyzer.
pub fn readable(a: &AnalyzerCfg) -> bool {
    const NUMBERS: [&str; 10] = [
        "Analyzer2D.ControlWindow",
        "Analyzer2D.DataWindow",
        "Analyzer2D.3D_ControlWindow",
        "Analyzer2D.Minimum",
        "Analyzer2D.Maximum",
        "Analyzer2D.Delta",
        "Analyzer2D.3D_Minimum",
        "Analyzer2D.3D_Maximum",
        "Analyzer2D.3D_Delta",
        "Analyzer2D.NumColumns",
    ];
    const SWITCHES: [&str; 6] = [
        "Analyzer2D.HideCols",
        "Analyzer2D.ComputeYScale",
        "Analyzer2D.ComputeYScaleZero",
        "Analyzer2D.SortCols",
        "Analyzer2D.SortReverse",
        "Analyzer3D.ComputeYScale",
    ];
    a.keys.iter().all(|(k, v)| {
        if NUMBERS.contains(&k.as_str()) {
            v.trim().parse::<f64>().is_ok()
        } else if SWITCHES.contains(&k.as_str()) {
            matches!(v.trim(), "True" | "False")
        } else {
            true
        }
    })
}

/// Does Paraver accept the analyzer's windows (`LoadedWindows::validDataWindow`)? The data
/// window must be the control window, or at its level, or at a coarser level of the same
/// model (process or resource), and neither may be built from the other; the same holds
/// for the data and the 3D control window. Otherwise Paraver drops the analyzer (and stops
/// reading the cfg there); `None` when accepted, else why not.
pub fn invalid_windows(cfg: &Cfg, a: &AnalyzerCfg) -> Option<String> {
    use crate::cfg::{Level, WindowCfg};
    let win = |key: &str| {
        a.number(key)
            .and_then(|i| cfg.windows.get((i as usize).wrapping_sub(1)))
    };
    let data = win("Analyzer2D.DataWindow")?;
    let process = |l: Level| l <= Level::Thread;
    fn built_from(cfg: &Cfg, which: &WindowCfg, of: &WindowCfg, depth: usize) -> bool {
        if which.id == of.id {
            return true;
        }
        depth < 64
            && of.derived.as_ref().is_some_and(|d| {
                d.parents
                    .iter()
                    .filter_map(|&id| cfg.window(id))
                    .any(|p| built_from(cfg, which, p, depth + 1))
            })
    }
    for key in ["Analyzer2D.ControlWindow", "Analyzer2D.3D_ControlWindow"] {
        let Some(control) = win(key) else {
            continue;
        };
        if data.id == control.id {
            continue;
        }
        let level_ok = data.level == control.level
            || (process(data.level) == process(control.level) && data.level < control.level);
        if !level_ok {
            return Some(format!(
                "its data window `{}` ({} level) is finer than its control window `{}` ({} \
                 level); Paraver drops such an analyzer",
                data.name, data.level, control.name, control.level
            ));
        }
        if built_from(cfg, data, control, 0) || built_from(cfg, control, data, 0) {
            return Some(format!(
                "its data window `{}` and control window `{}` are built one from the other; \
                 Paraver drops such an analyzer",
                data.name, control.name
            ));
        }
    }
    None
}
