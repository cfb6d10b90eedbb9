//! Breakdown windows: opened from the scope table, the source view's bars or a point of a
//! thread; their numbers against the scope analysis; CSV and PNG exports; grouping by task;
//! drawn while the scope panel is hidden; and a snapshot of one window.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use prvscope_analysis::scopes::{Category, ScopeAnalysis, ScopeKey, ScopeStats};
use prvscope_import::{LoadOptions, LoadReport, Pcf, Trace};
use prvscope_viewer::app::App;
use prvscope_viewer::breakdown::{MAX_BARS, Tab};
use prvscope_viewer::frame::TimeWindow;
use prvscope_viewer::loader::LoadSource;
use prvscope_viewer::scope_panel::ScopePanel;
use prvscope_viewer::settings::RecentFiles;

use crate::common::{load, shared_traces, temp_dir};
use crate::viewer::harness_with;

/// A trace of `../shared/traces` in the viewer with its scopes analysed.
fn app_on(path: &str, show_scopes: bool) -> Option<Harness<'static, App>> {
    let dir = shared_traces()?;
    // Tall enough for the scope panel (a fifth of the window by default) to show the rows
    // and bars the tests click.
    let mut h = harness_with(
        LoadSource::File(dir.join(path)),
        None,
        (1600.0, 1200.0),
        show_scopes,
    );
    settle(&mut h);
    Some(h)
}

/// Lets the panel's worker threads finish and the frames catch up.
fn settle(h: &mut Harness<'_, App>) {
    for _ in 0..3 {
        h.state_mut().loaded_mut().unwrap().scopes.wait();
        h.run_steps(3);
    }
}

fn analysis(h: &Harness<'_, App>) -> Arc<ScopeAnalysis> {
    Arc::clone(h.state().loaded().unwrap().scopes.analysis().unwrap())
}

fn scope(a: &ScopeAnalysis, name: &str) -> ScopeStats {
    a.scopes
        .iter()
        .find(|s| s.name == name)
        .cloned()
        .unwrap_or_else(|| panic!("no scope {name}"))
}

/// The window of `key`'s per-thread totals and its per-state totals.
fn totals(p: &ScopePanel, key: ScopeKey) -> (Vec<u64>, BTreeMap<Category, u64>) {
    let b = p
        .breakdowns()
        .get(key)
        .and_then(|w| w.breakdown())
        .expect("a breakdown computed");
    let rows = b.per_thread.len();
    (
        (0..rows).map(|r| b.thread_total(r)).collect(),
        b.per_category.clone(),
    )
}

#[test]
fn clicking_a_table_row_on_prime_opens_its_breakdown_with_the_scopes_time_per_thread() {
    let _shared = crate::common::shared();
    let Some(mut h) = app_on("extrae_mpi_prime16/prime_v0.prv", true) else {
        return;
    };
    // No source file: the table alone lists the MPI calls.
    assert_eq!(h.state().loaded().unwrap().scopes.file(), None);
    assert_eq!(h.state().loaded().unwrap().scopes.breakdown_count(), 0);
    h.get_by_label("MPI_Reduce").click();
    h.run_steps(3);
    let a = analysis(&h);
    let reduce = scope(&a, "MPI_Reduce");
    let p = &h.state().loaded().unwrap().scopes;
    assert_eq!(p.breakdown_count(), 1);
    assert_eq!(p.selected(), Some(reduce.key), "the row is selected too");
    let w = p.breakdowns().get(reduce.key).unwrap();
    assert_eq!(
        w.window(),
        Some(prvscope_viewer::frame::TimeWindow::from_bounds(a.t0, a.t1))
    );
    let (per_thread, per_state) = totals(p, reduce.key);
    assert_eq!(per_thread, reduce.inclusive_per_thread);
    assert_eq!(per_state, reduce.inclusive_per_category);
    assert!(per_thread.iter().filter(|&&t| t > 0).count() >= 2);
    crate::common::window_titled(&h, "Breakdown: MPI_Reduce");
    h.get_by_label_contains("visible window: ");
    // A second scope opens a second window beside the first; clicking the first again
    // brings its window back instead of opening another.
    h.get_by_label("MPI_Init").click();
    h.run_steps(3);
    assert_eq!(h.state().loaded().unwrap().scopes.breakdown_count(), 2);
    crate::common::window_titled(&h, "Breakdown: MPI_Init");
    h.get_all_by_label("MPI_Reduce")
        .next()
        .expect("the table row")
        .click();
    h.run_steps(3);
    assert_eq!(h.state().loaded().unwrap().scopes.breakdown_count(), 2);
}

