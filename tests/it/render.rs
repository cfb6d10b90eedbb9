//! `prvscope render`: the picture at full zoom-out tells where each thread spends its time,
//! every pixel is what the naive per-pixel computation says, and the command line writes the
//! PNG and the CSV of what each pixel shows.

use std::process::Command;
use std::sync::Arc;

use prvscope_analysis::stats::{self, Column};
use prvscope_store::signal::{SignalSpec, ViewSignals};
use prvscope_store::summary::{self, DrawMode};
use prvscope_viewer::render::{self, RenderOptions};
use prvscope_viewer::rows::Level;

use crate::common::{load, shared_trace_files, shared_traces, temp_dir};

fn options(view: SignalSpec, width: u32, height: u32) -> RenderOptions {
    RenderOptions {
        view,
        mode: None,
        level: Level::Thread,
        from: None,
        to: None,
        width,
        height,
        comms: false,
        scale: prvscope_viewer::view::Scale::Fit,
        log: false,
    }
}

/// The check: a thread that spends at least 90% of its time in one value of the view
/// a trace opens on (its states, or ovni's thread-state type) shows that value in at least
/// 80% of its pixel columns at full zoom-out, in the view's default draw mode. (With the
/// dominant value per pixel this always holds: a column where the value holds less than half
/// the time must be paid for by others where it holds all of it, so at most 20% of columns.)
#[test]
fn a_thread_mostly_in_one_state_shows_it_at_full_zoom_out_on_every_shared_trace() {
    let _shared = crate::common::shared();
    let Some(root) = shared_traces() else { return };
    let width = 1400;
    let (mut checked, mut traces) = (0, 0);
    let mut omp4_main = None;
    for path in shared_trace_files(&root) {
        let t = load(&path);
        let view = prvscope_viewer::view::first_view(&t);
        let rows = t.store.threads().len();
        let r = render::render(&t, &options(view.clone(), width, (rows as u32).max(1) * 2))
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let signals = ViewSignals::build(Arc::clone(&t.store), view, r.config.zero_is_null);
        let (t0, t1) = (r.edges[0], *r.edges.last().unwrap());
        let table = stats::time_per_value_of_view(&signals, r.config.zero_is_null, t0, t1);
        traces += 1;
        for (i, item) in r.rows.iter().enumerate() {
            let thread = item.threads.start;
            let Some((&Column::Value(v), &ticks)) = table.rows[thread].iter().max_by_key(|e| e.1)
            else {
                continue;
            };
            if r.coloring.is_null(v) {
                // Mostly nothing (a legacy trace's zeros): nothing to show.
                continue;
            }
            let share = ticks as f64 / (t1 - t0) as f64;
            let shown =
                r.pixels[i].iter().filter(|p| p.value == v).count() as f64 / f64::from(width);
            if path.ends_with("omp4.prv.gz") && thread == 0 {
                omp4_main = Some((v, share, shown));
            }
            if share >= 0.9 {
                checked += 1;
                assert!(
                    shown >= 0.8,
                    "{} {}: {:.1}% of the time in value {v}, shown in {:.1}% of the columns ({})",
                    path.display(),
                    item.label,
                    share * 100.0,
                    shown * 100.0,
                    r.config.mode
                );
            }
        }
    }
    assert!(traces >= 18, "{traces} traces");
    assert!(
        checked >= 20,
        "only {checked} threads spend 90% in one value"
    );
    // The example: thread 1.1.1 of the ImageMagick run is 98.6% Running (1), drawn
    // all Synchronization when a pixel showed its largest value.
    let (v, share, shown) = omp4_main.expect("pypop_imagemagick_omp4 was checked");
    assert_eq!(v, 1, "Running");
    assert!((share - 0.986).abs() < 0.005, "{share}");
    assert!(shown > 0.95, "{shown}");
}

