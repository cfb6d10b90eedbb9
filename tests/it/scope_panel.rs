//! The scope panel driven by `egui_kittest` on the demo trace: the source with heat, the
//! scope table, the breakdown windows its bars open, the profile map, the link to the
//! timeline, and a snapshot of the panel beside the timeline.

use egui::accesskit::Role;
use egui::{Event, Modifiers, PointerButton, pos2};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use prvscope_analysis::scopes::{self, ScopeAnalysis, ScopeContext, ScopeStats};
use prvscope_viewer::app::App;
use prvscope_viewer::breakdown::Tab;
use prvscope_viewer::loader::LoadSource;
use prvscope_viewer::settings::Settings;
use std::fmt::Write as _;

use crate::viewer::harness_with;

/// The demo with the scope panel, tall enough for the panel (a fifth of the window by default)
/// to show the rows and bars the tests click.
fn demo() -> Harness<'static, App> {
    let mut h = harness_with(LoadSource::Demo, None, (1600.0, 1200.0), true);
    settle(&mut h);
    h
}

/// Lets the panel's worker threads finish and the frames catch up.
fn settle(h: &mut Harness<'_, App>) {
    for _ in 0..3 {
        h.state_mut().loaded_mut().unwrap().scopes.wait();
        h.run_steps(3);
    }
}

/// A trace of `../shared/traces` in the viewer with its scopes analysed, and that folder.
fn shared_trace(path: &str) -> Option<(std::path::PathBuf, Harness<'static, App>)> {
    let dir = crate::common::shared_traces()?;
    let source = LoadSource::File(dir.join(path));
    let mut h = harness_with(source, None, (1600.0, 900.0), true);
    settle(&mut h);
    Some((dir, h))
}

/// The panel's latest analysis.
fn analysis(h: &Harness<'_, App>) -> std::sync::Arc<ScopeAnalysis> {
    h.state()
        .loaded()
        .unwrap()
        .scopes
        .analysis()
        .cloned()
        .unwrap()
}

fn scope(h: &Harness<'_, App>, name: &str) -> ScopeStats {
    let a = analysis(h);
    a.scopes.iter().find(|s| s.name == name).cloned().unwrap()
}

#[test]
fn the_demo_opens_with_its_source_heat_and_scope_table() {
    let _shared = crate::common::shared();
    let h = demo();
    h.get_by_label("Scopes");
    // The source file of the user functions, found inside the program, with heat from each
    // function's exclusive time on its first line.
    h.get_by_label("line heat: exclusive time of each scope on its first line");
    // The table lists every function with its location.
    for (name, loc) in [
        ("main", "demo.c:10"),
        ("solve", "demo.c:24"),
        ("compute_flux", "demo.c:58"),
    ] {
        h.get_by_label(name);
        h.get_by_label(loc);
    }
    // The statistics cover the visible window, which is the whole trace.
    let p = &h.state().loaded().unwrap().scopes;
    let a = p.analysis().unwrap();
    let end = h.state().loaded().unwrap().timeline.window().end();
    assert_eq!((a.t0, a.t1), (0, end));
    assert_eq!(p.file(), Some("demo.c"));
    assert_eq!(p.first_visible_line(), 1);
    assert_eq!(p.line_count(), 102);
}

#[test]
fn clicking_a_scope_bar_opens_its_breakdown_per_thread_or_per_state() {
    let _shared = crate::common::shared();
    let mut h = demo();
    // Choosing reduce_residual (demo.c:77) in the table scrolls the source to it and opens
    // its breakdown.
    h.get_by_label("reduce_residual").click();
    settle(&mut h);
    assert!(h.state().loaded().unwrap().scopes.first_visible_line() >= 60);
    let s = scope(&h, "reduce_residual");
    let breakdown_tab = |h: &Harness<'_, App>| {
        let p = &h.state().loaded().unwrap().scopes;
        assert_eq!(p.breakdown_count(), 1, "one window per scope");
        p.breakdowns().get(s.key).unwrap().tab()
    };
    assert_eq!(breakdown_tab(&h), Tab::Threads);
    crate::common::window_titled(&h, "Breakdown: reduce_residual");
    // Its category bar shows the same window per state, its scope bar per thread again.
    h.get_by_label("category bar reduce_residual").click();
    h.run_steps(3);
    assert_eq!(breakdown_tab(&h), Tab::States);
    h.get_by_label("scope bar reduce_residual").click();
    h.run_steps(3);
    assert_eq!(breakdown_tab(&h), Tab::Threads);
    // It computes, then waits in a collective or for a message: several categories, and the
    // window's numbers are the scope's.
    assert!(
        s.inclusive_per_category.len() >= 2,
        "{:?}",
        s.inclusive_per_category
    );
    let p = &h.state().loaded().unwrap().scopes;
    let b = p.breakdowns().get(s.key).unwrap().breakdown().unwrap();
    assert_eq!(b.per_category, s.inclusive_per_category);
    let per_thread: Vec<u64> = (0..s.inclusive_per_thread.len())
        .map(|r| b.thread_total(r))
        .collect();
    assert_eq!(per_thread, s.inclusive_per_thread);
    for &c in s.inclusive_per_category.keys() {
        let label = p.facts().category_label(c);
        assert!(
            matches!(
                label.as_str(),
                "Running" | "Waiting a message" | "Synchronization" | "Idle" | "no state"
            ),
            "unexpected category {c:?}: {label}"
        );
    }
}