#[test]
fn the_breakdown_csv_has_a_row_per_thread_and_state_of_the_scope() {
    let _shared = crate::common::shared();
    let Some(mut h) = app_on("extrae_mpi_prime16/prime_v0.prv", false) else {
        return;
    };
    let a = analysis(&h);
    let reduce = scope(&a, "MPI_Reduce");
    let p = &mut h.state_mut().loaded_mut().unwrap().scopes;
    p.open_breakdown(reduce.key);
    h.run_steps(2);
    let path = temp_dir("breakdown-csv").join("reduce.csv");
    let p = &mut h.state_mut().loaded_mut().unwrap().scopes;
    p.export_breakdown_csv(reduce.key, &path).unwrap();
    let facts = p.facts().clone();
    let message = p.breakdowns().get(reduce.key).unwrap().message().unwrap();
    assert_eq!(message, format!("saved {}", path.display()));
    let csv = std::fs::read_to_string(&path).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("thread,state,ticks,percent"));
    let mut want = Vec::new();
    for (row, name) in &facts.threads {
        for (c, ticks) in per_category_of_thread(&a, reduce.key, *row) {
            let pct = 100.0 * ticks as f64 / a.span() as f64;
            want.push(format!(
                "{name},{},{ticks},{pct:.4}",
                facts.category_label(c)
            ));
        }
    }
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows, want);
    assert!(rows.len() >= 2);
    // The ticks add up to the scope's inclusive time.
    let sum: u64 = rows
        .iter()
        .map(|r| r.split(',').nth(2).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(sum, reduce.inclusive);
    // A file that cannot be written is an error, said in the window.
    let p = &mut h.state_mut().loaded_mut().unwrap().scopes;
    let bad = Path::new("/nonexistent-folder/reduce.csv");
    assert!(p.export_breakdown_csv(reduce.key, bad).is_err());
    let message = p.breakdowns().get(reduce.key).unwrap().message().unwrap();
    assert!(message.starts_with("could not save /nonexistent-folder/reduce.csv"));
    h.run_steps(2);
    h.get_by_label_contains("could not save /nonexistent-folder/reduce.csv");
}

/// The scope's time on one thread per category, from the analysis's cells (independently of
/// the breakdown).
fn per_category_of_thread(a: &ScopeAnalysis, key: ScopeKey, row: usize) -> Vec<(Category, u64)> {
    let i = a.find(key).unwrap();
    let mut out: BTreeMap<Category, u64> = BTreeMap::new();
    for c in &a.cells {
        if c.thread as usize == row && c.ticks > 0 && a.blocks[c.block].path.contains(&i) {
            *out.entry(c.category).or_insert(0) += c.ticks;
        }
    }
    out.into_iter().collect()
}

#[test]
fn the_breakdown_png_is_the_window_and_the_windows_draw_with_the_panel_hidden() {
    let _shared = crate::common::shared();
    let Some(mut h) = app_on("extrae_mpi_prime16/prime_v0.prv", false) else {
        return;
    };
    let a = analysis(&h);
    let key = scope(&a, "MPI_Reduce").key;
    h.state_mut()
        .loaded_mut()
        .unwrap()
        .scopes
        .open_breakdown(key);
    h.run_steps(3);
    // The panel is hidden, its window is not.
    assert!(h.query_by_label("Scope types").is_none());
    crate::common::window_titled(&h, "Breakdown: MPI_Reduce");
    let png = temp_dir("breakdown-png").join("reduce.png");
    let p = &mut h.state_mut().loaded_mut().unwrap().scopes;
    p.breakdowns_mut()
        .get_mut(key)
        .unwrap()
        .export_png(png.clone());
    h.run_steps(4);
    let w = h
        .state()
        .loaded()
        .unwrap()
        .scopes
        .breakdowns()
        .get(key)
        .unwrap();
    assert_eq!(
        w.message(),
        Some(format!("saved {}", png.display()).as_str())
    );
    let img = image::open(&png).unwrap().to_rgba8();
    let ppp = h.ctx.pixels_per_point();
    let r = w.rect();
    assert!(
        (img.width() as f32 - r.width() * ppp).abs() <= 2.0
            && (img.height() as f32 - r.height() * ppp).abs() <= 2.0,
        "{:?} vs {r:?}",
        img.dimensions()
    );
}