/// Every pixel of every row, in every draw mode, is what the naive per-pixel computation
/// (which visits every point) says; collapsed task rows too.
#[test]
fn rendered_pixels_equal_the_naive_computation_in_every_draw_mode() {
    let _shared = crate::common::shared();
    let Some(root) = shared_traces() else { return };
    for (file, view) in [
        (
            "extrae_omp_jacobi24/jacobi-2d-imper_v0.prv",
            SignalSpec::States,
        ),
        (
            "extrae_mpi_prime16/prime_v0.prv",
            SignalSpec::Events(vec![50_000_001, 50_000_002, 50_000_003]),
        ),
        ("pypop_imagemagick_omp4/omp4.prv.gz", SignalSpec::States),
    ] {
        let t = load(&root.join(file));
        for mode in DrawMode::ALL {
            // Rows that fit, and more rows than pixels (each pixel row summarises its rows'
            // threads: jacobi's 24 threads on 5 and 3 pixel rows, prime's 16, ImageMagick's 4
            // on 3).
            for (level, height) in [
                (Level::Thread, 200),
                (Level::Task, 200),
                (Level::Thread, 5),
                (Level::Thread, 3),
            ] {
                let mut o = options(view.clone(), 333, height);
                o.mode = Some(mode);
                o.level = level;
                let r = render::render(&t, &o).unwrap();
                let threads = t.store.thread_count();
                assert_eq!(r.rows.len(), r.pixels.len());
                assert!(r.rows.len() <= height as usize);
                if threads > height as usize {
                    assert_eq!(r.rows.len(), height as usize);
                }
                // Every thread on exactly one pixel row, in order.
                assert_eq!(r.rows[0].threads.start, 0);
                assert_eq!(r.rows.last().unwrap().threads.end, threads);
                assert!(
                    r.rows
                        .windows(2)
                        .all(|w| w[0].threads.end == w[1].threads.start)
                );
                let signals =
                    ViewSignals::build(Arc::clone(&t.store), view.clone(), r.config.zero_is_null);
                for (i, item) in r.rows.iter().enumerate() {
                    let steps: Vec<_> = item.threads.clone().map(|th| signals.steps(th)).collect();
                    let naive = if steps.len() == 1 {
                        summary::summarize_naive(&steps[0], &r.edges, mode)
                    } else {
                        summary::summarize_group_naive(&steps, &r.edges, mode)
                    };
                    assert_eq!(r.pixels[i], naive, "{file} {mode} {level:?} {}", item.label);
                }
            }
        }
    }
}

#[test]
fn render_writes_the_png_and_what_each_pixel_shows() {
    let _shared = crate::common::shared();
    let Some(root) = shared_traces() else { return };
    let dir = temp_dir("render-cli");
    let (png, csv) = (dir.join("prime.png"), dir.join("prime.csv"));
    let out = Command::new(env!("CARGO_BIN_EXE_prvscope"))
        .arg("render")
        .arg(root.join("extrae_mpi_prime16/prime_v0.prv"))
        .args(["--view", "mpi", "--width", "300", "--height", "160", "-o"])
        .arg(&png)
        .arg("--values-csv")
        .arg(&csv)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("16 rows x 300 columns, MPI call (dominant)"),
        "{stderr}"
    );
    assert!(stderr.contains("Communications:"), "{stderr}");
    let img = image::open(&png).unwrap().to_rgba8();
    assert_eq!(img.dimensions(), (300, 160));
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("row,label,column,begin,end,value,value_label")
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 16 * 300);
    assert_eq!(rows[0][..3], ["1", "THREAD 1.1.1", "0"]);
    assert_eq!(rows[0][3], "0");
    // Columns tile the trace: each begins where the previous one ends.
    for w in rows.windows(2).filter(|w| w[0][0] == w[1][0]) {
        assert_eq!(w[0][4], w[1][3]);
    }
    // Thread 1.1.1 ends in a long MPI_Reduce (as Paraver draws it), and empty cells are
    // where nothing is drawn.
    let last = rows.iter().rfind(|r| r[0] == "1").unwrap();
    assert_eq!(last[5..], ["9", "MPI_Reduce"]);
    assert!(rows.iter().any(|r| r[5].is_empty() && r[6].is_empty()));
    // Without communications the legend says nothing of them.
    let off = Command::new(env!("CARGO_BIN_EXE_prvscope"))
        .arg("render")
        .arg(root.join("extrae_mpi_prime16/prime_v0.prv"))
        .args(["--comms", "off", "--width", "300", "--height", "160", "-o"])
        .arg(dir.join("off.png"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&off.stderr);
    assert!(off.status.success(), "{stderr}");
    assert!(!stderr.contains("Communications:"), "{stderr}");
    // More threads than pixel rows: each pixel row summarises two threads.
    let small = Command::new(env!("CARGO_BIN_EXE_prvscope"))
        .arg("render")
        .arg(root.join("extrae_mpi_prime16/prime_v0.prv"))
        .args(["--height", "8", "-o"])
        .arg(dir.join("x.png"))
        .output()
        .unwrap();
    assert!(
        small.status.success(),
        "{}",
        String::from_utf8_lossy(&small.stderr)
    );
    assert_eq!(
        image::open(dir.join("x.png")).unwrap().height(),
        8,
        "the picture is as tall as asked"
    );
    // CPU rows are not summarised: too many for the height is refused with a message.
    let bad = Command::new(env!("CARGO_BIN_EXE_prvscope"))
        .arg("render")
        .arg(root.join("extrae_mpi_prime16/prime_v0.prv"))
        .args(["--level", "cpu", "--height", "4", "-o"])
        .arg(dir.join("x.png"))
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("rows do not fit in 4 pixels"),
        "{}",
        String::from_utf8_lossy(&bad.stderr)
    );
}

