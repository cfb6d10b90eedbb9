//! A histogram window's table at Paraver's sizes: hundreds of columns, the header row and
//! the row labels frozen while the cells scroll.

use egui_kittest::kittest::Queryable;
use prvscope_viewer::loader::LoadSource;

use crate::common::shared_traces;
use crate::histogram_window::paramedir_output;
use crate::viewer::harness_with;

/// A 200-column histogram (IPC bins of jacobi's 24 threads) reads as Paraver's table: its
/// numbers are paramedir's; only the columns in view are made; scrolled right and down, the
/// header row and the row labels stay where they were; sorting moves no column.
#[test]
fn a_wide_histogram_keeps_its_header_and_row_labels_while_its_cells_scroll() {
    let _shared = crate::common::shared();
    let Some(dir) = shared_traces() else {
        return;
    };
    let mut h = harness_with(
        LoadSource::File(dir.join("extrae_omp_jacobi24/jacobi-2d-imper_v0.prv")),
        None,
        (1400.0, 800.0),
        false,
    );
    let cfg = dir.join("../paraver_cfgs/paraver/General/analysis/2dc_cyc_ipc.cfg");
    let ctx = h.ctx.clone();
    h.state_mut().open_cfg(&ctx, cfg);
    h.state_mut().wait_for_cfg(&ctx);
    h.run_steps(3);
    // Every column, the empty ones too: the table at its full width.
    h.state_mut().histograms_mut()[0].look.hide_empty = false;
    h.run_steps(2);
    let w = &h.state().histograms()[0];
    assert_eq!(
        w.analysis.histogram.text(),
        paramedir_output(
            &dir,
            "extrae_omp_jacobi24/paraver__General__analysis__2dc_cyc_ipc.txt.gz"
        )
    );
    let columns = w.analysis.histogram.planes[0].columns.clone();
    assert!(columns.len() >= 200, "{} columns", columns.len());
    let (first, far) = (columns[0].clone(), columns[150].clone());
    let rect_of =
        |h: &egui_kittest::Harness<'_, _>, label: &str| h.query_by_label(label).map(|n| n.rect());
    let head0 = rect_of(&h, &first).expect("the first column's header");
    // A row label of the table (the timeline names its rows alike): just left of the cells.
    let row_label = |h: &egui_kittest::Harness<'_, _>, label: &str| {
        h.query_all_by_label(label)
            .map(|n| n.rect())
            .find(|r| (r.right() - head0.left()).abs() < 3.0)
    };
    let label0 = row_label(&h, "THREAD 1.1.1").expect("the first row's label");
    assert!(
        rect_of(&h, &far).is_none(),
        "a column out of view is not made"
    );
    assert!(label0.right() <= head0.left() && label0.top() > head0.bottom());

    // Scrolled right and down: the header and the labels of the cells in view, in place.
    h.state_mut().histograms_mut()[0].scroll_cells_to(20, 150);
    h.run_steps(3);
    let head = rect_of(&h, &far).expect("column 150's header, once in view");
    assert!(
        rect_of(&h, &first).is_none(),
        "the first column scrolled out"
    );
    assert!(
        row_label(&h, "THREAD 1.1.1").is_none(),
        "the first row scrolled out"
    );
    let label = row_label(&h, "THREAD 1.1.21").expect("row 21's label");
    let near = |a: f32, b: f32| (a - b).abs() < 0.5;
    assert!(
        near(head.top(), head0.top()),
        "the header row stays at the top"
    );
    assert!(
        near(label.left(), label0.left()),
        "the labels stay at the left"
    );
    assert!(
        near(head.left(), head0.left()),
        "column 150 now first, where column 0 was"
    );
    assert!(
        h.query_by_label("Total").is_some(),
        "the totals follow the rows"
    );
    h.snapshot("histogram_jacobi_ipc_scrolled");

    // Sorting by a column moves no column: its header keeps its place and width.
    h.get_by_label(&far).click();
    h.run_steps(3);
    assert!(h.state().histograms()[0].sorted_by().is_some(), "sorted");
    let sorted = rect_of(&h, &far).expect("the sorted column's header");
    assert!(near(sorted.left(), head.left()) && near(sorted.width(), head.width()));
}