/// A thread and a tick inside its first task on `ovni_nanos6-task-types` (the innermost scope
/// there is the task's subsystem).
fn ovni_task_point() -> (usize, u64) {
    let t = load(
        &shared_traces()
            .unwrap()
            .join("ovni_nanos6-task-types/thread.prv"),
    );
    (0..t.store.threads().len())
        .find_map(|row| {
            let task = t.store.events_in(row, 36, 0, u64::MAX).find(|e| e.1 != 0)?;
            Some((row, task.0 + 1))
        })
        .expect("a task on some thread")
}

#[test]
fn a_breakdown_on_an_ovni_trace_opens_at_a_point_of_a_thread() {
    let _shared = crate::common::shared();
    let Some(mut h) = app_on("ovni_nanos6-task-types/thread.prv", true) else {
        return;
    };
    let a = analysis(&h);
    // A point inside a task: the innermost scope there is its subsystem.
    let (row, at) = ovni_task_point();
    let p = &mut h.state_mut().loaded_mut().unwrap().scopes;
    let key = p.open_breakdown_at(row, at).expect("a scope open there");
    assert_eq!(key.ty, 37, "the subsystem, inside the task type");
    assert_eq!(
        p.open_breakdown_at(row, 0),
        None,
        "nothing open at the start"
    );
    h.run_steps(3);
    let s = a.scopes.iter().find(|s| s.key == key).unwrap().clone();
    let p = &h.state().loaded().unwrap().scopes;
    assert_eq!(p.breakdown_count(), 1);
    let (per_thread, per_state) = totals(p, key);
    assert_eq!(per_thread, s.inclusive_per_thread);
    assert_eq!(per_state, s.inclusive_per_category);
    h.get_by_label(&format!("Breakdown: {}", s.name));
}

const PCF: &str = "STATES\n0 Idle\n1 Running\n5 Synchronization\n\n\
EVENT_TYPE\n0 60000019 User function\nVALUES\n1 main\n2 solve\n\n";

/// 10 tasks of 8 threads: main over the whole run, solve over a part of it that grows with
/// the thread, and the threads Running, then in Synchronization.
fn eighty_threads() -> Trace {
    let tasks = ["8:1"; 10].join(",");
    let mut body = String::new();
    for task in 1..=10 {
        for th in 1..=8 {
            let row = (task - 1) * 8 + th;
            let p = format!("{row}:1:{task}:{th}");
            let _ = write!(
                body,
                "1:{p}:0:600:1\n1:{p}:600:1000:5\n2:{p}:0:60000019:1\n2:{p}:100:60000019:2\n\
2:{p}:{}:60000019:0\n",
                100 + 10 * row
            );
        }
    }
    let text = format!("#Paraver (01/01/2026 at 00:00):1000_ns:1(80):1:10({tasks})\n{body}");
    let pcf = Pcf::parse(
        PCF.as_bytes(),
        Path::new("b.pcf"),
        &mut LoadReport::default(),
    );
    let t = prvscope_import::load_bytes(
        Path::new("b.prv"),
        text.as_bytes(),
        Some(pcf),
        &LoadOptions::default(),
    )
    .unwrap();
    assert!(t.report.is_empty(), "{:?}", t.report);
    t
}

/// A panel on `trace` with its whole-run analysis done, drawn in a bare harness with only
/// its breakdown windows.
fn breakdown_harness(trace: &Trace, size: (f32, f32)) -> Harness<'static, ScopePanel> {
    let panel = ScopePanel::new(trace, &RecentFiles::default());
    let window = TimeWindow {
        start: 0,
        span: trace.header.end_time,
    };
    let trace = trace.clone();
    let mut h = Harness::builder()
        .with_size(egui::vec2(size.0, size.1))
        .build_ui_state(
            move |ui, p: &mut ScopePanel| {
                p.update(ui.ctx(), window);
                let seen = prvscope_viewer::windows::Seen {
                    trace: &trace,
                    visible: window,
                    several: false,
                };
                p.breakdowns_ui(ui.ctx(), &seen);
            },
            panel,
        );
    for _ in 0..3 {
        h.run_steps(1);
        h.state_mut().wait();
    }
    h.run_steps(2);
    assert!(h.state().analysis().is_some());
    h
}