#[test]
fn clicking_the_profile_map_scrolls_the_source() {
    let _shared = crate::common::shared();
    let mut h = demo();
    assert_eq!(h.state().loaded().unwrap().scopes.first_visible_line(), 1);
    let map = h.get_by_label("profile map").rect();
    let target = pos2(map.center().x, map.top() + 0.88 * map.height());
    for (pressed, pos) in [(true, target), (false, target)] {
        h.event(Event::PointerMoved(pos));
        h.event(Event::PointerButton {
            pos,
            button: PointerButton::Primary,
            pressed,
            modifiers: Modifiers::NONE,
        });
        h.step();
    }
    h.run_steps(3);
    let p = &h.state().loaded().unwrap().scopes;
    // 88% down the map is line ~90 of 102; the view starts there or as far as it can go.
    let first = p.first_visible_line();
    assert!((70..=92).contains(&first), "first visible line {first}");
    // write_checkpoint (line 93) came into view: its bar is there to click.
    h.get_by_label("scope bar write_checkpoint");
}

#[test]
fn a_selected_scope_is_highlighted_on_the_timeline_and_the_panel_follows_zoom() {
    let _shared = crate::common::shared();
    let mut h = demo();
    h.get_by_label("exchange_halo").click();
    settle(&mut h);
    let (store, key, types) = {
        let l = h.state().loaded().unwrap();
        let key = l.scopes.selected().unwrap();
        (
            std::sync::Arc::clone(&l.trace.store),
            key,
            l.scopes.types().to_vec(),
        )
    };
    let l = h.state().loaded().unwrap();
    let shown = l
        .timeline
        .highlight()
        .cloned()
        .expect("intervals on the timeline");
    let ctx = ScopeContext::new(l.trace.pcf.as_ref(), &store);
    let want =
        scopes::scope_intervals(&store, &ctx, &types, key, 0, l.timeline.end_time(), None).unwrap();
    assert_eq!(*shown, want);
    assert!(want.iter().all(|rows| !rows.is_empty()));
    // Zoom the timeline into its first tenth: the statistics follow the window.
    let end = l.timeline.end_time();
    let window = prvscope_viewer::frame::TimeWindow {
        start: 0,
        span: end / 10,
    };
    h.state_mut().loaded_mut().unwrap().timeline.zoom_to(window);
    h.run_steps(2);
    settle(&mut h);
    let a = analysis(&h);
    assert_eq!((a.t0, a.t1), (0, end / 10));
    // "Whole trace" switches back to the whole run.
    h.get_by_label("Whole trace").click();
    h.run_steps(2);
    settle(&mut h);
    let a = analysis(&h);
    assert_eq!((a.t0, a.t1), (0, end));
}

#[test]
fn snapshot_of_the_scope_panel_beside_the_timeline() {
    let _shared = crate::common::shared();
    let mut h = demo();
    h.get_by_label("reduce_residual").click();
    settle(&mut h);
    h.get_by_label("category bar reduce_residual").click();
    h.run_steps(3);
    settle(&mut h);
    h.snapshot("scope_panel_demo");
}

#[test]
fn a_missing_source_file_is_named_with_where_it_was_looked_for_and_the_table_stays() {
    let _shared = crate::common::shared();
    let Some((dir, h)) = shared_trace("extrae_omp_jacobi24/jacobi-2d-imper_v0.prv") else {
        return;
    };
    h.get_by_label("Source file jacobi-2d-imper_v0.c not found.");
    h.get_by_label("Looked for it in:");
    let beside = dir.join("extrae_omp_jacobi24/jacobi-2d-imper_v0.c");
    h.get_by_label(&format!("  {}", beside.display()));
    // The heat is still listed by line: the OpenMP function's first line has it all.
    h.get_by_label("Hottest lines of jacobi-2d-imper_v0.c:");
    let hot = h.get_by_label_contains("jacobi-2d-imper_v0.c:70  ");
    assert!(format!("{hot:?}").contains("(100.0%)"), "{hot:?}");
    h.get_by_label("kernel_jacobi_2d_imper.omp_fn.0");
    h.get_by_label("jacobi-2d-imper_v0.c:70");
}