/// A 2D histogram with empty columns (epoch's useful durations: most bins hold no thread):
/// paramedir's text writes `-nan` for their Avg/Max, the window leaves them blank.
#[test]
fn empty_columns_have_blank_totals_in_the_window_and_paramedirs_text() {
    let _shared = crate::common::shared();
    let Some(dir) = shared_traces() else {
        return;
    };
    let mut h = harness_with(
        LoadSource::File(dir.join("pypop_epoch_scaling/epoch_1proc.prv.gz")),
        None,
        (1400.0, 800.0),
        false,
    );
    let cfg = dir.join("../paraver_cfgs/paraver/General/analysis/2dh_useful_duration.cfg");
    let ctx = h.ctx.clone();
    h.state_mut().open_cfg(&ctx, cfg);
    h.state_mut().wait_for_cfg(&ctx);
    h.run_steps(3);
    let w = &h.state().histograms()[0];
    let text = w.analysis.histogram.text();
    assert_eq!(
        text,
        paramedir_output(
            &dir,
            "epoch_1proc/paraver__General__analysis__2dh_useful_duration.txt.gz"
        )
    );
    let avg_max = text.lines().find(|l| l.starts_with("Avg/Max")).unwrap();
    let third = avg_max.split('\t').nth(3).unwrap();
    assert_eq!(third, "-nan", "an empty column in paramedir's text");
    assert!(h.query_by_label("Avg/Max").is_some());
    assert!(
        h.query_all_by_label("1.00").next().is_some(),
        "a full column's Avg/Max"
    );
    assert!(
        h.query_all_by_label("-nan").next().is_none(),
        "no -nan in the window"
    );
    assert!(h.query_all_by_label("nan").next().is_none());
}

