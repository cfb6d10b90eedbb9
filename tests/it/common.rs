//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};

use prvscope_import::{self as trace, LoadOptions, Trace};
use prvscope_store::TraceStore;

/// `../shared/traces` beside the repository, when it exists (CI always has it).
/// Without it, a test that needs it is skipped, except under `CI=true`, where it fails: a
/// green CI run always covers the real traces.
pub fn shared_traces() -> Option<PathBuf> {
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    shared_traces_at(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/traces"),
        ci,
    )
}

fn shared_traces_at(p: &Path, ci: bool) -> Option<PathBuf> {
    if p.is_dir() {
        Some(p.to_path_buf())
    } else if ci {
        panic!(
            "{} not found: CI must run the tests on the real traces (CI=true)",
            p.display()
        );
    } else {
        eprintln!("skipping: {} not found", p.display());
        None
    }
}

#[test]
#[should_panic(expected = "CI must run the tests on the real traces")]
fn missing_shared_traces_fail_under_ci() {
    shared_traces_at(Path::new("/nonexistent/shared/traces"), true);
}

#[test]
fn missing_shared_traces_are_skipped_outside_ci() {
    assert_eq!(
        shared_traces_at(Path::new("/nonexistent/shared/traces"), false),
        None
    );
}

/// Every trace in the folders of `root` (`../shared/traces`): plain, gzip and xz, sorted.
pub fn shared_trace_files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in std::fs::read_dir(root).unwrap() {
        let dir = dir.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&dir).unwrap() {
            let f = f.unwrap().path();
            let name = f.to_string_lossy();
            if name.ends_with(".prv") || name.ends_with(".prv.gz") || name.ends_with(".prv.xz") {
                out.push(f);
            }
        }
    }
    out.sort();
    out
}

pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

pub fn load(path: &Path) -> Trace {
    trace::load(path, &LoadOptions::default(), None)
        .unwrap_or_else(|e| panic!("loading {}: {e}", path.display()))
}

/// A generated trace of 16 threads (4 per task), about 4 MB, in a fresh folder `name`.
pub fn generated_16_threads(name: &str) -> PathBuf {
    generated_16_threads_of(name, 4 << 20)
}

/// A generated trace of 16 threads (4 per task), about `bytes`, in a fresh folder `name`.
pub fn generated_16_threads_of(name: &str, bytes: u64) -> PathBuf {
    let path = temp_dir(name).join("g.prv");
    prvscope_import::synth::generate(
        &path,
        &prvscope_import::synth::GenOptions {
            threads: 16,
            threads_per_task: 4,
            target_bytes: bytes,
            ..prvscope_import::synth::GenOptions::default()
        },
    )
    .unwrap();
    path
}