#[test]
fn the_scope_types_can_be_chosen() {
    let _shared = crate::common::shared();
    let Some((_, mut h)) = shared_trace("extrae_mpi_prime16/prime_v0.prv") else {
        return;
    };
    h.get_by_label("MPI_Init");
    h.get_by_label("MPI_Reduce");
    h.get_by_label("Scope types");
    // Only the collectives: type them over the field's text, as the user would.
    h.get_by_role_and_label(Role::TextInput, "Scope types")
        .focus();
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::A);
    h.get_by_role_and_label(Role::TextInput, "Scope types")
        .type_text("50000002");
    h.run();
    assert_eq!(
        h.get_by_role_and_label(Role::TextInput, "Scope types")
            .value()
            .as_deref(),
        Some("50000002")
    );
    h.get_by_label("Apply").click();
    h.run_steps(2);
    settle(&mut h);
    h.get_by_label("MPI_Reduce");
    h.get_by_label("MPI_Bcast");
    assert!(h.query_by_label("MPI_Init").is_none());
    let p = &h.state().loaded().unwrap().scopes;
    assert_eq!(p.types(), vec![scopes::ScopeType::new(50_000_002)]);
    assert_eq!(p.analysis().unwrap().types, p.types());
}

#[test]
fn an_added_source_folder_shows_the_file_and_is_remembered() {
    let _shared = crate::common::shared();
    let Some(shared) = crate::common::shared_traces() else {
        return;
    };
    let sources = crate::common::temp_dir("panel-sources");
    let text = "/* a line */\n".repeat(80);
    std::fs::write(sources.join("jacobi-2d-imper_v0.c"), &text).unwrap();
    let trace = shared.join("extrae_omp_jacobi24/jacobi-2d-imper_v0.prv");
    let open = |settings: Settings| {
        let trace = trace.clone();
        let mut h = Harness::builder()
            .with_size(egui::vec2(1600.0, 900.0))
            .build_eframe(move |cc| {
                App::new(
                    &cc.egui_ctx,
                    LoadSource::File(trace),
                    prvscope_import::NullOverride::Auto,
                    settings,
                )
            });
        let ctx = h.ctx.clone();
        h.state_mut().wait_for_load(&ctx);
        settle(&mut h);
        h
    };
    let mut h = open(Settings::default());
    h.get_by_label("Source file jacobi-2d-imper_v0.c not found.");
    h.state_mut()
        .loaded_mut()
        .unwrap()
        .scopes
        .add_folder(&sources);
    settle(&mut h);
    assert!(
        h.query_by_label("Source file jacobi-2d-imper_v0.c not found.")
            .is_none()
    );
    assert_eq!(h.state().loaded().unwrap().scopes.line_count(), 80);
    // eframe saves the settings; a new window reads the folder back and finds the file at once.
    let mut storage = prvscope_viewer::settings::MemoryStorage::default();
    eframe::App::save(h.state_mut(), &mut storage);
    let h = open(Settings::load(Some(&storage)));
    let p = &h.state().loaded().unwrap().scopes;
    assert!(
        p.folders()
            .paths()
            .iter()
            .any(|d| d.ends_with("panel-sources"))
    );
    assert_eq!(p.line_count(), 80);
    // And the trace joined the recent files.
    assert!(
        h.state()
            .settings()
            .recent
            .paths()
            .iter()
            .any(|p| p.ends_with("jacobi-2d-imper_v0.prv"))
    );
}

