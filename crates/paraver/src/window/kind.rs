//! What a window's values are (states, event values, times, sizes...) and how Paraver
//! colours them, from its cfg.

use std::collections::BTreeSet;

use super::{ValueKind, WindowInfo};
use crate::cfg::{Level, WindowCfg};
use crate::filter::Filter;
use crate::thread::ThreadFn;

/// The kind of values a window shows (for labels), Paraver's semantic info type: that of
/// the first function, from the top compose functions down to the thread function, that
/// does not keep its input's type.
pub(super) fn value_kind(
    w: &WindowCfg,
    f: &ThreadFn,
    filter: &Filter,
    level: Level,
    present: &BTreeSet<u32>,
) -> ValueKind {
    #[allow(clippy::enum_glob_use)]
    use ThreadFn::*;
    if let Some(k) = compose_kind(w, level, true) {
        return k;
    }
    match f {
        StateAsIs | GivenState(_) | Useful => ValueKind::State,
        LastEventType | NextEventType => ValueKind::EventType,
        LastEventValue | NextEventValue | GivenEventValue(_) => {
            // Paraver's `getValidEvents`: the trace's types the filter's type list accepts.
            let types = if filter.types.values.is_empty() {
                Vec::new()
            } else {
                present
                    .iter()
                    .copied()
                    .filter(|&t| {
                        filter
                            .types
                            .function
                            .pass(&filter.types.values, f64::from(t))
                    })
                    .collect()
            };
            ValueKind::EventValue(types)
        }
        CommPartner | CommRecvPartner | ThreadId => ValueKind::Object(Level::Thread),
        ApplicationId => ValueKind::Object(Level::Appl),
        TaskId => ValueKind::Object(Level::Task),
        IntervalBetweenEvents | StateRecordDuration(_) | LastSendDuration | NextRecvDuration => {
            ValueKind::Time
        }
        CommSize | EventBytes | EventSentBytes | LastSendSize | NumberReceiveBytes
        | NumberSendBytes | RecvBytesInTransit | RecvNegativeBytes | SendBytesInTransit => {
            ValueKind::CommSize
        }
        SendBandWidth(_) | RecvBandWidth(_) => ValueKind::Bandwidth,
        _ => ValueKind::Number,
    }
}

/// The kind set by the compose functions (and, with `level_functions`, the level
/// functions) of `w` from the top down to `level`, if one of them does not keep its input's.
pub(super) fn compose_kind(
    w: &WindowCfg,
    level: Level,
    level_functions: bool,
) -> Option<ValueKind> {
    let mut slots: Vec<(String, bool)> =
        vec![("topcompose1".into(), true), ("topcompose2".into(), true)];
    for (l, name) in [
        (Level::Workload, "workload"),
        (Level::Appl, "appl"),
        (Level::Task, "task"),
    ] {
        if level <= l {
            slots.push((format!("compose_{name}"), true));
            if level_functions {
                slots.push((name.into(), false));
            }
        }
    }
    slots.push(("compose_thread".into(), true));
    for (slot, compose) in &slots {
        let Some(name) = w.function(slot) else {
            continue;
        };
        if *compose {
            match name {
                "As Is" | "Abs" | "Ceil" | "Floor" | "Is Equal" | "Join Bursts" | "Round"
                | "Select Range" | "Select Range [)" | "Stacked Val" | "Timer" | "Translate" => {}
                "Begin Time" | "Burst Time" | "End Time" => return Some(ValueKind::Time),
                _ => return Some(ValueKind::Number),
            }
        } else if !matches!(
            name,
            "Changed value" | "Maximum" | "Minimum" | "Mode" | "Thread i"
        ) {
            return Some(ValueKind::Number);
        }
    }
    None
}

/// Paraver windows are code-coloured unless the cfg says otherwise.
/// Paraver reads `window_noncolor_mode false` as its function-line mode (the "non colour"
/// flag is inverted there), which then ignores the colour mode.
fn function_line(w: &WindowCfg) -> bool {
    w.raw("window_noncolor_mode").map(str::trim) == Some("false")
}

fn code_colour(w: &WindowCfg) -> bool {
    match w.raw("window_color_mode") {
        None => true,
        Some(m) => !matches!(
            m.trim(),
            "window_in_gradient_mode"
                | "window_in_null_gradient_mode"
                | "window_in_alternative_gradient_mode"
                | "window_in_punctual_mode"
                | "window_in_fused_lines_mode"
        ),
    }
}

impl WindowInfo {
    /// The facts of window `w` computed at `level`, its values of `kind`, over `range`.
    pub(super) fn of(
        w: &WindowCfg,
        level: Level,
        kind: ValueKind,
        range: (u64, u64),
    ) -> WindowInfo {
        WindowInfo {
            name: w.name.clone(),
            level,
            units: w.units,
            kind,
            code_colour: code_colour(w),
            function_line: function_line(w),
            begin_time: range.0,
            end_time: range.1,
        }
    }
}
