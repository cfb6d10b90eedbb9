//! View > Window properties…: a window built in the panel is computed as a cfg of the same
//! semantics, its saved cfg reopens to the same view, and a derived window of two cfg views
//! is Paraver's derived window of them.

#![allow(clippy::float_cmp)]

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use prvscope_store::signal::{CustomRef, SignalSpec};
use prvscope_viewer::app::App;
use prvscope_viewer::loader::LoadSource;

use crate::common::{shared_traces, temp_dir};
use crate::viewer::harness_with;

fn on_epoch2(dir: &std::path::Path) -> Harness<'static, App> {
    harness_with(
        LoadSource::File(dir.join("pypop_epoch_scaling/epoch_2proc.prv.gz")),
        Some(SignalSpec::States),
        (1300.0, 1000.0),
        false,
    )
}

/// Steps until the window properties compute nothing.
fn settle(h: &mut Harness<'static, App>) {
    for _ in 0..2000 {
        h.run_steps(1);
        if !h
            .state_mut()
            .properties_mut()
            .is_some_and(|p| p.computing())
        {
            h.run_steps(3);
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    panic!("the window properties never finished computing");
}

/// The window properties' last message, and whether it is a failure.
fn message(h: &mut Harness<'static, App>) -> (String, bool) {
    let p = h
        .state_mut()
        .properties_mut()
        .expect("the window properties");
    let (m, failed) = p.message().expect("a message");
    (m.to_owned(), failed)
}

fn shown(h: &Harness<'static, App>) -> CustomRef {
    match &h.state().loaded().unwrap().timeline.config().spec {
        SignalSpec::Custom(c) => c.clone(),
        other => panic!("the timeline shows {other:?}, not a cfg window"),
    }
}

fn open_cfg(h: &mut Harness<'static, App>, path: std::path::PathBuf) {
    let ctx = h.ctx.clone();
    h.state_mut().open_cfg(&ctx, path);
    h.state_mut().wait_for_cfg(&ctx);
    h.run_steps(3);
}

fn view_named(h: &Harness<'static, App>, name: &str) -> CustomRef {
    h.state()
        .cfg_views()
        .iter()
        .find(|v| v.0.name == name)
        .cloned()
        .unwrap_or_else(|| {
            let names: Vec<_> = h.state().cfg_views().iter().map(|v| &v.0.name).collect();
            panic!("no view `{name}` among {names:?}")
        })
}

/// The same picture: the same steps on every row, the same labels of the values.
fn assert_same_view(a: &CustomRef, b: &CustomRef) {
    assert_eq!(a.0.rows.len(), b.0.rows.len());
    assert!(a.0.rows.iter().any(|(t, _)| t.len() > 2), "an empty view");
    for (r, (x, y)) in a.0.rows.iter().zip(&b.0.rows).enumerate() {
        assert_eq!(x, y, "row {r} of `{}` and `{}`", a.0.name, b.0.name);
    }
    assert_eq!(a.0.groups, b.0.groups);
    assert_eq!(a.0.gradient, b.0.gradient);
}

#[test]
fn a_window_built_in_the_properties_panel_is_the_cfg_of_its_semantics_and_reopens_saved() {
    let _shared = crate::common::shared();
    let Some(dir) = shared_traces() else {
        return;
    };
    let mut h = on_epoch2(&dir);
    // The State view's properties: State As Is, built as the cfg "Save view as Paraver cfg"
    // writes.
    h.state_mut().open_properties();
    h.run_steps(3);
    assert!(
        h.state_mut().properties_mut().is_some(),
        "{}",
        h.state().status()
    );
    assert_eq!(
        h.state_mut()
            .properties_mut()
            .unwrap()
            .edited()
            .function("thread"),
        Some("State As Is")
    );
    // The thread function picked in its list: Useful.
    h.get_by_role_and_label(Role::ComboBox, "thread").click();
    h.run_steps(2);
    h.get_by_label("Useful").click();
    h.run_steps(2);
    settle(&mut h);
    let p = h.state_mut().properties_mut().unwrap();
    assert_eq!(p.edited().function("thread"), Some("Useful"));
    let (msg, failed) = message(&mut h);
    assert!(!failed && msg.starts_with("shown"), "{msg}");
    let built = shown(&h);
    h.snapshot("window_properties_useful_epoch2");

    // Paraver's own Useful cfg gives the same picture.
    open_cfg(
        &mut h,
        dir.join("../paraver_cfgs/paraver/General/views/useful.cfg"),
    );
    let theirs = view_named(&h, "Useful");
    assert_same_view(&built, &theirs);

    // Saved, then reopened: the same view again.
    let out = temp_dir("window-properties").join("useful_built.cfg");
    let _ = std::fs::remove_file(&out);
    h.state_mut().set_view(SignalSpec::Custom(built.clone()));
    h.state_mut().open_properties();
    h.run_steps(2);
    h.state_mut().properties_mut().unwrap().save_to(&out, false);
    let (msg, failed) = message(&mut h);
    assert!(!failed && msg == "saved useful_built.cfg", "{msg}");
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains("{thread, Useful}"), "{text}");
    open_cfg(&mut h, out.clone());
    let reopened = shown(&h);
    assert_ne!(reopened.0.id, built.0.id);
    assert_same_view(&reopened, &built);
    h.snapshot("window_properties_saved_reopened");

    // A change the engine cannot compute is said, and the view stays.
    h.state_mut().open_properties();
    h.run_steps(2);
    {
        let p = h.state_mut().properties_mut().unwrap();
        prvscope_viewer::properties::set_function(
            p.edited_mut(),
            "thread",
            "No Such Function",
            Vec::new(),
        );
    }
    settle(&mut h);
    let (msg, failed) = message(&mut h);
    assert!(failed && msg.contains("No Such Function"), "{msg}");
    assert_eq!(shown(&h).0.id, reopened.0.id);
}

#[test]
fn a_derived_window_of_instructions_and_cycles_is_paravers_ipc() {
    let _shared = crate::common::shared();
    let Some(dir) = shared_traces() else {
        return;
    };
    let mut h = on_epoch2(&dir);
    let perf = dir.join("../paraver_cfgs/paraver/counters_PAPI/performance");
    open_cfg(&mut h, perf.join("instructions.cfg"));
    open_cfg(&mut h, perf.join("Cycles.cfg"));
    let ins = view_named(&h, "Instructions.c1");
    h.state_mut().set_view(SignalSpec::Custom(ins));
    h.state_mut().open_properties();
    h.run_steps(3);
    // The filter (open: the window filters its counter's type) folded away, the form: this
    // window divide Cycles.
    h.get_all_by_label("Filter")
        .last()
        .expect("the Filter header")
        .click();
    h.run_steps(3);
    h.get_by_label("Make derived window").click();
    settle(&mut h);
    let (msg, failed) = message(&mut h);
    assert!(!failed, "{msg}");
    let derived = shown(&h);
    assert_eq!(derived.0.name, "Instructions.c1 divide Cycles");
    assert!(derived.0.gradient);
    h.snapshot("window_properties_derived_ipc_epoch2");
    // The properties now edit the derived window: divide, factors 1 and 1.
    let d = h
        .state_mut()
        .properties_mut()
        .unwrap()
        .edited()
        .derived
        .clone()
        .expect("a derived window");
    assert_eq!(d.operation, "divide");
    assert_eq!(d.factors, [1.0, 1.0]);
    // Saved alone: the derived window and its two parents, no analyzer; reopened, the same
    // view.
    let out = temp_dir("window-properties-derived").join("ipc_built.cfg");
    let _ = std::fs::remove_file(&out);
    h.state_mut().properties_mut().unwrap().save_to(&out, true);
    let text = std::fs::read_to_string(&out).unwrap();
    let saved = prvscope_paraver::cfg::Cfg::parse("saved", &text).unwrap();
    assert_eq!(saved.windows.len(), 3);
    assert!(saved.analyzers.is_empty());
    assert!(saved.windows[2].derived.is_some());
    open_cfg(&mut h, out);
    assert_same_view(&shown(&h), &derived);
    // Paraver's IPC.cfg computes the same window.
    open_cfg(&mut h, perf.join("IPC.cfg"));
    let ipc = view_named(&h, "Instructions per cycle");
    assert_same_view(&derived, &ipc);
}

/// Every window of every shared cfg, opened in the properties and shown without a change:
/// the cfg it saves is the cfg it was loaded from (whose written text BSC's paramedir reads
/// as the original, `bsc_paramedir_computes_each_written_cfg_as_its_original`).
#[test]
fn the_properties_of_every_shared_cfg_window_save_it_unchanged() {
    use prvscope_paraver::cfg::Cfg;
    use prvscope_viewer::properties::{PropertiesWindow, Source};
    use prvscope_viewer::windows::{Seen, ToolWindow};
    let _shared = crate::common::shared();
    let Some(dir) = shared_traces() else {
        return;
    };
    let trace = crate::common::load(&dir.join("extrae_mpi_prime16/prime_v0.prv"));
    let cache = std::sync::Arc::new(prvscope_paraver::window::WindowCache::new(1 << 20));
    let mut todo = vec![dir.join("../paraver_cfgs")];
    let (mut cfgs, mut windows) = (0, 0);
    let ctx = egui::Context::default();
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
                continue;
            }
            if p.extension().is_none_or(|x| x != "cfg") {
                continue;
            }
            let text = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned();
            let Ok(cfg) = Cfg::parse("cfg", &text) else {
                continue;
            };
            cfgs += 1;
            let cfg = std::sync::Arc::new(cfg);
            let written = prvscope_paraver::cfg_write::write(&cfg);
            for w in &cfg.windows {
                let source = Source {
                    cfg: std::sync::Arc::clone(&cfg),
                    window: w.id,
                };
                let mut props = PropertiesWindow::new(
                    &trace,
                    std::sync::Arc::clone(&cache),
                    None,
                    source,
                    prvscope_store::summary::DrawMode::Last,
                )
                .unwrap();
                let seen = Seen {
                    trace: &trace,
                    visible: prvscope_viewer::frame::TimeWindow { start: 0, span: 1 },
                    several: false,
                };
                for _ in 0..2 {
                    let mut out =
                        ctx.run_pass(egui::RawInput::default(), |ctx| props.show(ctx, &seen));
                    // Nothing is painted: the fonts' texture is let go.
                    out.textures_delta.clear();
                }
                assert_eq!(props.cfg(), *cfg, "{}: `{}`", p.display(), w.name);
                assert_eq!(prvscope_paraver::cfg_write::write(&props.cfg()), written);
                windows += 1;
            }
        }
    }
    assert!(
        cfgs > 700 && windows > 1000,
        "{cfgs} cfgs, {windows} windows"
    );
}