/// `2dh_useful_duration` on jacobi (201 bins, few of them filled) as Paraver's window offers
/// it: the empty columns and rows hidden by default (as `paramedir -e`), transposed, in
/// colour mode; every cell shown is paramedir's.
#[test]
fn a_sparse_2d_histogram_hides_its_empty_columns_transposes_and_shows_colours() {
    let _shared = crate::common::shared();
    let Some(dir) = shared_traces() else {
        return;
    };
    let mut h = jacobi_with(&dir, "2dh_useful_duration.cfg");
    let w = &h.state().histograms()[0];
    assert_eq!(
        w.analysis.histogram.text(),
        paramedir_output(
            &dir,
            "extrae_omp_jacobi24/paraver__General__analysis__2dh_useful_duration.txt.gz"
        )
    );
    let plane = w.analysis.histogram.planes[0].clone();
    let filled: Vec<usize> = (0..plane.columns.len())
        .filter(|&c| plane.cells.iter().any(|r| r[c].is_some()))
        .collect();
    let rows: Vec<usize> = (0..plane.cells.len())
        .filter(|&r| plane.cells[r].iter().any(Option::is_some))
        .collect();
    assert!(
        plane.columns.len() >= 100 && filled.len() < 20,
        "{} of {}",
        filled.len(),
        plane.columns.len()
    );
    // Hidden by default: the filled columns alone, each with its header.
    let g = w.grid();
    assert!(w.look.hide_empty);
    assert_eq!(
        (g.rows.clone(), g.cols.clone()),
        (rows.clone(), filled.clone())
    );
    // The filled columns side by side (the first five in the window's width).
    for &c in filled.iter().take(5) {
        h.get_by_label(&plane.columns[c]);
    }
    h.get_by_label_contains(&format!(
        "{} of {} columns",
        filled.len(),
        plane.columns.len()
    ));
    h.snapshot("histogram_useful_duration_hidden");
    // Every shown cell is the plane's.
    let (n_rows, n_cols) = g.size();
    for i in 0..n_rows {
        for j in 0..n_cols {
            if let Some(prvscope_viewer::histogram::At::Cell(r, c)) = g.at(i, j) {
                assert_eq!((r, c), (g.rows[i], g.cols[j]));
            }
        }
    }
    // Transposed: the bins as rows, the threads as columns (their names in the header).
    h.state_mut().histograms_mut()[0].look.transposed = true;
    h.run_steps(3);
    let g = h.state().histograms()[0].grid();
    assert_eq!(g.size(), (filled.len(), rows.len() + 6));
    assert_eq!(
        g.at(0, 0),
        Some(prvscope_viewer::histogram::At::Cell(rows[0], filled[0]))
    );
    // (A thread's name heads its column, above the cells; the timeline's rows start lower.)
    assert!(
        h.query_all_by_label("THREAD 1.1.3")
            .any(|n| n.rect().bottom() < 145.0),
        "a thread heads a column"
    );
    h.snapshot("histogram_useful_duration_transposed");
    // Colour mode: no totals, a block per cell; the numbers on hover.
    let w = &mut h.state_mut().histograms_mut()[0];
    w.look.transposed = false;
    w.look.colours = true;
    w.look.cell_size = 16.0;
    h.run_steps(3);
    let g = h.state().histograms()[0].grid();
    assert_eq!(g.size(), (rows.len(), filled.len()));
    h.snapshot("histogram_useful_duration_colours");
    // A block's menu in colour mode: THREAD 1.1.3's first filled bin, its time shown on the
    // timeline (the block is where its row's label and its column's header meet).
    let (r, c) = (2, filled[0]);
    assert!(plane.cells[r][c].is_some());
    let x = h
        .query_all_by_label(&plane.columns[c])
        .map(|n| n.rect())
        .find(|rect| rect.width() < 20.0)
        .expect("the column's header")
        .center()
        .x;
    let y = h
        .query_all_by_label(&h.state().histograms()[0].analysis.histogram.row_labels[r].clone())
        .map(|n| n.rect())
        .rfind(|rect| rect.height() < 20.0 && rect.left() > 700.0)
        .expect("the row's label")
        .center()
        .y;
    let at = egui::pos2(x, y);
    h.event(egui::Event::PointerMoved(at));
    h.run_steps(1);
    for pressed in [true, false] {
        h.event(egui::Event::PointerButton {
            pos: at,
            button: egui::PointerButton::Secondary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        });
        h.run_steps(1);
    }
    h.run_steps(2);
    h.get_by_label("Copy the table (paramedir's text)");
    h.get_by_label("Show its time in the timeline").click();
    h.run_steps(3);
    let w = &h.state().histograms()[0];
    assert_eq!(w.selected, Some((r, c)));
    assert_eq!(
        h.state().loaded().unwrap().timeline.window(),
        w.cell_time(r, c).unwrap()
    );
}

