//! Paraver configurations in the viewer: a cfg's analyzer opens as a histogram window whose
//! table is paramedir's, and a click on a cell outlines where that thread holds that value.

use std::io::Read as _;

use egui_kittest::kittest::Queryable;
use prvscope_viewer::loader::LoadSource;

use crate::common::shared_traces;
use crate::viewer::harness_with;

#[test]
fn mpi_stats_cfg_opens_paramedirs_table_and_a_cell_outlines_its_time() {
    let _shared = crate::common::shared();
    let Some(dir) = shared_traces() else {
        return;
    };
    let mut h = on_prime(&dir);
    let cfg = dir.join("../paraver_cfgs/paraver/mpi/analysis/mpi_stats.cfg");
    let ctx = h.ctx.clone();
    h.state_mut().open_cfg(&ctx, cfg);
    h.state_mut().wait_for_cfg(&ctx);
    h.run_steps(3);
    let app = h.state();
    assert_eq!(app.histograms().len(), 1, "status: {}", app.status());
    let w = &app.histograms()[0];
    // The table is paramedir's, to the last printed digit.
    let theirs = paramedir_output(
        &dir,
        "extrae_mpi_prime16/paraver__mpi__analysis__mpi_stats.txt.gz",
    );
    assert_eq!(w.analysis.histogram.text(), theirs);

    // THREAD 1.1.1 spends 62.86% of its time in MPI_Reduce: click that cell.
    let plane = &w.analysis.histogram.planes[0];
    let col = plane
        .columns
        .iter()
        .position(|c| c == "MPI_Reduce")
        .unwrap();
    let share = plane.cells[0][col].unwrap();
    assert!((share - 62.86).abs() < 0.005, "{share}");
    assert!(h.state().loaded().unwrap().timeline.highlight().is_none());
    h.get_all_by_label("62.86")
        .next()
        .expect("the cell")
        .click();
    h.run_steps(3);
    let hl = h
        .state()
        .loaded()
        .unwrap()
        .timeline
        .highlight()
        .cloned()
        .expect("an outline");
    let end = h.state().loaded().unwrap().trace.header.end_time as f64;
    let held: u64 = hl[0].iter().map(|(b, e)| e - b).sum();
    assert!(
        (held as f64 / end * 100.0 - share).abs() < 0.01,
        "outlined {held} ticks of {end}: {}%, the cell says {share}%",
        held as f64 / end * 100.0
    );
    assert!(
        hl[1..].iter().all(Vec::is_empty),
        "only thread 1.1.1 is outlined"
    );
    h.snapshot("histogram_prime_mpi_stats");
}

#[test]
fn a_cfg_is_picked_by_topic_from_the_configuration_folder() {
    let _shared = crate::common::shared();
    let Some(dir) = shared_traces() else {
        return;
    };
    let mut h = harness_with(
        LoadSource::File(dir.join("pypop_epoch_scaling/epoch_2proc.prv.gz")),
        None,
        (1400.0, 800.0),
        false,
    );
    h.state_mut()
        .set_cfg_library(Some(dir.join("../paraver_cfgs/paraver")));
    h.get_by_label("File").click();
    h.run_steps(2);
    for label in ["Configurations", "mpi", "analysis"] {
        h.get_by_label(label).click();
        h.run_steps(2);
    }
    h.get_by_label("mpi_stats").click();
    h.run_steps(2);
    let ctx = h.ctx.clone();
    h.state_mut().wait_for_cfg(&ctx);
    h.run_steps(2);
    let app = h.state();
    assert_eq!(app.histograms().len(), 1, "status: {}", app.status());
    let t = &app.histograms()[0].analysis.histogram;
    assert_eq!(t.row_labels, ["THREAD 1.1.1", "THREAD 1.2.1"]);
    assert_eq!(t.planes[0].columns[0], "Outside MPI");
}