/// The rectangles of the floating windows shown (egui's areas of the middle order).
fn window_rects(h: &Harness<'static, App>) -> Vec<egui::Rect> {
    h.ctx.memory(|m| {
        m.areas()
            .visible_layer_ids()
            .into_iter()
            .filter(|l| l.order == egui::Order::Middle)
            .filter_map(|l| m.area_rect(l.id))
            .collect()
    })
}

/// Docked (the default), the histograms, the window properties, POP and Find open beside
/// the timeline and never over its rows; undocked, they float where they were put.
#[test]
fn floating_windows_dock_beside_the_timeline_never_over_its_rows() {
    let _shared = crate::common::shared();
    let Some(dir) = shared_traces() else {
        return;
    };
    let mut h = harness_with(
        LoadSource::File(dir.join("extrae_mpi_prime16/prime_v0.prv")),
        Some(SignalSpec::States),
        (1400.0, 800.0),
        false,
    );
    let before = h.state().timeline_rect();
    open_cfg(
        &mut h,
        dir.join("../paraver_cfgs/paraver/mpi/analysis/mpi_stats.cfg"),
    );
    h.state_mut().find_mut().open = true;
    h.state_mut().open_properties();
    let ctx = h.ctx.clone();
    h.state_mut().open_pop(&ctx);
    h.run_steps(2);
    // POP's metrics computed (the picture does not wait on a spinner).
    while h.state_mut().pop_window().is_some_and(|w| w.busy()) {
        let w = h.state_mut().pop_window().unwrap();
        w.poll(&ctx);
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    h.run_steps(6);
    let timeline = h.state().timeline_rect();
    // The timeline gave the dock its right part.
    assert!(
        timeline.width() < before.width() - 300.0,
        "{timeline:?} {before:?}"
    );
    let rects = window_rects(&h);
    assert!(rects.len() >= 4, "{rects:?}");
    for r in &rects {
        assert!(
            r.left() >= timeline.right(),
            "a window over the timeline: {r:?}, the timeline {timeline:?}"
        );
        assert!(
            r.right() <= 1400.0 + 0.5,
            "{r:?} of {rects:?}, dock {:?}",
            prvscope_viewer::windows::dock(&h.ctx)
        );
    }
    // A tab per window: a click on one brings its window to the front.
    let tabs = prvscope_viewer::windows::docked(&h.ctx);
    assert!(tabs.len() >= 4, "{tabs:?}");
    let find = tabs
        .iter()
        .find(|(t, _)| t == "Find")
        .expect("Find's tab")
        .1;
    let layer = egui::LayerId::new(egui::Order::Middle, find);
    let top = |h: &Harness<'static, App>| {
        h.ctx
            .memory(|m| m.areas().top_layer_id(egui::Order::Middle))
    };
    assert_ne!(top(&h), Some(layer));
    h.get_by_role_and_label(Role::Button, "Find").click();
    h.run_steps(3);
    assert_eq!(top(&h), Some(layer));
    h.snapshot("windows_docked_prime16");
    // Undocked: the timeline takes the whole width again.
    h.state_mut().set_dock_windows(false);
    h.run_steps(4);
    let undocked = h.state().timeline_rect();
    assert!((undocked.width() - before.width()).abs() < 1.0);
}
