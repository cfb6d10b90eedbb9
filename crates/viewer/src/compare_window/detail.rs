//! A scope clicked in the Compare window: its time on each thread of A and of B, and the
//! distribution of its durations in both (Tracy's comparison, for every scope). Each instance
//! is the scope from an entry to its exit (`prvscope_analysis::scopes::scope_instances`), so
//! the durations of a thread add up to the scope's time there, the table's figure.

use egui::{Color32, Ui};
use egui_plot::{Bar, BarChart, Legend, Plot};
use prvscope_store::Trace;

/// A's and B's colours in the charts.
pub const A_COLOR: Color32 = Color32::from_rgb(90, 150, 230);
pub const B_COLOR: Color32 = Color32::from_rgb(235, 150, 60);

/// One scope's instances in A and B.
pub struct Detail {
    /// (type, name), as the table's row.
    pub scope: (String, String),
    /// Per thread of each run: its instances (begin, end), in ticks.
    pub a: Vec<Vec<(u64, u64)>>,
    pub b: Vec<Vec<(u64, u64)>>,
    /// Nanoseconds per tick of each run.
    pub ns: (u64, u64),
    /// Thread names of each run.
    pub names: (Vec<String>, Vec<String>),
}

/// The bin of a duration of `ns` nanoseconds: `k` covers `[2^k, 2^(k+1))` ns (0 and 1 ns
/// in bin 0).
pub fn bin(ns: u64) -> u32 {
    ns.max(1).ilog2()
}

/// Per bin `k` (from the lowest to the highest any duration falls in), how many of
/// `durations` (ns) fall in it.
pub fn distribution(durations: &[u64]) -> std::collections::BTreeMap<u32, u64> {
    let mut m = std::collections::BTreeMap::new();
    for &d in durations {
        *m.entry(bin(d)).or_insert(0u64) += 1;
    }
    m
}

/// A duration written for an axis: `2^k` ns in its unit.
fn bin_label(k: f64) -> String {
    let ns = 2f64.powf(k);
    if ns >= 1e9 {
        format!("{:.3} s", ns / 1e9)
    } else if ns >= 1e6 {
        format!("{:.3} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.3} us", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

impl Detail {
    /// The instances of `scope` in both runs (off the UI thread).
    pub fn of(
        (a, b): (&Trace, &Trace),
        c: &prvscope_compare::Comparison,
        scope: (String, String),
    ) -> Result<Detail, String> {
        let key = (scope.0.as_str(), scope.1.as_str());
        let ia = prvscope_compare::instances(a, &c.a, key)?;
        let ib = prvscope_compare::instances(b, &c.b, key)?;
        let names = |t: &Trace| {
            (0..t.store.thread_count())
                .map(|r| t.thread_name(r))
                .collect()
        };
        Ok(Detail {
            scope,
            a: ia,
            b: ib,
            ns: (
                a.header.time_unit.ns_per_tick(),
                b.header.time_unit.ns_per_tick(),
            ),
            names: (names(a), names(b)),
        })
    }

    /// Every instance's duration in ns, of A (`of_a`) or B.
    pub fn durations(&self, of_a: bool) -> Vec<u64> {
        let (per, ns) = if of_a {
            (&self.a, self.ns.0)
        } else {
            (&self.b, self.ns.1)
        };
        per.iter().flatten().map(|&(b, e)| (e - b) * ns).collect()
    }

    /// The time of each thread in the scope, in ns, of A (`of_a`) or B.
    pub fn per_thread(&self, of_a: bool) -> Vec<u64> {
        let (per, ns) = if of_a {
            (&self.a, self.ns.0)
        } else {
            (&self.b, self.ns.1)
        };
        per.iter()
            .map(|t| t.iter().map(|&(b, e)| (e - b) * ns).sum())
            .collect()
    }

    /// The two charts, side by side.
    pub fn ui(&self, ui: &mut Ui) {
        let (na, nb) = (self.durations(true).len(), self.durations(false).len());
        ui.label(format!(
            "{} ({}): {na} instances in A, {nb} in B",
            self.scope.1, self.scope.0
        ));
        let height = (ui.available_height() - 20.0).clamp(120.0, 260.0);
        ui.columns(2, |cols| {
            // Per thread: A's threads, then B's, a bar each (ms).
            let (pa, pb) = (self.per_thread(true), self.per_thread(false));
            let bars = |v: &[u64], names: &[String], from: usize| -> Vec<Bar> {
                v.iter()
                    .enumerate()
                    .map(|(i, &ns)| {
                        Bar::new((from + i) as f64, ns as f64 / 1e6)
                            .width(0.8)
                            .name(names.get(i).cloned().unwrap_or_default())
                    })
                    .collect()
            };
            Plot::new("compare per thread")
                .height(height)
                .legend(Legend::default())
                .y_axis_label("ms")
                .show(&mut cols[0], |p| {
                    p.bar_chart(BarChart::new("A", bars(&pa, &self.names.0, 0)).color(A_COLOR));
                    p.bar_chart(
                        BarChart::new("B", bars(&pb, &self.names.1, pa.len() + 1)).color(B_COLOR),
                    );
                });
            // Durations: instances per power-of-two bin, A's and B's side by side.
            let (da, db) = (
                distribution(&self.durations(true)),
                distribution(&self.durations(false)),
            );
            let side = |m: &std::collections::BTreeMap<u32, u64>, dx: f64| -> Vec<Bar> {
                m.iter()
                    .map(|(&k, &n)| {
                        Bar::new(f64::from(k) + dx, n as f64)
                            .width(0.4)
                            .name(format!(
                                "{} to {}",
                                bin_label(f64::from(k)),
                                bin_label(f64::from(k + 1))
                            ))
                    })
                    .collect()
            };
            Plot::new("compare durations")
                .height(height)
                .legend(Legend::default())
                .y_axis_label("instances")
                .x_axis_formatter(|mark, _| {
                    if (mark.value - mark.value.round()).abs() < 1e-6 {
                        bin_label(mark.value)
                    } else {
                        String::new()
                    }
                })
                .show(&mut cols[1], |p| {
                    p.bar_chart(BarChart::new("A", side(&da, -0.2)).color(A_COLOR));
                    p.bar_chart(BarChart::new("B", side(&db, 0.2)).color(B_COLOR));
                });
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_fall_in_power_of_two_bins() {
        assert_eq!((bin(0), bin(1), bin(2), bin(3), bin(4)), (0, 0, 1, 1, 2));
        assert_eq!(bin(1_000_000), 19, "1 ms is in [2^19, 2^20) ns");
        let d = distribution(&[1, 2, 3, 1024, 1500]);
        assert_eq!(d.into_iter().collect::<Vec<_>>(), [(0, 1), (1, 2), (10, 2)]);
        assert_eq!(bin_label(10.0), "1.024 us");
    }
}