#[test]
fn more_than_64_threads_are_drawn_per_task() {
    let _shared = crate::common::shared();
    let trace = eighty_threads();
    let mut h = breakdown_harness(&trace, (800.0, 600.0));
    let a = Arc::clone(h.state().analysis().unwrap());
    let solve = scope(&a, "solve");
    h.state_mut().open_breakdown(solve.key);
    h.run_steps(3);
    let p = h.state();
    let groups = p.facts().groups.as_ref().expect("grouped");
    assert!(p.facts().threads.len() > MAX_BARS);
    assert_eq!(groups.by, "task");
    assert_eq!(groups.groups.len(), 10);
    assert_eq!(groups.groups[0].0, "TASK 1.1");
    let b = p.breakdowns().get(solve.key).unwrap().breakdown().unwrap();
    let bars = p.facts().bars(b);
    assert_eq!(bars.len(), 10);
    for (k, bar) in bars.iter().enumerate() {
        // solve runs [100, 100 + 10 row) on each of the task's 8 threads.
        let want: u64 = (k * 8 + 1..=k * 8 + 8).map(|row| 10 * row as u64).sum();
        assert_eq!(bar.ticks.values().sum::<u64>(), want, "{}", bar.label);
        assert_eq!(bar.threads, 8);
    }
    let total: u64 = bars.iter().flat_map(|b| b.ticks.values()).sum();
    assert_eq!(total, solve.inclusive);
    h.get_by_label("Breakdown: solve");
}

#[test]
fn snapshots_of_breakdown_windows_on_the_demo() {
    let _shared = crate::common::shared();
    // The demo: reduce_residual computes, then waits for messages and in collectives; per
    // thread stacked by state, as shares of the window, then per state.
    let demo = prvscope_viewer::loader::load_demo(&LoadOptions::default()).unwrap();
    let mut h = breakdown_harness(&demo, (800.0, 560.0));
    let a = Arc::clone(h.state().analysis().unwrap());
    let key = scope(&a, "reduce_residual").key;
    h.state_mut().open_breakdown(key);
    h.state_mut()
        .breakdowns_mut()
        .get_mut(key)
        .unwrap()
        .set_percent(true);
    h.run_steps(4);
    h.get_by_label("Running");
    h.get_by_label("Synchronization");
    h.snapshot("breakdown_demo_reduce_residual_percent");
    // In time, the pointer over the first thread's Running part: its numbers in a tooltip.
    h.state_mut()
        .breakdowns_mut()
        .get_mut(key)
        .unwrap()
        .set_percent(false);
    h.run_steps(2);
    h.hover_at(egui::pos2(400.0, 209.0));
    h.run_steps(4);
    h.get_by_label_contains("THREAD 1.1.1: ");
    h.get_by_label_contains("> Running: ");
    h.get_by_label_contains("Synchronization: ");
    h.snapshot("breakdown_demo_reduce_residual_hover");
    h.hover_at(egui::pos2(790.0, 550.0));
    h.state_mut().open_breakdown_on(key, Tab::States);
    h.state_mut()
        .breakdowns_mut()
        .get_mut(key)
        .unwrap()
        .set_percent(false);
    h.run_steps(4);
    h.snapshot("breakdown_demo_reduce_residual_states");
}

#[test]
fn snapshot_of_a_breakdown_window_on_prime() {
    let _shared = crate::common::shared();
    // prime: 16 MPI tasks in MPI_Reduce, in time.
    let Some(dir) = shared_traces() else { return };
    let trace = load(&dir.join("extrae_mpi_prime16/prime_v0.prv"));
    let mut h = breakdown_harness(&trace, (800.0, 660.0));
    let a = Arc::clone(h.state().analysis().unwrap());
    h.state_mut().open_breakdown(scope(&a, "MPI_Reduce").key);
    h.run_steps(4);
    h.snapshot("breakdown_prime_mpi_reduce");
}

