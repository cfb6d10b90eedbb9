//! Paraver's 2D/3D histogram (`Analyzer2D`; `src/khistogram.cpp`,
//! `src/histogramstatistic.cpp`, `src/khistogramtotals.cpp`) and paramedir's text of it
//! (`api/textoutput.cpp`).
//!
//! Rows are the control window's objects; columns are bins of the control window's value
//! (or, for communication statistics, partner objects); 3D histograms have one plane per bin
//! of a third window's value. A *burst* is one non-empty overlap of a control interval
//! whose value falls in a column, a data interval and the analysis time range (and, in 3D, a
//! third-window interval in a plane); each statistic accumulates over a cell's bursts.

use std::sync::Arc;

use rayon::prelude::*;

use crate::bursts::{comm_table, for_each_burst};
use crate::cfg::{AnalyzerCfg, Cfg};
use crate::filter::TypesFound;
use crate::labels;
use crate::paramedir::Options;
pub use crate::table::{Histogram, PlaneTable, TOTALS};
use crate::window::{Computed, Engine, Window, WindowError};

mod cells;
mod fused;

mod check;
mod columns;
use cells::{Cells, Units};
pub use check::{invalid_windows, readable};
pub use columns::Bins;
use columns::y_scale;

/// Why a histogram cannot be computed.
#[derive(Debug, Clone, PartialEq)]
pub enum HistogramError {
    Window(WindowError),
    Unsupported(String),
}

impl From<WindowError> for HistogramError {
    fn from(e: WindowError) -> Self {
        HistogramError::Window(e)
    }
}

/// The value statistics, in Paraver's order.
const STATS: [&str; 17] = [
    "Time",
    "% Time",
    "% Time Not Zero",
    "% Window Time",
    "# Bursts",
    "% # Bursts",
    "Integral",
    "Average value",
    "Maximum",
    "Minimum",
    "Average Burst Time",
    "Stdev Burst Time",
    "Average per Burst",
    "Average value != 0",
    "Average per Burst != 0",
    "# Bursts != 0",
    "Sum bursts",
];

/// The communication statistics, in Paraver's order.
const COMM_STATS: [&str; 10] = [
    "#Sends",
    "#Receives",
    "Bytes sent",
    "Bytes received",
    "Average bytes sent",
    "Average bytes received",
    "Minimum bytes sent",
    "Minimum bytes received",
    "Maximum bytes sent",
    "Maximum bytes received",
];

/// Totals of one column (or row): Paraver's `KHistogramTotals`.
#[derive(Debug, Clone, Copy)]
struct Totals {
    total: f64,
    n: f64,
    max: f64,
    min: f64,
    squares: f64,
}

impl Default for Totals {
    fn default() -> Self {
        Totals {
            total: 0.0,
            n: 0.0,
            max: -f64::MAX,
            min: f64::MAX,
            squares: 0.0,
        }
    }
}

impl Totals {
    fn add(&mut self, x: f64) {
        self.total += x;
        self.n += 1.0;
        if x > self.max {
            self.max = x;
        }
        if x != 0.0 && x < self.min {
            self.min = x;
        }
        self.squares += x * x;
    }

    /// Total, Average, Maximum, Minimum, `StDev`, Avg/Max.
    fn rows(&self) -> [f64; 6] {
        if self.n == 0.0 {
            return [0.0, 0.0, 0.0, 0.0, 0.0, f64::NAN];
        }
        let min = if self.min == f64::MAX { 0.0 } else { self.min };
        let avg = self.total / self.n;
        let stdev = ((self.squares - self.n * (avg * avg)) / self.n)
            .abs()
            .sqrt();
        [self.total, avg, self.max, min, stdev, avg / self.max]
    }
}

/// The whole histogram, ready to print: `cells[plane][row][column]`.
pub(crate) struct Table {
    pub(crate) cells: Vec<Vec<Vec<Option<f64>>>>,
    pub(crate) columns: usize,
}

/// Runs analyzer `a` of `cfg` as paramedir does.
pub fn run<'e>(
    engine: &'e Engine<'e>,
    cfg: &Cfg,
    a: &AnalyzerCfg,
    options: &Options,
    found: &mut TypesFound,
) -> Result<Histogram, HistogramError> {
    run_timed(engine, cfg, a, options, found, &mut Vec::new())
}