#[test]
fn a_histogram_following_the_timeline_is_computed_over_the_visible_window() {
    let _shared = crate::common::shared();
    let Some(dir) = shared_traces() else {
        return;
    };
    let mut h = on_prime(&dir);
    let ctx = h.ctx.clone();
    // Time per state (µs), thread by thread.
    let cfg = dir.join("../paraver_cfgs/paraver/General/analysis/timings.cfg");
    h.state_mut().open_cfg(&ctx, cfg);
    h.state_mut().wait_for_cfg(&ctx);
    h.run_steps(2);
    assert_eq!(
        h.state().histograms().len(),
        1,
        "status: {}",
        h.state().status()
    );
    let end = h.state().loaded().unwrap().trace.header.end_time;
    let row_sums = |p: &prvscope_paraver::histogram::PlaneTable| -> Vec<f64> {
        p.cells.iter().map(|r| r.iter().flatten().sum()).collect()
    };
    let whole = row_sums(&h.state().histograms()[0].analysis.histogram.planes[0]);
    let window = prvscope_viewer::frame::TimeWindow {
        start: end / 4,
        span: end / 2,
    };
    h.state_mut().loaded_mut().unwrap().timeline.zoom_to(window);
    h.get_by_label("Follow the timeline window").click();
    for _ in 0..200 {
        h.run_steps(1);
        let w = &h.state().histograms()[0];
        if !w.computing() && w.computed_for.is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let w = &h.state().histograms()[0];
    let visible = h.state().loaded().unwrap().timeline.window();
    // The window says which times it covers, as the timeline writes them.
    let npt = crate::common::ns_per_tick(h.state());
    let t = |x: u64| prvscope_viewer::frame::format_in_window(x, visible.span, npt);
    h.get_by_label(&format!(
        "from {} to {}",
        t(visible.start),
        t(visible.start + visible.span)
    ));
    // The visible part was read from the windows the cfg computed when it opened.
    let kept = h.state().loaded().unwrap().windows.usage();
    assert!(kept.windows >= 1 && kept.hits >= 1, "{kept:?}");
    assert_eq!(w.computed_for, Some(visible));
    // The table is headed by the unit its cells are in: the control window's, µs here (the
    // check below reads the cells as µs against a span in ns).
    let unit = prvscope_viewer::histogram::unit(
        &w.analysis.histogram.statistic,
        w.analysis.control.info.units,
    );
    assert_eq!(unit, Some("µs"), "{}", w.analysis.histogram.statistic);
    assert!(
        h.query_by_label_contains("(µs)").is_some(),
        "the unit in the corner"
    );
    // Each thread's time in the table fits in the window's span (µs in this cfg; idle time,
    // state 0, is out of the columns' range), and is less than over the whole trace.
    let windowed = row_sums(&w.analysis.histogram.planes[0]);
    assert_eq!(windowed.len(), whole.len());
    for (a, b) in windowed.iter().zip(&whole) {
        assert!(
            *a * 1000.0 <= visible.span as f64 + 1000.0,
            "{a} us in a {} ns window",
            visible.span
        );
        assert!(a < b && *a > 0.0, "windowed {a} us, whole trace {b} us");
    }
}

#[test]
fn a_timeline_cfg_opens_as_a_view_with_paramedirs_values() {
    let _shared = crate::common::shared();
    let Some(dir) = shared_traces() else {
        return;
    };
    let mut h = on_prime(&dir);
    let ctx = h.ctx.clone();
    let cfg = dir.join("../paraver_cfgs/paraver/mpi/views/MPI_call.cfg");
    h.state_mut().open_cfg(&ctx, cfg);
    h.state_mut().wait_for_cfg(&ctx);
    h.run_steps(3);
    let app = h.state();
    assert_eq!(app.cfg_views().len(), 1, "status: {}", app.status());
    let view = app.cfg_views()[0].clone();
    let l = app.loaded().unwrap();
    assert_eq!(
        l.timeline.config().spec,
        prvscope_store::signal::SignalSpec::Custom(view.clone()),
        "a cfg without analyzers shows its window"
    );
    // Each thread's values, in order, are paramedir's dump of the window (intervals of
    // positive length, runs of one value joined; 0 is drawn as background).
    let theirs = paramedir_output(
        &dir,
        "extrae_mpi_prime16/paraver__mpi__views__MPI_call.txt.gz",
    );
    let sentinel = l.trace.store.null_policy().sentinel;
    for (row, object) in [(0, "1.1.1"), (5, "1.6.1"), (15, "1.16.1")] {
        let mut expected: Vec<u64> = Vec::new();
        for line in theirs
            .lines()
            .filter(|x| x.starts_with(&format!("{object}\t")))
        {
            let f: Vec<&str> = line.split('\t').collect();
            if f[2] == "0.00" {
                continue;
            }
            let v: f64 = f[3].parse().unwrap();
            let raw = if v == 0.0 { sentinel } else { v as u64 };
            if expected.last() != Some(&raw) {
                expected.push(raw);
            }
        }
        assert!(expected.len() > 3, "{object}");
        assert_eq!(view.0.rows[row].1, expected, "thread {object}");
    }
    assert_eq!(
        view.0.label(50),
        "MPI_Reduce"
            .to_owned()
            .replace("MPI_Reduce", &view.0.label(50))
    );
    h.snapshot("cfg_view_prime_mpi_call");
}

#[test]
fn a_cfg_window_of_real_values_is_drawn_on_a_gradient_labelled_with_them() {
    let _shared = crate::common::shared();
    let Some(dir) = shared_traces() else {
        return;
    };
    let mut h = harness_with(
        LoadSource::File(dir.join("extrae_mpi_prime16/prime_v0.prv")),
        None,
        (1000.0, 600.0),
        false,
    );
    let ctx = h.ctx.clone();
    let cfg = dir.join("../paraver_cfgs/paraver/counters_PAPI/performance/IPC.cfg");
    h.state_mut().open_cfg(&ctx, cfg);
    h.state_mut().wait_for_cfg(&ctx);
    h.run_steps(2);
    let app = h.state();
    let view = app.cfg_views().last().expect("the IPC window").clone();
    assert!(view.0.gradient, "IPC is a quantity");
    // The labels are the IPC values paramedir dumps for the window (2 decimals).
    let theirs = paramedir_output(
        &dir,
        "extrae_mpi_prime16/paraver__counters_PAPI__performance__IPC.txt.gz",
    );
    let dumped: std::collections::BTreeSet<String> = theirs
        .lines()
        .filter(|l| l.starts_with("1.1.1\t") && !l.contains("\t0.00\t") && !l.ends_with("\t0.00"))
        .map(|l| l.rsplit('\t').next().unwrap().to_owned())
        .collect();
    let sentinel = app.loaded().unwrap().trace.store.null_policy().sentinel;
    let ours: std::collections::BTreeSet<String> = view.0.rows[0]
        .1
        .iter()
        .filter(|&&v| v != sentinel)
        .map(|&v| view.0.label(v))
        .collect();
    assert!(!ours.is_empty());
    assert_eq!(ours, dumped);
    // The tooltip and the legend give the values, never the codes the view stores them as.
    let loaded = app.loaded().unwrap();
    let (times, raws) = &view.0.rows[0];
    let k = raws.iter().position(|&v| v != sentinel).unwrap();
    let d = loaded
        .timeline
        .details(&loaded.trace, 0, times[k])
        .expect("details of thread 1.1.1");
    assert_eq!(d.value, None, "no raw code");
    assert_eq!(d.label, view.0.label(raws[k]));
    assert!(dumped.contains(&d.label), "{}", d.label);
    h.run_steps(2);
    // (Codes run from 1 to 10^12: the large ones cannot be read as anything else.)
    for &code in raws
        .iter()
        .filter(|&&v| v != sentinel && v > 1_000_000)
        .take(20)
    {
        let code = prvscope_viewer::frame::thousands(code);
        assert_eq!(
            h.query_all_by_label_contains(&code).count(),
            0,
            "the code {code} is shown"
        );
    }
}

#[test]
fn an_application_window_is_a_function_line_on_the_collapsed_application_row() {
    let _shared = crate::common::shared();
    let Some(dir) = shared_traces() else {
        return;
    };
    let mut h = harness_with(
        LoadSource::File(dir.join("extrae_mpi_prime16/prime_v0.prv")),
        None,
        (1000.0, 500.0),
        false,
    );
    let ctx = h.ctx.clone();
    // Application level, `window_noncolor_mode false`: Paraver's function line.
    let cfg = dir.join("../paraver_cfgs/paraver/General/views/instantaneous_parallelism.cfg");
    h.state_mut().open_cfg(&ctx, cfg);
    h.state_mut().wait_for_cfg(&ctx);
    h.run_steps(3);
    let app = h.state();
    assert_eq!(app.cfg_views().len(), 1, "status: {}", app.status());
    let view = app.cfg_views()[0].clone();
    assert!(view.0.function_line);
    // Not drawn on the 16 threads' rows: on the application's collapsed row.
    assert!(view.0.rows.iter().all(|(t, _)| t.is_empty()));
    assert_eq!(view.0.groups.len(), 1);
    assert_eq!(view.0.groups[0].0, 0..16);
    let l = app.loaded().unwrap();
    let t = &l.timeline;
    assert_eq!(
        t.config().color,
        prvscope_viewer::view::ColorMode::FunctionLine
    );
    assert_eq!(
        t.rows().len(),
        1,
        "the rows are collapsed to the application"
    );
    // The collapsed row's value at the middle of each of paramedir's intervals (in us) is
    // paramedir's value.
    let theirs = paramedir_output(
        &dir,
        "extrae_mpi_prime16/paraver__General__views__instantaneous_parallelism.txt.gz",
    );
    let mut checked = 0;
    for line in theirs.lines().step_by(7) {
        let f: Vec<f64> = line
            .split('\t')
            .skip(1)
            .map(|x| x.parse().unwrap())
            .collect();
        let (begin, dur, value) = (f[0] * 1000.0, f[1] * 1000.0, f[2]);
        if dur < 10.0 {
            continue;
        }
        let at = (begin + dur / 2.0) as u64;
        let d = t.details(&l.trace, 0, at).unwrap();
        if value == 0.0 {
            assert_eq!(d.label, "null", "at {at} ns");
        } else {
            assert_eq!(d.label.parse::<f64>().ok(), Some(value), "at {at} ns");
        }
        checked += 1;
    }
    assert!(checked > 20, "{checked}");
    h.snapshot("cfg_view_prime_instantaneous_parallelism");
}

#[test]
fn a_node_window_shows_on_rows_of_its_own_with_paramedirs_values() {
    let _shared = crate::common::shared();
    let Some(dir) = shared_traces() else {
        return;
    };
    let mut h = harness_with(
        LoadSource::File(dir.join("pypop_epoch_scaling/epoch_2proc.prv.gz")),
        None,
        (1000.0, 500.0),
        false,
    );
    let ctx = h.ctx.clone();
    // Node level: the bandwidth of the thread running on each CPU, added per node.
    let cfg = dir.join("../paraver_cfgs/paraver/mpi/views/node_bandwidth.cfg");
    h.state_mut().open_cfg(&ctx, cfg);
    h.state_mut().wait_for_cfg(&ctx);
    h.run_steps(3);
    let app = h.state();
    assert_eq!(app.cfg_views().len(), 3, "status: {}", app.status());
    let l = app.loaded().unwrap();
    let t = &l.timeline;
    // One row per node of the header (one), not the threads'.
    assert_eq!(t.rows().len(), 1);
    assert_eq!(
        t.rows()[0].kind,
        prvscope_viewer::rows::RowKind::Resource(0..1)
    );
    let theirs = paramedir_output(
        &dir,
        "epoch_2proc/paraver__mpi__views__node_bandwidth.txt.gz",
    );
    let mut checked = 0;
    for line in theirs.lines() {
        let f: Vec<f64> = line
            .split('\t')
            .skip(1)
            .map(|x| x.parse().unwrap())
            .collect();
        let (begin, dur, value) = (f[0] * 1000.0, f[1] * 1000.0, f[2]);
        if dur < 50_000.0 {
            continue;
        }
        let at = (begin + dur / 2.0) as u64;
        let d = t.details(&l.trace, 0, at).unwrap();
        // paramedir prints 2 decimals: 0.00 is 0 (drawn as background) or a tiny value.
        let shown: f64 = if d.label == "null" {
            0.0
        } else {
            d.label.parse().unwrap()
        };
        assert!(
            (shown - value).abs() <= 0.01,
            "at {at} ns: {} vs {value}",
            d.label
        );
        checked += 1;
    }
    assert!(checked > 20, "{checked}");
    h.snapshot("cfg_view_epoch2_node_bandwidth");
    // Back to a thread view: the threads' rows return.
    h.state_mut()
        .set_view(prvscope_store::signal::SignalSpec::States);
    h.run_steps(2);
    assert_eq!(h.state().loaded().unwrap().timeline.rows().len(), 2);
}

/// The viewer on `path` with Analysis > POP metrics… open, its figures computed.
fn pop_window_on(
    path: &std::path::Path,
    size: (f32, f32),
) -> egui_kittest::Harness<'static, prvscope_viewer::app::App> {
    let mut h = harness_with(LoadSource::File(path.to_path_buf()), None, size, false);
    h.get_by_label("Analysis").click();
    h.run_steps(2);
    h.get_by_label("POP metrics…").click();
    h.run_steps(2);
    h
}