/// A counter's gradient fits the window (the default): its ends are the smallest and
/// largest values the picture draws (a naive scan of its pixels), every row pixel has the
/// colour of its value on that scale, and the imagemagick run's `PAPI_TOT_CYC`, one flat
/// green on the whole trace's scale (a value that holds a few microseconds spans it), shows
/// its spread; the logarithmic gradient shows more of it still.
#[test]
fn a_counter_view_fits_its_scale_to_the_window() {
    use prvscope_viewer::view::Scale;
    let _shared = crate::common::shared();
    let Some(root) = shared_traces() else { return };
    let t = load(&root.join("pypop_imagemagick_omp4/omp4.prv.gz"));
    let end = t.header.end_time;
    let distinct = |scale: Scale, log: bool, from: Option<u64>, to: Option<u64>| {
        let mut o = options(SignalSpec::Events(vec![42_000_059]), 1400, 400);
        (o.scale, o.log, o.from, o.to) = (scale, log, from, to);
        let r = render::render(&t, &o).unwrap();
        let drawn: Vec<u64> = r
            .pixels
            .iter()
            .flat_map(|row| row.iter().take(1400).map(|p| p.value))
            .filter(|&v| !r.coloring.is_null(v))
            .collect();
        let (lo, hi) = (*drawn.iter().min().unwrap(), *drawn.iter().max().unwrap());
        if scale == Scale::Fit {
            assert_eq!(r.coloring.range(), (lo, hi), "{from:?}..{to:?}");
        }
        let mut colours = std::collections::BTreeSet::new();
        let rows = r.rows.len() as u32;
        for (i, row) in r.pixels.iter().enumerate() {
            let y = (2 * i as u32 + 1) * 400 / (2 * rows);
            for (x, p) in row.iter().take(1400).enumerate() {
                let Some(c) = r.coloring.color(p.value) else {
                    continue;
                };
                let want = if log {
                    c
                } else {
                    let (a, b) = r.coloring.range();
                    let f = (p.value.saturating_sub(a) as f64 / (b - a) as f64).clamp(0.0, 1.0);
                    prvscope_viewer::theme::gradient_at(f)
                };
                assert_eq!(c, want, "row {i} column {x}");
                let px = r.image.get_pixel(x as u32, y).0;
                assert_eq!(px, [c.r(), c.g(), c.b(), 255], "row {i} column {x}");
                colours.insert(px);
            }
        }
        colours.len()
    };
    let whole = distinct(Scale::Whole, false, None, None);
    let fit = distinct(Scale::Fit, false, None, None);
    let log = distinct(Scale::Fit, true, None, None);
    eprintln!("PAPI_TOT_CYC colours: whole trace's scale {whole}, fitted {fit}, logarithmic {log}");
    assert!(whole <= 3, "{whole}");
    assert!(fit >= 20, "{fit}");
    assert!(log > fit, "{log} vs {fit}");
    // A part of the trace fits its own values.
    distinct(Scale::Fit, false, Some(end / 2), Some(end / 2 + end / 10));
}