/// An ovni trace of 128 threads in one task (ovni's own `.pcf`, the run generated): the
/// scope's time is broken down per thread, a page of threads at a time, stacked by the
/// `Thread: thread state` type the timeline opens on (it broke down as one bar, "TASK 1.1",
/// all of it "no state").
#[test]
fn an_ovni_breakdown_shows_its_threads_by_thread_state() {
    let _shared = crate::common::shared();
    let Some(dir) = shared_traces() else { return };
    let out = temp_dir("ovni-128");
    let threads = 128u64;
    let end = 2_000_000u64;
    let mut text = format!("#Paraver (19/01/38 at 03:14):{end:020}_ns:0:1:1({threads}:1)\n");
    for th in 1..=threads {
        // Running, then Paused, then Running; subsystem 3 (a task body) over [t, t + d).
        let (a, b) = (10_000 * th, 10_000 * th + 200_000);
        let _ = writeln!(text, "2:0:1:1:{th}:0:4:1");
        let _ = writeln!(text, "2:0:1:1:{th}:{a}:37:3");
        let _ = writeln!(text, "2:0:1:1:{th}:{}:4:2", a + 50_000);
        let _ = writeln!(text, "2:0:1:1:{th}:{}:4:1", a + 80_000);
        let _ = writeln!(text, "2:0:1:1:{th}:{b}:37:0");
    }
    // Events sorted by time, as ovni writes them.
    let mut lines: Vec<&str> = text.lines().skip(1).collect();
    lines.sort_by_key(|l| l.split(':').nth(5).unwrap().parse::<u64>().unwrap());
    let body = lines.join("\n") + "\n";
    let header = text.lines().next().unwrap();
    let prv = out.join("thread.prv");
    std::fs::write(&prv, format!("{header}\n{body}")).unwrap();
    std::fs::copy(
        dir.join("ovni_nanos6-task-types/thread.pcf"),
        out.join("thread.pcf"),
    )
    .unwrap();
    let mut h = harness_with(LoadSource::File(prv), None, (1600.0, 1000.0), true);
    settle(&mut h);
    let a = analysis(&h);
    let body_scope = a
        .scopes
        .iter()
        .find(|s| s.key.ty == 37 && s.key.value == 3)
        .expect("the subsystem scope")
        .clone();
    // 200,000 ns per thread: 170,000 Running, 30,000 Paused.
    assert_eq!(
        body_scope.inclusive_per_category,
        BTreeMap::from([
            (Category::State(1), 170_000 * threads),
            (Category::State(2), 30_000 * threads)
        ])
    );
    h.state_mut()
        .loaded_mut()
        .unwrap()
        .scopes
        .open_breakdown(body_scope.key);
    h.run_steps(4);
    let p = &h.state().loaded().unwrap().scopes;
    let facts = p.facts();
    assert!(facts.groups.is_none(), "one task: its threads, not one bar");
    assert_eq!(facts.pages(), 2);
    assert_eq!(facts.category_label(Category::State(1)), "Running");
    assert_eq!(facts.category_label(Category::State(2)), "Paused");
    let (per_thread, _) = totals(p, body_scope.key);
    assert_eq!(per_thread, vec![200_000; threads as usize]);
    h.get_by_label("threads 1–64 of 128");
    h.snapshot("breakdown_ovni_128_threads");
}

/// A double-click on a thread of the timeline asks the app, through the widgets' command
/// channel, for the breakdown of the scope open there; where none is open, the status line
/// says so.
#[test]
fn a_double_click_on_the_timeline_opens_the_breakdown_of_the_scope_there() {
    let _shared = crate::common::shared();
    let Some(mut h) = app_on("ovni_nanos6-task-types/thread.prv", true) else {
        return;
    };
    let (row, at) = ovni_task_point();
    let double_click = |h: &mut Harness<'static, App>, tick: u64| {
        let tl = &h.state().loaded().unwrap().timeline;
        let (area, w) = (tl.area(), tl.window());
        let y = area.top() + (row - tl.first_row()) as f32 * tl.row_height() + 2.0;
        let p = egui::pos2(w.x_from_time(tick as f64, area), y);
        let button = |pressed| egui::Event::PointerButton {
            pos: p,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        };
        h.event(egui::Event::PointerMoved(p));
        h.run_steps(1);
        for e in [button(true), button(false), button(true), button(false)] {
            h.event(e);
        }
        h.run_steps(3);
    };
    // The harness steps a quarter of a second a frame and puts the two clicks two frames
    // apart; the double-clicks themselves are a second apart.
    h.ctx
        .options_mut(|o| o.input_options.max_double_click_delay = 0.6);
    // At the very start nothing is open: no window, and the status line says why.
    double_click(&mut h, 0);
    assert_eq!(h.state().loaded().unwrap().scopes.breakdown_count(), 0);
    assert!(
        h.state().status().starts_with("no scope open on"),
        "{}",
        h.state().status()
    );
    // Inside a task: its scope's breakdown.
    double_click(&mut h, at);
    assert_eq!(h.state().loaded().unwrap().scopes.breakdown_count(), 1);
}