/// The POP window (1200x800) on `epoch_2proc`, and the folder of its series.
fn pop_window_on_epoch_2proc() -> Option<(
    egui_kittest::Harness<'static, prvscope_viewer::app::App>,
    std::path::PathBuf,
)> {
    let series = shared_traces()?.join("pypop_epoch_scaling");
    let h = pop_window_on(&series.join("epoch_2proc.prv.gz"), (1200.0, 800.0));
    Some((h, series))
}

/// Waits for the POP window's background work.
fn settle(w: &mut prvscope_viewer::pop_window::PopWindow, ctx: &egui::Context) {
    while w.busy() {
        w.poll(ctx);
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

#[test]
fn pop_metrics_window_shows_the_series_with_traffic_lights_and_charts() {
    let _shared = crate::common::shared();
    let Some((mut h, series)) = pop_window_on_epoch_2proc() else {
        return;
    };
    let ctx = h.ctx.clone();
    // The other runs, as "Add runs of the series…" adds the files picked.
    {
        let app = h.state_mut();
        let w = app.pop_window().expect("the window opened");
        settle(w, &ctx);
        w.add_runs(
            &ctx,
            vec![
                series.join("epoch_4proc.prv.gz"),
                series.join("epoch_1proc.prv.gz"),
            ],
        );
        settle(w, &ctx);
        let procs: Vec<usize> = w.runs().iter().map(|(_, f)| f.processes).collect();
        assert_eq!(procs, [1, 2, 4], "ordered by number of processes");
    }
    h.run_steps(3);
    // Parallel efficiency of 2 and 4 processes (BSC: 99.378252, 97.349953), shown with 2
    // decimals on POP's green.
    h.get_by_label("99.38");
    h.get_by_label("97.35");
    // Computation scalability at 4 processes: 92.39, green; IPC 1.87.
    h.get_by_label("92.39");
    assert!(h.query_all_by_label("1.87").count() >= 3);
    assert_eq!(
        prvscope_viewer::pop_window::traffic_light(92.39),
        prvscope_viewer::pop_window::traffic_light(80.0)
    );
    assert_ne!(
        prvscope_viewer::pop_window::traffic_light(79.9),
        prvscope_viewer::pop_window::traffic_light(80.0)
    );
    h.snapshot("pop_window_epoch_series");
    // The CSV export writes modelfactors' layout, and says so.
    let out = std::env::temp_dir().join(format!("prvscope-pop-{}.csv", std::process::id()));
    h.state_mut().pop_window().unwrap().save_csv(&out);
    let csv = std::fs::read_to_string(&out).unwrap();
    assert!(csv.starts_with(
        "Number of processes;1;2;4\nParallel efficiency;99.925583;99.378252;97.349953\n"
    ));
    let _ = std::fs::remove_file(&out);
    h.run_steps(2);
    h.get_by_label(&format!("saved {}", out.display()));
    // A file that cannot be written is said too.
    let bad = std::path::Path::new("/nonexistent-folder/modelfactors.csv");
    h.state_mut().pop_window().unwrap().save_csv(bad);
    h.run_steps(2);
    assert!(
        h.query_all_by_label_contains("could not save /nonexistent-folder")
            .next()
            .is_some()
    );
    // The window itself as PNG (the next frame, cropped to the window).
    let png = std::env::temp_dir().join(format!("prvscope-pop-{}.png", std::process::id()));
    h.state_mut().pop_window().unwrap().save_png(png.clone());
    h.run_steps(4);
    h.get_by_label(&format!("saved {}", png.display()));
    let img = image::open(&png).unwrap();
    assert!(
        img.width() > 300 && img.height() > 300,
        "{:?}",
        (img.width(), img.height())
    );
    let _ = std::fs::remove_file(&png);
    // The visible window (here the whole run) as a region of interest: the trace cut to it,
    // a column of its own beside the series (not one of its runs), its own reference.
    h.get_by_label("Add the visible window").click();
    h.run_steps(1);
    {
        let w = h.state_mut().pop_window().unwrap();
        settle(w, &ctx);
        assert_eq!(w.runs().len(), 3, "a region is not a run of the series");
        let [(name, roi)] = w.regions() else {
            panic!("one region: {:?}", w.regions().len());
        };
        assert!(name.starts_with("region "), "{name}");
        assert!(roi.ideal_us.is_ok(), "the cut is replayed as a whole run");
        assert!((roi.useful_max() - 11_484_151.34).abs() < 0.01);
    }
    h.run_steps(2);
    // The series' parallel efficiency at 2 processes, and the region's parallel and global
    // efficiencies (a run of its own: computation scalability 100%).
    assert_eq!(h.query_all_by_label("99.38").count(), 3);
    h.snapshot("pop_window_epoch_region");
}

#[test]
fn pop_metrics_window_of_an_openmp_run_shows_pypops_hybrid_metrics() {
    let _shared = crate::common::shared();
    let Some(dir) = shared_traces() else {
        return;
    };
    let mut h = pop_window_on(
        &dir.join("pypop_imagemagick_omp4/omp4.prv.gz"),
        (1200.0, 900.0),
    );
    let ctx = h.ctx.clone();
    {
        let w = h.state_mut().pop_window().expect("the window opened");
        settle(w, &ctx);
        assert!(w.runs()[0].1.openmp.is_some());
    }
    h.run_steps(3);
    // pypop's figures for this run: OpenMP region 99.5565, serial region 49.8454, parallel
    // 48.8539 (percent).
    h.get_by_label("OpenMP region efficiency");
    h.get_by_label("99.56");
    h.get_by_label("Serial region efficiency");
    h.get_by_label("49.85");
    // Parallel and global efficiency (a single run: computation scalability 100).
    assert_eq!(h.query_all_by_label("48.85").count(), 2);
    h.snapshot("pop_window_openmp");
}

/// paramedir's output for `case` (`trace/cfg-name.txt.gz` under `../shared/reference/paramedir`),
/// `traces` being `../shared/traces`.
pub fn paramedir_output(traces: &std::path::Path, case: &str) -> String {
    let mut text = String::new();
    flate2::read::GzDecoder::new(
        std::fs::File::open(traces.join("../reference/paramedir").join(case)).unwrap(),
    )
    .read_to_string(&mut text)
    .unwrap();
    text
}

#[test]
fn a_cfgs_windows_and_views_go_with_their_trace() {
    let _shared = crate::common::shared();
    let Some(dir) = shared_traces() else {
        return;
    };
    let mut h = on_prime(&dir);
    let ctx = h.ctx.clone();
    for cfg in ["mpi/analysis/mpi_stats.cfg", "mpi/views/MPI_call.cfg"] {
        h.state_mut()
            .open_cfg(&ctx, dir.join("../paraver_cfgs/paraver").join(cfg));
        h.state_mut().wait_for_cfg(&ctx);
        h.run_steps(2);
    }
    h.state_mut().open_pop(&ctx);
    h.run_steps(2);
    assert_eq!(h.state().histograms().len(), 1, "{}", h.state().status());
    assert_eq!(h.state().cfg_views().len(), 2, "{}", h.state().status());
    assert!(h.state_mut().pop_window().is_some());
    // The same window again is told apart by its cfg, then by a number.
    for _ in 0..2 {
        h.state_mut().open_cfg(
            &ctx,
            dir.join("../paraver_cfgs/paraver/mpi/views/MPI_call.cfg"),
        );
        h.state_mut().wait_for_cfg(&ctx);
    }
    let names: Vec<String> = h
        .state()
        .cfg_views()
        .iter()
        .map(|v| v.0.name.clone())
        .collect();
    // (mpi_stats.cfg's window is an "MPI call" too.)
    assert_eq!(
        names,
        [
            "MPI call",
            "MPI call (MPI_call.cfg)",
            "MPI call (MPI_call.cfg) 2",
            "MPI call (MPI_call.cfg) 3"
        ],
    );
    // Another trace: prime's histogram, views and POP window are not its.
    h.state_mut().open(
        &ctx,
        LoadSource::File(dir.join("pypop_epoch_scaling/epoch_2proc.prv.gz")),
    );
    h.state_mut().wait_for_load(&ctx);
    h.run_steps(2);
    let app = h.state();
    assert!(
        app.loaded()
            .unwrap()
            .trace
            .path
            .ends_with("epoch_2proc.prv.gz")
    );
    assert!(app.histograms().is_empty() && app.cfg_views().is_empty());
    assert!(h.state_mut().pop_window().is_none());
    // Its own cfg opens as on a fresh window.
    h.state_mut().open_cfg(
        &ctx,
        dir.join("../paraver_cfgs/paraver/mpi/analysis/mpi_stats.cfg"),
    );
    h.state_mut().wait_for_cfg(&ctx);
    h.run_steps(2);
    let t = &h.state().histograms()[0].analysis.histogram;
    assert_eq!(t.row_labels, ["THREAD 1.1.1", "THREAD 1.2.1"]);
}

#[test]
fn a_pop_series_takes_each_run_once_and_runs_can_be_removed() {
    let _shared = crate::common::shared();
    let Some((mut h, series)) = pop_window_on_epoch_2proc() else {
        return;
    };
    let ctx = h.ctx.clone();
    let procs = |w: &prvscope_viewer::pop_window::PopWindow| -> Vec<usize> {
        w.runs().iter().map(|(_, f)| f.processes).collect()
    };
    {
        let w = h.state_mut().pop_window().expect("the window opened");
        settle(w, &ctx);
        w.add_runs(
            &ctx,
            vec![
                series.join("epoch_1proc.prv.gz"),
                // The run already shown, by another path.
                series.join("../pypop_epoch_scaling/epoch_2proc.prv.gz"),
            ],
        );
        settle(w, &ctx);
        assert_eq!(procs(w), [1, 2]);
        // Both again: nothing is computed, and the window says why.
        w.add_runs(
            &ctx,
            vec![
                series.join("epoch_1proc.prv.gz"),
                series.join("epoch_2proc.prv.gz"),
            ],
        );
        assert!(!w.busy());
        assert_eq!(procs(w), [1, 2]);
    }
    h.run_steps(2);
    h.get_by_label_contains("already in the series: epoch_1proc.prv.gz, epoch_2proc.prv.gz");
    // The first run's × removes it; it can then be added again.
    h.get_all_by_label("×").next().expect("a × per run").click();
    h.run_steps(3);
    let w = h.state_mut().pop_window().unwrap();
    assert_eq!(procs(w), [2]);
    w.add_runs(&ctx, vec![series.join("epoch_1proc.prv.gz")]);
    settle(w, &ctx);
    assert_eq!(procs(w), [1, 2]);
}

/// The viewer (1400x800) on prime, loaded.
fn on_prime(dir: &std::path::Path) -> egui_kittest::Harness<'static, prvscope_viewer::app::App> {
    harness_with(
        LoadSource::File(dir.join("extrae_mpi_prime16/prime_v0.prv")),
        None,
        (1400.0, 800.0),
        false,
    )
}