/// [`run`], noting how long each phase took (the scale pass over the control window, the
/// table pass, the labels and totals).
pub fn run_timed<'e>(
    engine: &'e Engine<'e>,
    cfg: &Cfg,
    a: &AnalyzerCfg,
    options: &Options,
    found: &mut TypesFound,
    phases: &mut Vec<(&'static str, std::time::Duration)>,
) -> Result<Histogram, HistogramError> {
    run_keeping(engine, cfg, a, options, found, false, phases).map(|(h, _)| h)
}

/// [`run`], with the control window computed whole (where each object holds each value).
pub fn run_with_control<'e>(
    engine: &'e Engine<'e>,
    cfg: &Cfg,
    a: &AnalyzerCfg,
    options: &Options,
    found: &mut TypesFound,
) -> Result<(Histogram, Arc<Computed>), HistogramError> {
    let (h, control) = run_keeping(engine, cfg, a, options, found, true, &mut Vec::new())?;
    let control = control.ok_or_else(|| HistogramError::Unsupported("no control window".into()))?;
    Ok((h, control))
}

fn run_keeping<'e>(
    engine: &'e Engine<'e>,
    cfg: &Cfg,
    a: &AnalyzerCfg,
    options: &Options,
    found: &mut TypesFound,
    keep_control: bool,
    phases: &mut Vec<(&'static str, std::time::Duration)>,
) -> Result<(Histogram, Option<Arc<Computed>>), HistogramError> {
    let mut clock = std::time::Instant::now();
    let mut lap = |name: &'static str, phases: &mut Vec<_>| {
        let now = std::time::Instant::now();
        phases.push((name, now - clock));
        clock = now;
    };
    let mut window = |key: &str| -> Result<Option<Window<'e>>, HistogramError> {
        let Some(i) = a.number(key) else {
            return Ok(None);
        };
        let w = cfg
            .windows
            .get((i as usize).wrapping_sub(1))
            .ok_or_else(|| HistogramError::Unsupported(format!("{key} {i}: no such window")))?;
        Ok(Some(engine.window_kept(cfg, w, found)?))
    };
    if let Some(why) = invalid_windows(cfg, a) {
        return Err(HistogramError::Unsupported(why));
    }
    let control = window("Analyzer2D.ControlWindow")?
        .ok_or_else(|| HistogramError::Unsupported("an analyzer without control window".into()))?;
    let data_index = a.number("Analyzer2D.DataWindow");
    // `None`: the control window is its own data.
    let data = match data_index {
        Some(i) if Some(i) != a.number("Analyzer2D.ControlWindow") => {
            window("Analyzer2D.DataWindow")?
        }
        _ => None,
    };
    let extra = window("Analyzer2D.3D_ControlWindow")?;
    let stat_name = a.get("Analyzer2D.Statistic").unwrap_or("").trim();
    let comm_stat = COMM_STATS.iter().position(|s| *s == stat_name);
    let stat = STATS.iter().position(|s| *s == stat_name);
    if stat.is_none() && comm_stat.is_none() {
        return Err(HistogramError::Unsupported(format!(
            "statistic `{stat_name}`"
        )));
    }
    let trace_end = engine.end_time();
    let (hist_begin, hist_end) = match (
        options.window,
        a.get("Analyzer2D.AnalysisLimits").map(str::trim),
    ) {
        (Some((t0, t1)), _) => (t0.min(trace_end), t1.min(trace_end)),
        (None, Some("Allwindow")) => (
            control.info.begin_time,
            control.info.end_time.min(trace_end),
        ),
        _ => (0, trace_end),
    };
    let flag = |k: &str, d: bool| a.flag(k).unwrap_or(d);
    let num = |k: &str, d: f64| a.number(k).unwrap_or(d);

    // Columns.
    let compute_scale = flag("Analyzer2D.ComputeYScale", true);
    let num_columns = a.number("Analyzer2D.NumColumns");
    let mut use_fixed = flag("Analyzer2D.UseFixedDelta", false);
    if !compute_scale && num_columns.is_none() {
        use_fixed = true;
    }
    let (mut cmin, mut cmax, mut cdelta) = (
        num("Analyzer2D.Minimum", 0.0),
        num("Analyzer2D.Maximum", 1.0),
        num("Analyzer2D.Delta", 1.0),
    );
    let mut ncols = num_columns.map_or(200, |n| n as usize);
    let data_info = data.as_ref().map_or(&control.info, |d| &d.info);
    let units = Units {
        trace: engine.trace_unit,
        control: control.info.units,
        data: data_info.units,
    };
    // One walk for the scale and the table where Paraver's two give the same numbers; a
    // part of a window kept whole is read from its index instead.
    let indexed = options.window.and(control.kept().map(Arc::as_ref));
    let scanned = (compute_scale
        && !options.two_walks
        && data.is_none()
        && extra.is_none()
        && stat.is_some())
    .then(|| {
        // Kept bursts: a third of the store's records at 8 bytes each, 256 MB at most (a
        // trace that fills the memory walks its rows again rather than grow).
        let budget = (engine.source.store.counts().total() as usize * 8 / 3).min(256 << 20);
        fused::scan(
            &control,
            indexed,
            (hist_begin, hist_end),
            stat.unwrap_or(0),
            units,
            budget,
        )
    });
    if scanned.is_some() && indexed.is_some() {
        lap("index", phases);
    }
    if compute_scale {
        let (mut lo, hi, zero) = match &scanned {
            Some(rows) => columns::combine(rows.iter().map(|r| r.scale)),
            None => y_scale(&control, hist_begin, hist_end),
        };
        if flag("Analyzer2D.ComputeYScaleZero", false) && zero && lo > 0.0 {
            lo = 0.0;
        }
        cmin = lo;
        cmax = hi + (hi - lo) * 0.05;
        if !use_fixed {
            if hi - lo == 0.0 {
                cdelta = 1.0;
                use_fixed = true;
            } else if control.info.code_colour && hi - lo <= 10000.0 {
                cmax = (hi + (hi - lo) * 0.05).floor();
                cdelta = 1.0;
                use_fixed = true;
            } else {
                ncols = 200;
                cdelta = (cmax - lo) / 200.0;
            }
        }
    }
    let bins = if use_fixed {
        Bins::fixed(cmin, cmax, cdelta)
    } else {
        Bins::columns(cmin, cmax, ncols.max(1))
    };
    let planes = extra.as_ref().map(|x| {
        let compute = flag("Analyzer3D.ComputeYScale", true);
        let (mut lo, mut hi, mut delta) = (
            num("Analyzer2D.3D_Minimum", 0.0),
            num("Analyzer2D.3D_Maximum", 1.0),
            num("Analyzer2D.3D_Delta", 1.0),
        );
        if compute {
            let (l, h, _) = y_scale(x, hist_begin, hist_end);
            (lo, hi) = (l, h);
            delta = if h - l == 0.0 || x.info.code_colour {
                1.0
            } else {
                (h - l) / 200.0
            };
        }
        Bins::fixed(lo, hi, delta)
    });
    lap("scale", phases);
    let n_planes = planes.map_or(1, |p| p.n);
    let all_rows = control.rows();
    let objects = engine.objects;

    // `Analyzer2D.Objects`: when the analyzer computes its scale (`ComputeYScale: True`)
    // paramedir computes and prints only the listed rows (0-based, in the order given, up to
    // the first one the trace does not have); otherwise it computes every row, and labels
    // them as `labels_past_the_list` says. Found by running paramedir on edited cfgs.
    let objects_list = a.get("Analyzer2D.Objects").map(str::trim);
    let row_objects: Vec<usize> = match objects_list {
        Some(list) if compute_scale && list != "All" => {
            let listed: Option<Vec<usize>> =
                list.split(',').map(|x| x.trim().parse().ok()).collect();
            match listed {
                Some(listed) => listed.into_iter().take_while(|&r| r < all_rows).collect(),
                None => (0..all_rows).collect(),
            }
        }
        _ => (0..all_rows).collect(),
    };

    let table = if let Some(cs) = comm_stat {
        comm_table(
            engine,
            &control,
            extra.as_ref(),
            planes,
            cs,
            (hist_begin, hist_end),
            &row_objects,
        )
    } else {
        let stat = stat.unwrap_or(0);
        let span = (hist_end - hist_begin) as f64;
        let computed: Vec<Vec<Vec<Option<f64>>>> = row_objects
            .par_iter()
            .map(|&r| {
                if let Some(row) = scanned
                    .as_ref()
                    .and_then(|rows| rows.get(r)?.table(&bins, stat, units, span))
                {
                    return vec![row];
                }
                let mut acc = Cells::new(n_planes, bins.n);
                let mut row_total = vec![0.0; n_planes];
                let mut row_nz = vec![0.0; n_planes];
                // Whether a non-zero control value was met in the plane (Paraver's row
                // total cell exists): a cell of a plane without one is 0, not 0/0.
                let mut row_nz_seen = vec![false; n_planes];
                let mut row_cnt = vec![0.0; n_planes];
                let level = control.info.level;
                let data_rows = match &data {
                    Some(d) => objects.children(level, r, d.info.level),
                    None => r..r + 1,
                };
                for dr in data_rows {
                    if data.as_ref().is_some_and(|d| dr >= d.rows()) {
                        continue;
                    }
                    let xrow = extra.as_ref().and_then(|x| {
                        let xr = objects.children(level, r, x.info.level).start;
                        (xr < x.rows()).then(|| x.row_from(xr, hist_begin))
                    });
                    let drow = data.as_ref().map(|d| d.row_from(dr, hist_begin));
                    let crow = control.row_from(r, hist_begin);
                    for_each_burst(crow, drow, xrow, hist_begin, hist_end, |b| {
                        let Some(col) = bins.column(b.control) else {
                            return;
                        };
                        let plane = match (planes, b.extra) {
                            (Some(p), Some(v)) => match p.column(v) {
                                Some(p) => p,
                                None => return,
                            },
                            _ => 0,
                        };
                        let dur = (b.end - b.begin) as f64;
                        let c = acc.at(plane, col);
                        match stat {
                            1 => {
                                c.sum += dur;
                                row_total[plane] += dur;
                            }
                            2 => {
                                if b.control != 0.0 {
                                    c.sum += dur;
                                    row_nz[plane] += dur;
                                    row_nz_seen[plane] = true;
                                }
                            }
                            5 => {
                                c.sum += 1.0;
                                row_cnt[plane] += 1.0;
                            }
                            _ => c.add(stat, dur, b.data, units),
                        }
                    });
                }
                let mut cells = vec![vec![None; bins.n]; n_planes];
                acc.each(|plane, col, c| {
                    let v = match stat {
                        1 => c.sum * 100.0 / row_total[plane],
                        2 if !row_nz_seen[plane] => 0.0,
                        2 => c.sum * 100.0 / row_nz[plane],
                        5 => c.sum * 100.0 / row_cnt[plane],
                        _ => c.value(stat, units, span),
                    };
                    cells[plane][col] = Some(v);
                });
                cells
            })
            .collect();
        let mut cells = vec![vec![Vec::new(); row_objects.len()]; n_planes];
        for (k, row) in computed.into_iter().enumerate() {
            for (p, plane) in row.into_iter().enumerate() {
                cells[p][k] = plane;
            }
        }
        Table {
            cells,
            columns: bins.n,
        }
    };
    let rows = row_objects.len();
    lap("table", phases);

    // Labels.
    let col_label = |c: usize| -> String {
        if comm_stat.is_some() {
            objects.label(control.info.level, c)
        } else {
            labels::column(
                engine,
                &control.info,
                &bins,
                c,
                flag("Analyzer2D.ShortHeaderLabels", true),
            )
        }
    };
    let row_label = |r: usize| objects.label(control.info.level, r);
    let cfg_hide = flag("Analyzer2D.HideCols", false);
    let hide = options.hide_empty_columns || cfg_hide;
    let sort = flag("Analyzer2D.SortCols", false)
        && a.get("Analyzer2D.SortCriteria").map(str::trim) != Some("Custom");
    let reverse = flag("Analyzer2D.SortReverse", false);
    // Total, Average, Maximum, Minimum, StDev, Avg/Max.
    let criteria = match a.get("Analyzer2D.SortCriteria").map(str::trim) {
        Some("Total") => 0,
        Some("Maximum") => 2,
        Some("Minimum") => 3,
        Some("Stdev") => 4,
        Some("Avg/Max") => 5,
        _ => 1,
    };
    let vertical = a.get("Analyzer2D.HorizVert").map(str::trim) == Some("Vertical");
    let mut result = Histogram {
        notes: labels_past_the_list(objects_list, compute_scale, rows)
            .into_iter()
            .collect(),
        statistic: stat_name.to_string(),
        row_labels: row_objects.iter().map(|&r| row_label(r)).collect(),
        row_objects: row_objects.clone(),
        vertical,
        planes: Vec::new(),
    };
    let with_values = |p: usize| {
        table.cells[p]
            .iter()
            .any(|row| row.iter().any(Option::is_some))
    };
    // The plane Paraver sorts columns by (`HistogramProxy::compute`, `fillSemanticSort`): with
    // a 3D fixed value, the last plane with values whose [min, min + 1) holds it, else the
    // first with values; without one, plane 0, or the first with values when it has none.
    // Its order is applied to every plane.
    let selected_plane = match (planes, a.get("Analyzer2D.3D_FixedValue")) {
        (Some(pb), Some(fixed)) => {
            let fixed = fixed.trim().parse::<f64>().unwrap_or(0.0);
            let first = (0..n_planes).find(|&p| with_values(p)).unwrap_or(0);
            (0..n_planes)
                .rev()
                .find(|&p| {
                    let lo = pb.min + pb.delta * p as f64;
                    fixed >= lo && fixed < lo + 1.0 && with_values(p)
                })
                .unwrap_or(first)
        }
        (Some(_), None) if !with_values(0) => (0..n_planes).find(|&p| with_values(p)).unwrap_or(0),
        _ => 0,
    };
    let plane_totals = |p: usize| {
        let mut col_totals = vec![Totals::default(); table.columns];
        for row in &table.cells[p] {
            for (c, cell) in row.iter().enumerate() {
                if let Some(v) = cell {
                    col_totals[c].add(*v);
                }
            }
        }
        col_totals
    };
    let order: Vec<usize> = if sort {
        let totals = plane_totals(selected_plane);
        let key = |c: usize| totals[c].rows()[criteria];
        let mut idx: Vec<usize> = (0..table.columns).collect();
        idx.sort_by(|&a, &b| key(a).total_cmp(&key(b)));
        idx
    } else {
        Vec::new()
    };
    for p in 0..n_planes {
        let plane = &table.cells[p];
        let has_values = with_values(p);
        if extra.is_some() && !has_values {
            continue;
        }
        let label = match (&extra, planes) {
            (Some(x), Some(pb)) if n_planes > 1 => Some(labels::plane(engine, &x.info, &pb, p)),
            _ => None,
        };
        let mut col_totals = vec![Totals::default(); table.columns];
        let mut row_totals = vec![Totals::default(); rows];
        for (r, row) in plane.iter().enumerate() {
            for (c, cell) in row.iter().enumerate() {
                if let Some(v) = cell {
                    col_totals[c].add(*v);
                    row_totals[r].add(*v);
                }
            }
        }
        // Paraver hides a column whose total of the statistic's accumulated values is 0;
        // a cell of 0/0 (NaN once finished, as % Time Not Zero over no time) adds 0 there.
        let empty = |c: usize| {
            plane
                .iter()
                .filter_map(|row| row[c])
                .filter(|v| !v.is_nan())
                .sum::<f64>()
                == 0.0
        };
        let printed: Vec<usize> = (0..table.columns).filter(|&c| !hide || !empty(c)).collect();
        let range = |c: usize| -> Option<(f64, f64)> {
            (comm_stat.is_none()).then(|| {
                let lo = c as f64 * bins.delta + bins.min;
                (lo, lo + bins.delta)
            })
        };
        if vertical {
            result.planes.push(PlaneTable {
                label,
                columns: printed.iter().map(|&c| col_label(c)).collect(),
                column_values: printed.iter().map(|&c| range(c)).collect(),
                cells: (0..rows)
                    .map(|r| printed.iter().map(|&c| plane[r][c]).collect())
                    .collect(),
                totals: row_totals.iter().map(Totals::rows).collect(),
            });
            continue;
        }
        // Paraver's column mapping (`histogram.cpp`): which column the i-th printed one is
        // (`getSemanticRealColumn`), then the sorted order (`getSemanticSortedColumn`, the
        // selected plane's), which labels, cells and totals all go through.
        let (n, len) = (table.columns, printed.len());
        let rc = |i: usize| -> usize {
            match (cfg_hide, sort, reverse) {
                (true, true, true) => n - len + i,
                (true, false, false) => printed[i],
                (true, false, true) => printed[len - 1 - i],
                _ => i,
            }
        };
        let sorted = |c: usize| -> usize {
            if sort {
                if reverse { order[c] } else { order[n - 1 - c] }
            } else if reverse && !cfg_hide {
                n - 1 - c
            } else {
                c
            }
        };
        let column_of = |i: usize| {
            if comm_stat.is_some() {
                printed[i]
            } else {
                rc(i)
            }
        };
        result.planes.push(PlaneTable {
            label,
            columns: (0..len).map(|i| col_label(sorted(column_of(i)))).collect(),
            column_values: (0..len).map(|i| range(column_of(i))).collect(),
            cells: (0..rows)
                .map(|r| (0..len).map(|i| plane[r][sorted(column_of(i))]).collect())
                .collect(),
            totals: (0..len).map(|i| col_totals[sorted(rc(i))].rows()).collect(),
        });
    }
    lap("labels and totals", phases);
    let control = keep_control.then(|| {
        control
            .kept()
            .map_or_else(|| Arc::new(control.compute()), Arc::clone)
    });
    Ok((result, control))
}