/// Runs `cmd`, fails the test with its standard error unless it succeeds, and gives its
/// standard output.
pub fn stdout_of(cmd: &mut std::process::Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A fresh temporary directory under the target directory.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes `bytes` to a file named `name` in a folder of this test thread's own.
pub fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
    let thread = format!("{:?}", std::thread::current().id());
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("files")
        .join(thread.replace(|c: char| !c.is_ascii_alphanumeric(), ""));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// Paraver's "last event value" intervals of one type on one row: (begin, end, value) for the
/// non-null stretches, up to the trace end.
pub fn value_intervals(store: &TraceStore, row: usize, ty: u32) -> Vec<(u64, u64, u64)> {
    let policy = store.null_policy();
    let events: Vec<(u64, u64)> = store.events_in(row, ty, 0, u64::MAX).collect();
    let mut out = Vec::new();
    for (i, &(t, v)) in events.iter().enumerate() {
        let end = events.get(i + 1).map_or(store.end_time(), |e| e.0);
        if !policy.is_null(v) && end > t {
            out.push((t, end, v));
        }
    }
    out
}

/// Every value of event type `ty` on every row, in row then time order.
pub fn all_values(store: &TraceStore, ty: u32) -> Vec<u64> {
    (0..store.threads().len())
        .flat_map(|r| store.events_in(r, ty, 0, u64::MAX).map(|e| e.1))
        .collect()
}

/// The test that times frames during a load holds this exclusively; every other test of
/// this binary holds it shared, so nothing else keeps the two cores busy while frames are
/// timed (the other tests still run in parallel with each other).
static TIMING: std::sync::RwLock<()> = std::sync::RwLock::new(());

/// For every test but the frame-timing one (a failed test does not block the others).
pub fn shared() -> std::sync::RwLockReadGuard<'static, ()> {
    TIMING
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// For the frame-timing test.
pub fn alone() -> std::sync::RwLockWriteGuard<'static, ()> {
    TIMING
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A click of the primary button at `p`: the pointer moves there, presses, releases.
pub fn click_at<S>(h: &mut egui_kittest::Harness<'_, S>, p: egui::Pos2) {
    h.event(egui::Event::PointerMoved(p));
    h.step();
    for pressed in [true, false] {
        h.event(egui::Event::PointerButton {
            pos: p,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        });
        h.step();
    }
}

/// The scope analysis of the whole of `t` with its scope types chosen as the viewer chooses
/// them.
pub fn whole_trace_scopes(
    t: &Trace,
) -> (
    prvscope_analysis::scopes::ScopeContext,
    prvscope_analysis::scopes::ScopeAnalysis,
) {
    use prvscope_analysis::scopes::{self, ScopeContext, ScopeQuery};
    let ctx = ScopeContext::new(t.pcf.as_ref(), &t.store);
    let types = scopes::auto_types(t.pcf.as_ref(), &t.store.event_types());
    let query = ScopeQuery {
        types,
        t0: 0,
        t1: t.header.end_time,
    };
    let a = scopes::analyze(&t.store, &ctx, &query, None).unwrap();
    (ctx, a)
}

/// A one-window cfg: a thread-level window of thread function `function` in nanoseconds over
/// the whole trace, its events filtered to `types` (all of them when empty).
pub fn thread_window_cfg(function: &str, types: &[u32]) -> prvscope_paraver::cfg::Cfg {
    let list: Vec<String> = types.iter().map(u32::to_string).collect();
    let (evt_type, filter) = if types.is_empty() {
        ("All", String::new())
    } else {
        (
            "=",
            format!(
                "window_filter_module evt_type {} {}\n",
                types.len(),
                list.join(" ")
            ),
        )
    };
    let text = format!(
        "#ParaverCFG\nConfigFile.Version: 3.4\nConfigFile.NumWindows: 1\n\n\
         < NEW DISPLAYING WINDOW W >\nwindow_name W\nwindow_type single\nwindow_id 1\n\
         window_units Nanoseconds\nwindow_level thread\nwindow_scale_relative 1.0\n\
         window_end_time_relative 1.0\nwindow_begin_time_relative 0.0\n\
         window_selected_functions {{ 14, {{ {{cpu, Active Thd}}, {{appl, Adding}}, \
         {{task, Adding}}, {{thread, {function}}}, {{node, Adding}}, {{system, Adding}}, \
         {{workload, Adding}}, {{from_obj, All}}, {{to_obj, All}}, {{tag_msg, All}}, \
         {{size_msg, All}}, {{bw_msg, All}}, {{evt_type, {evt_type}}}, {{evt_value, All}} }} }}\n\
         {filter}"
    );
    prvscope_paraver::cfg::Cfg::parse("window", &text).unwrap()
}

/// Nanoseconds per tick of the trace the viewer has open.
pub fn ns_per_tick(app: &prvscope_viewer::app::App) -> u64 {
    app.loaded()
        .expect("a trace is open")
        .trace
        .header
        .time_unit
        .ns_per_tick()
}

/// The text of a gzip file.
pub fn gunzip_text(path: &Path) -> String {
    let mut s = String::new();
    std::io::Read::read_to_string(
        &mut flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap()),
        &mut s,
    )
    .unwrap();
    s
}

/// The floating window titled `title` is shown (its title, not the dock's tab of it).
pub fn window_titled(h: &egui_kittest::Harness<'_, prvscope_viewer::app::App>, title: &str) {
    use egui_kittest::kittest::{NodeT, Queryable};
    assert!(
        h.query_all_by_label(title)
            .any(|n| n.accesskit_node().role() != egui::accesskit::Role::Button),
        "no window titled `{title}`"
    );
}
