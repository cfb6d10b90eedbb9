//! Histogram column and plane labels as Paraver writes them (`api/labelconstructor.cpp`):
//! `[lo..hi)` ranges with `,` thousands separators, or the value's name for discrete
//! columns (a state, an event value's `.pcf` label, an object).

use crate::cfg::{Level, TimeUnit};
use crate::histogram::Bins;
use crate::number::grouped;
use crate::window::{Engine, ValueKind, WindowInfo};

/// The label of column `c` of `bins` of window `w`.
pub fn column(engine: &Engine, w: &WindowInfo, bins: &Bins, c: usize, short: bool) -> String {
    let lo = c as f64 * bins.delta + bins.min;
    if bins.min.fract() != 0.0 || bins.delta != 1.0 {
        let hi = c as f64 * bins.delta + bins.min + bins.delta;
        return if hi >= bins.max {
            format!("[{}..{}]", grouped(lo, 2), grouped(bins.max, 2))
        } else {
            format!("[{}..{})", grouped(lo, 2), grouped(hi, 2))
        };
    }
    let label = semantic(engine, w, lo);
    if short && matches!(w.kind, ValueKind::EventValue(_)) {
        shorten(&label)
    } else {
        label
    }
}

/// The label of plane `p` (same rules as columns, for the third window).
pub fn plane(engine: &Engine, w: &WindowInfo, bins: &Bins, p: usize) -> String {
    column(engine, w, bins, p, true)
}

/// Removes the text from the first `[` to the last `]` (Paraver's short labels).
fn shorten(label: &str) -> String {
    match (label.find('['), label.rfind(']')) {
        (Some(a), Some(b)) if a < b => format!("{}{}", &label[..a], &label[b + 1..]),
        _ => label.to_string(),
    }
}

/// A value as a number: no decimals when integral, else 2, with thousands separators.
fn number(v: f64) -> String {
    if v.fract() == 0.0 {
        grouped(v, 0)
    } else {
        grouped(v, 2)
    }
}

/// Paraver's `semanticLabel`: the name of value `v` of window `w`.
pub fn semantic(engine: &Engine, w: &WindowInfo, v: f64) -> String {
    let pcf = engine.pcf;
    match &w.kind {
        ValueKind::Number => number(v),
        ValueKind::State => pcf
            .and_then(|p| p.states.get(&(v as u64)))
            .cloned()
            .unwrap_or_else(|| format!("Unknown state {}", number(v))),
        ValueKind::EventType => pcf
            .and_then(|p| p.event_types.get(&(v as u32)))
            .map_or_else(|| format!("type {}", number(v)), |t| t.label.clone()),
        ValueKind::EventValue(types) => {
            let value = v as i64 as u64;
            // The filter's types, or any type's when the filter names none.
            let found = pcf.and_then(|p| {
                if types.is_empty() {
                    p.event_types
                        .values()
                        .find_map(|t| t.values.get(&value).cloned())
                } else {
                    types.iter().find_map(|t| {
                        p.event_types
                            .get(t)
                            .and_then(|i| i.values.get(&value).cloned())
                    })
                }
            });
            found.unwrap_or_else(|| format!("value {}", number(v)))
        }
        ValueKind::Object(level) => match level {
            Level::Node | Level::Cpu => engine.objects.label(*level, v as usize),
            // Paraver's object orders are 16 bits wide here: 0 - 1 wraps to 65535.
            _ => engine
                .objects
                .label(*level, usize::from((v as i64 - 1) as u16)),
        },
        ValueKind::CommSize => format!("{} bytes", number(v)),
        ValueKind::Bandwidth => {
            let unit = match w.units {
                TimeUnit::Nanoseconds => "GB/sec",
                TimeUnit::Microseconds => "MB/sec",
                TimeUnit::Milliseconds => "KB/sec",
                _ => "bytes/sec",
            };
            format!("{} {unit}", number(v))
        }
        ValueKind::Time => {
            let unit = match w.units {
                TimeUnit::Nanoseconds => "ns",
                TimeUnit::Microseconds => "us",
                TimeUnit::Milliseconds => "ms",
                TimeUnit::Seconds => "s",
                TimeUnit::Minutes => "m",
                TimeUnit::Hours => "h",
                TimeUnit::Days => "d",
            };
            // `timeLabel`: the preferences' 2 decimals, integral or not (none in ns).
            if w.units == TimeUnit::Nanoseconds {
                format!("{} {unit}", grouped(v, 0))
            } else {
                format!("{} {unit}", grouped(v, 2))
            }
        }
    }
}