/// lulesh: two applications, the second twelve rows of uncore counters and samples. The
/// table counts the eight threads of the first and says so; the MPI shares are of their
/// time (`MPI_Allreduce` 6.27%, not the 2.51% of twenty rows), and the sampled malloc of the
/// counter rows is not a scope of the program.
#[test]
fn the_lulesh_table_counts_the_threads_that_ran() {
    let _shared = crate::common::shared();
    let Some((_, mut h)) =
        shared_trace("profet_lulesh_2appl_comms/lulesh_4+4_with_uncores_sockets1+2.chop_5it.prv")
    else {
        return;
    };
    let a = analysis(&h);
    assert_eq!(a.counted_rows(), (0..8).collect::<Vec<_>>());
    assert!(a.scopes.iter().all(|s| !s.name.contains("malloc")));
    let allreduce = a.scopes.iter().find(|s| s.name == "MPI_Allreduce").unwrap();
    let share = 100.0 * allreduce.inclusive as f64 / a.threads_ticks();
    assert!((share - 6.27).abs() < 0.005, "{share}");
    h.get_by_label_contains("8 of 20 threads (12 rows without states");
    h.get_by_label("6.27");
    // For the picture, a stand-in for lulesh.cc (the trace ships without it), so that the
    // panel shows its heat rather than the folders of this machine it looked in.
    let sources = crate::common::temp_dir("lulesh-sources");
    let mut text = String::new();
    for k in 1..=2100 {
        let _ = writeln!(text, "/* lulesh.cc line {k} */");
    }
    std::fs::write(sources.join("lulesh.cc"), text).unwrap();
    h.state_mut()
        .loaded_mut()
        .unwrap()
        .scopes
        .add_folder(&sources);
    settle(&mut h);
    assert!(
        h.query_by_label("Source file lulesh.cc not found.")
            .is_none()
    );
    h.run_steps(2);
    h.snapshot("scope_table_lulesh");
}

/// The panel's table as (scope, per-thread inclusive, exclusive and entries), the same as
/// `scopes` computes it over the panel's window with `ctx`.
fn same_as_direct(h: &Harness<'_, App>, zero_is_null: bool) -> ScopeAnalysis {
    let l = h.state().loaded().unwrap();
    let shown = analysis(h);
    let ctx =
        ScopeContext::new(l.trace.pcf.as_ref(), &l.trace.store).with_zero_is_null(zero_is_null);
    let query = scopes::ScopeQuery {
        types: l.scopes.types().to_vec(),
        t0: shown.t0,
        t1: shown.t1,
    };
    let direct = scopes::analyze(&l.trace.store, &ctx, &query, None).unwrap();
    let rows = |a: &ScopeAnalysis| -> Vec<_> {
        let mut v: Vec<_> = a
            .scopes
            .iter()
            .map(|s| {
                (
                    s.key,
                    s.inclusive_per_thread.clone(),
                    s.exclusive_per_thread.clone(),
                    s.entries_per_thread.clone(),
                )
            })
            .collect();
        v.sort();
        v
    };
    assert_eq!(rows(&shown), rows(&direct), "the panel and `scopes`");
    direct
}

#[test]
fn a_null_mode_mpi_trace_gives_the_calls_their_time_in_the_panel_in_either_reading_of_zero() {
    let _shared = crate::common::shared();
    let dir = crate::common::temp_dir("panel-null-mpi");
    let written = prvscope_import::synth::generate(
        &dir.join("g.prv"),
        &prvscope_import::synth::GenOptions {
            threads: 8,
            target_bytes: 400_000,
            mpi: true,
            ..prvscope_import::synth::GenOptions::default()
        },
    )
    .unwrap();
    let mut h = harness_with(
        LoadSource::File(written.prv.clone()),
        None,
        (1600.0, 900.0),
        true,
    );
    settle(&mut h);
    let a = same_as_direct(&h, false);
    let share = |a: &ScopeAnalysis, name: &str| {
        let s = a.scopes.iter().find(|s| s.name == name).unwrap();
        s.inclusive as f64 / a.threads_ticks()
    };
    let allreduce = share(&a, "MPI_Allreduce");
    assert!(allreduce > 0.02 && allreduce < 0.3, "{allreduce}");
    assert!(a.scopes.iter().any(|s| s.name == "Outside MPI"));
    assert_eq!(a.report.too_deep + a.report.unclosed_inner, 0);
    // "Zero is null" reads the trace as a legacy one: the table is recomputed, "Outside
    // MPI" is no row, the calls keep their time.
    h.get_by_label("Zero is null").click();
    h.run_steps(2);
    settle(&mut h);
    let z = same_as_direct(&h, true);
    assert!(z.scopes.iter().all(|s| s.name != "Outside MPI"));
    assert!((share(&z, "MPI_Allreduce") - allreduce).abs() < 1e-12);
    // A zoom into the middle third: the entries are the calls made there.
    let end = h.state().loaded().unwrap().timeline.end_time();
    let window = prvscope_viewer::frame::TimeWindow {
        start: end / 3,
        span: end / 3,
    };
    h.state_mut().loaded_mut().unwrap().timeline.zoom_to(window);
    h.run_steps(2);
    settle(&mut h);
    let w = same_as_direct(&h, true);
    assert_eq!((w.t0, w.t1), (end / 3, end / 3 * 2));
    let calls = w
        .scopes
        .iter()
        .find(|s| s.name == "MPI_Allreduce")
        .unwrap()
        .entries;
    assert!(calls > 0);
}