/// A cell's context menu: the table copied or saved (as CSV, every row and column of the
/// plane; as paramedir's text), and the time the cell counts shown on the timeline.
#[test]
fn a_cells_menu_saves_the_table_and_shows_its_time_on_the_timeline() {
    let _shared = crate::common::shared();
    let Some(dir) = shared_traces() else {
        return;
    };
    let mut h = jacobi_with(&dir, "2dh_useful_duration.cfg");
    let reference = paramedir_output(
        &dir,
        "extrae_omp_jacobi24/paraver__General__analysis__2dh_useful_duration.txt.gz",
    );
    // The CSV: every row and column (the hidden ones too), each cell paramedir's.
    let w = &h.state().histograms()[0];
    let plane = w.analysis.histogram.planes[0].clone();
    let csv = w.csv();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 1 + plane.cells.len() + 6);
    assert_eq!(fields(lines[0]).len(), 1 + plane.columns.len());
    assert_eq!(
        fields(lines[0])[1],
        plane.columns[0],
        "a name with commas, quoted"
    );
    let text_rows: Vec<Vec<&str>> = reference
        .lines()
        .skip(1)
        .take(plane.cells.len())
        .map(|l| l.split('\t').collect())
        .collect();
    for (r, line) in lines[1..=plane.cells.len()].iter().enumerate() {
        let f = fields(line);
        assert_eq!(f[0], text_rows[r][0]);
        for c in 0..plane.columns.len() {
            match plane.cells[r][c] {
                // paramedir's text writes an empty cell as 0.00.
                None => assert_eq!((f[1 + c].as_str(), text_rows[r][1 + c]), ("", "0.00")),
                Some(_) => assert_eq!(f[1 + c], text_rows[r][1 + c], "row {r} column {c}"),
            }
        }
    }
    let out = crate::common::temp_dir("histogram-export");
    let w = &mut h.state_mut().histograms_mut()[0];
    w.export(prvscope_viewer::histogram::Export::Text, &out.join("t.txt"))
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(out.join("t.txt")).unwrap(),
        reference
    );
    assert!(
        w.message()
            .is_some_and(|(m, failed)| m.starts_with("saved") && !failed)
    );
    let bad = w.export(
        prvscope_viewer::histogram::Export::Csv,
        &out.join("no/such/folder/t.csv"),
    );
    assert!(bad.is_err());
    assert!(
        w.message()
            .is_some_and(|(m, failed)| m.starts_with("could not save") && failed)
    );
    // The menu of THREAD 1.1.2's filled cell: its time on the timeline.
    h.run_steps(2);
    let (r, c) = (
        1,
        (0..plane.columns.len())
            .find(|&c| plane.cells[1][c].is_some())
            .unwrap(),
    );
    let v = prvscope_paraver::number::fixed(plane.cells[r][c].unwrap(), 2);
    h.get_by_label(&v).click_secondary();
    h.run_steps(2);
    h.get_by_label("Save as CSV…");
    h.get_by_label("Copy the table (paramedir's text)");
    h.get_by_label("Show its time in the timeline").click();
    h.run_steps(3);
    let w = &h.state().histograms()[0];
    let want = w.cell_time(r, c).unwrap();
    assert_eq!(w.selected, Some((r, c)));
    assert_eq!(h.state().loaded().unwrap().timeline.window(), want);
    // Naively: the first and the last interval of the cell's thread in its bin.
    let (lo, hi) = plane.column_values[c].unwrap();
    let row = &w.analysis.control.rows[w.analysis.histogram.row_objects[r]];
    let held: Vec<_> = row
        .iter()
        .filter(|i| i.end > i.begin && i.value >= lo && i.value < hi)
        .collect();
    assert_eq!(
        (want.start, want.end()),
        (held[0].begin, held.last().unwrap().end)
    );
}

/// The fields of a CSV line (RFC 4180 quotes).
fn fields(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quoted) = (Vec::new(), String::new(), false);
    let mut chars = line.chars().peekable();
    while let Some(ch) = chars.next() {
        match (ch, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut cur)),
            _ => cur.push(ch),
        }
    }
    out.push(cur);
    out
}

/// A 1400 x 800 viewer on jacobi with the General analysis cfg `name` computed.
fn jacobi_with(
    dir: &std::path::Path,
    name: &str,
) -> egui_kittest::Harness<'static, prvscope_viewer::app::App> {
    let mut h = harness_with(
        LoadSource::File(dir.join("extrae_omp_jacobi24/jacobi-2d-imper_v0.prv")),
        None,
        // A screen on which the histogram docked beside the timeline is five columns wide.
        (1900.0, 800.0),
        false,
    );
    let cfg = dir
        .join("../paraver_cfgs/paraver/General/analysis")
        .join(name);
    let ctx = h.ctx.clone();
    h.state_mut().open_cfg(&ctx, cfg);
    h.state_mut().wait_for_cfg(&ctx);
    h.run_steps(3);
    h
}