/// Communications never hide the states: on a generated trace at full zoom (thousands of
/// messages in 1400 columns) they are too many for lines, and each row's bottom band shows
/// the messages it sends or receives per pixel column, which a naive count of the store's
/// messages gives column for column; at least 70% of the rows' pixels still show their
/// state. A narrow window of few messages draws them as lines.
#[test]
fn dense_communications_are_a_band_per_row_and_leave_the_states_visible() {
    let _shared = crate::common::shared();
    let path = crate::common::generated_16_threads_of("comm-density", 4 << 20);
    let t = load(&path);
    let (width, height) = (1400u32, 640u32);
    let mut o = options(SignalSpec::States, width, height);
    o.comms = true;
    let r = render::render(&t, &o).unwrap();
    let d = r.density.as_ref().expect("a density at full zoom");
    assert!(r.comms.as_ref().unwrap().bundles.is_empty());
    // The naive count: every message sent in the window, at its send column on the
    // sender's row and at its receive column (when in the window) on the receiver's.
    let (t0, t1) = (r.edges[0], *r.edges.last().unwrap());
    let closed = t1 >= t.header.end_time;
    let span = t1 - t0;
    let column = |x: u64| -> Option<usize> {
        let inside = x >= t0 && (x < t1 || (closed && x == t1));
        inside.then(|| {
            ((u128::from(x - t0) * u128::from(width) / u128::from(span)) as usize)
                .min(width as usize - 1)
        })
    };
    let mut naive = vec![vec![0u32; width as usize]; r.rows.len()];
    let mut messages = 0;
    for c in t.store.comms() {
        if column(c.lsend).is_none() {
            continue;
        }
        messages += 1;
        naive[c.send_row as usize][column(c.lsend).unwrap()] += 1;
        if let Some(k) = column(c.lrecv) {
            naive[c.recv_row as usize][k] += 1;
        }
    }
    assert_eq!(d.messages, messages);
    for (row, counts) in &d.rows {
        assert_eq!(counts, &naive[*row as usize], "row {row}");
    }
    // The rows' pixels that show their state.
    let (mut state, mut all) = (0u64, 0u64);
    let rows = r.rows.len() as u32;
    for (i, row) in r.pixels.iter().enumerate() {
        let (y0, y1) = (i as u32 * height / rows, (i as u32 + 1) * height / rows);
        for y in y0..y1 {
            for (x, p) in row.iter().take(width as usize).enumerate() {
                all += 1;
                if let Some(c) = r.coloring.color(p.value)
                    && r.image.get_pixel(x as u32, y).0 == [c.r(), c.g(), c.b(), 255]
                {
                    state += 1;
                }
            }
        }
    }
    let share = state as f64 / all as f64;
    eprintln!(
        "{messages} messages as a density; {:.1}% of the rows' pixels show states",
        share * 100.0
    );
    assert!(share >= 0.7, "{share}");
    // Rows of 3 pixels have no room for a band: the picture is the states' alone, and the
    // legend says why no band is drawn.
    let mut thin = options(SignalSpec::States, width, 3 * r.rows.len() as u32);
    thin.comms = true;
    let banded = render::render(&t, &thin).unwrap();
    assert!(banded.density.is_some());
    thin.comms = false;
    let plain = render::render(&t, &thin).unwrap();
    assert!(
        banded.image == plain.image,
        "a band drawn over 3-pixel rows"
    );
    let legend = prvscope_viewer::frame::density_legend(banded.density.as_ref().unwrap(), 3.0);
    assert!(legend.contains("no room"), "{legend}");
    // A window of a few messages draws lines.
    let first = t.store.comms().iter().map(|c| c.lsend).min().unwrap();
    o.from = Some(first);
    o.to = Some(first + span / 5000);
    let r = render::render(&t, &o).unwrap();
    assert!(r.density.is_none());
    let c = r.comms.unwrap();
    assert!(c.messages > 0 && !c.bundles.is_empty(), "{}", c.messages);
}