/// Where paramedir's row labels are not the rows' own: with every row computed
/// (`ComputeYScale: False`), paramedir labels row `i` with the name of the `i`-th object of
/// `Analyzer2D.Objects` (`TextOutput::dumpMatrixHorizontal`: `objSelection[iRow]`), read
/// past the end of a list shorter than the rows (undefined: its labels there change from run
/// to run). prvscope writes each row's own name and says which rows paramedir names
/// otherwise.
fn labels_past_the_list(list: Option<&str>, compute_scale: bool, rows: usize) -> Option<String> {
    let text = list.filter(|l| !compute_scale && *l != "All")?;
    let listed: Vec<usize> = text
        .split(',')
        .map(|x| x.trim().parse().ok())
        .collect::<Option<_>>()?;
    let differ: Vec<usize> = (0..rows).filter(|&i| listed.get(i) != Some(&i)).collect();
    let (&lo, &hi) = (differ.first()?, differ.last()?);
    let which = if lo == hi {
        format!("row {}", lo + 1)
    } else if differ.len() == hi - lo + 1 {
        format!("rows {}-{}", lo + 1, hi + 1)
    } else {
        format!("{} rows from row {}", differ.len(), lo + 1)
    };
    Some(format!(
        "paramedir does not give {which} of {rows} their own names: it labels row i with \
         the i-th object of the cfg's `Analyzer2D.Objects` ({} listed), and beyond the list \
         with what memory holds there (labels that change from run to run); prvscope writes \
         each row's own name, the figures are paramedir's",
        listed.len()
    ))
}

#[cfg(test)]
mod label_tests {
    use super::labels_past_the_list;

    #[test]
    fn rows_past_the_objects_list_are_named() {
        let note = |l, s, r| labels_past_the_list(Some(l), s, r);
        // timings.cfg on 16 threads: rows 9-16 past its eight.
        assert!(
            note("0,1,2,3,4,5,6,7", false, 16)
                .unwrap()
                .contains("rows 9-16 of 16")
        );
        assert!(note("0", false, 4).unwrap().contains("rows 2-4 of 4"));
        assert!(note("0", false, 2).unwrap().contains("row 2 of 2"));
        assert!(note("1,0,2", false, 3).unwrap().contains("rows 1-2 of 3"));
        assert!(
            note("1,1,2,0", false, 4)
                .unwrap()
                .contains("2 rows from row 1")
        );
        // A list covering the rows in order, or rows computed as listed: no difference.
        assert_eq!(note("0,1,2,3,4,5,6,7", false, 8), None);
        assert_eq!(note("0,1,2", false, 2), None);
        assert_eq!(note("0", true, 16), None);
        assert_eq!(note("All", false, 16), None);
        assert_eq!(labels_past_the_list(None, false, 16), None);
    }
}
