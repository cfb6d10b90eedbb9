//! A soak of the viewer: thousands of random zooms, pans, range selections, key presses, view
//! switches, row collapses, scope selections (with their breakdown windows) and re-opens, on
//! the demo and on a generated trace, checking after each that the shown window is valid and
//! nothing panicked.
//! `PRVSCOPE_SOAK_STEPS` sets the number of operations per trace (default 2000).

use egui::{Event, Key, Modifiers, PointerButton, pos2};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use prvscope_import::synth::{self, GenOptions, Rng};
use prvscope_viewer::app::App;
use prvscope_viewer::frame::MIN_SPAN;
use prvscope_viewer::loader::LoadSource;

use crate::common::temp_dir;
use crate::viewer::{drag, harness_with, wheel};

fn steps() -> usize {
    std::env::var("PRVSCOPE_SOAK_STEPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2000)
}

/// The shown window lies inside the trace and is at least `MIN_SPAN` wide.
fn check(h: &Harness<'_, App>, op: &str) {
    let l = h.state().loaded().expect("a trace stays open");
    let t = &l.timeline;
    let w = t.window();
    let end = t.end_time().max(MIN_SPAN);
    assert!(w.span >= MIN_SPAN.min(end), "after {op}: span {}", w.span);
    assert!(
        w.start.saturating_add(w.span) <= end,
        "after {op}: {w:?} beyond {end}"
    );
    assert!(
        t.area().is_finite() && t.area().height() > 0.0,
        "after {op}: timeline area {:?}",
        t.area()
    );
    assert!(
        t.first_row() < t.rows().len().max(1),
        "after {op}: first row {}",
        t.first_row()
    );
}

fn soak(source: &LoadSource, seed: u64) {
    let mut h = harness_with(source.clone(), None, (1300.0, 700.0), true);
    let mut rng = Rng::new(seed);
    let key = |h: &mut Harness<'_, App>, key: Key, modifiers: Modifiers| {
        h.event(Event::Key {
            key,
            physical_key: None,
            pressed: true,
            repeat: false,
            modifiers,
        });
        h.run_steps(2);
    };
    // How many operations changed the window or the view: the soak must do real work.
    let (mut moved, mut switched) = (0usize, 0usize);
    for i in 0..steps() {
        let before = {
            let t = &h.state().loaded().unwrap().timeline;
            (t.window(), t.config().spec.clone())
        };
        let area = h.state().loaded().unwrap().timeline.area();
        let x = |rng: &mut Rng| area.left() + area.width() * (rng.range(0, 1000) as f32 / 1000.0);
        let y = |rng: &mut Rng| area.top() + area.height() * (rng.range(0, 1000) as f32 / 1000.0);
        let op = rng.range(0, 12);
        match op {
            0 | 1 => {
                let p = pos2(x(&mut rng), y(&mut rng));
                let lines = rng.range(1, 6) as f32 * if rng.chance(50) { 1.0 } else { -1.0 };
                wheel(&mut h, p, lines);
            }
            2 => {
                let (a, b) = (
                    pos2(x(&mut rng), y(&mut rng)),
                    pos2(x(&mut rng), y(&mut rng)),
                );
                drag(&mut h, a, b, PointerButton::Primary);
            }
            3 => {
                let (a, b) = (
                    pos2(x(&mut rng), y(&mut rng)),
                    pos2(x(&mut rng), y(&mut rng)),
                );
                drag(&mut h, a, b, PointerButton::Secondary);
            }
            4 => {
                let keys = [
                    Key::Home,
                    Key::ArrowLeft,
                    Key::ArrowRight,
                    Key::ArrowUp,
                    Key::ArrowDown,
                    Key::Plus,
                    Key::Minus,
                    Key::PageDown,
                    Key::PageUp,
                ];
                let k = keys[rng.range(0, keys.len() as u64) as usize];
                key(&mut h, k, Modifiers::NONE);
            }
            5 => {
                let k = [Key::U, Key::R, Key::Z][rng.range(0, 3) as usize];
                key(&mut h, k, Modifiers::COMMAND);
            }
            6 => {
                // A view from the list, or the State view.
                let types = h.state().loaded().unwrap().types.clone();
                let label = if rng.chance(30) || types.is_empty() {
                    "State".to_owned()
                } else {
                    let ty = types[rng.range(0, types.len() as u64) as usize];
                    let l = h.state().loaded().unwrap();
                    format!("{} ({ty})", prvscope_viewer::view::type_label(&l.trace, ty))
                };
                if let Some(node) = h.query_by_label(&label) {
                    node.click();
                }
                h.run_steps(2);
            }
            7 => {
                // Collapse or expand the row under a random label.
                let names: Vec<String> = {
                    let l = h.state().loaded().unwrap();
                    l.timeline.rows().iter().map(|r| r.label.clone()).collect()
                };
                let name = &names[rng.range(0, names.len() as u64) as usize];
                let collapsed = format!("+ {name}");
                // The row label left of the timeline (the Details panel may show the name too).
                let label = h
                    .query_all_by_label(name)
                    .chain(h.query_all_by_label(&collapsed))
                    .find(|n| n.rect().right() <= area.left() + 1.0);
                if let Some(node) = label {
                    node.click();
                }
                h.run_steps(2);
            }
            8 => {
                for label in [
                    "Zero is null",
                    "Communications",
                    "Event flags",
                    "Whole trace",
                ] {
                    if rng.chance(30)
                        && let Some(node) = h.query_by_label(label)
                    {
                        node.click();
                    }
                }
                h.run_steps(2);
            }
            9 => {
                // Select a scope in the table.
                let names: Vec<String> = h
                    .state()
                    .loaded()
                    .unwrap()
                    .scopes
                    .analysis()
                    .map(|a| a.scopes.iter().map(|s| s.name.clone()).collect())
                    .unwrap_or_default();
                if !names.is_empty() {
                    let name = &names[rng.range(0, names.len() as u64) as usize];
                    if let Some(node) = h.query_by_label(name) {
                        node.click();
                    }
                }
                h.run_steps(2);
                // The click opened the scope's breakdown window over the timeline; close it
                // most times, as a user would, so that later pointer operations mostly reach
                // the timeline.
                if rng.chance(20) {
                    h.run_steps(1);
                } else {
                    let scopes = &mut h.state_mut().loaded_mut().unwrap().scopes;
                    scopes.breakdowns_mut().close_all();
                    h.run_steps(1);
                }
            }
            10 => {
                // Click to pin a point.
                let p = pos2(x(&mut rng), y(&mut rng));
                h.event(Event::PointerMoved(p));
                for pressed in [true, false] {
                    h.event(Event::PointerButton {
                        pos: p,
                        button: PointerButton::Primary,
                        pressed,
                        modifiers: Modifiers::NONE,
                    });
                    h.step();
                }
            }
            _ => {
                if rng.chance(5) {
                    // Open the trace again (the old one stays until the new one is loaded).
                    let ctx = h.ctx.clone();
                    h.state_mut().open(&ctx, source.clone());
                    h.state_mut().wait_for_load(&ctx);
                }
                h.run_steps(1);
            }
        }
        check(&h, &format!("operation {i} (kind {op})"));
        let t = &h.state().loaded().unwrap().timeline;
        moved += usize::from(t.window() != before.0);
        switched += usize::from(t.config().spec != before.1);
    }
    assert!(
        moved > steps() / 5,
        "{moved} of {} operations moved the window",
        steps()
    );
    assert!(switched > steps() / 100, "{switched} view switches");
    eprintln!(
        "{} operations: {moved} moved the window, {switched} switched views",
        steps()
    );
    h.state_mut().loaded_mut().unwrap().scopes.wait();
    h.run_steps(2);
    check(&h, "the end");
}

#[test]
fn thousands_of_random_operations_on_the_demo_keep_the_viewer_sound() {
    let _shared = crate::common::shared();
    soak(&LoadSource::Demo, 11);
}

#[test]
fn thousands_of_random_operations_on_a_generated_trace_keep_the_viewer_sound() {
    let _shared = crate::common::shared();
    let dir = temp_dir("soak");
    let path = dir.join("soak.prv");
    let opts = GenOptions {
        threads: 40,
        threads_per_task: 8,
        target_bytes: 3_000_000,
        seed: 5,
        legacy: true,
        xz: false,
        mpi: false,
    };
    synth::generate(&path, &opts).unwrap();
    soak(&LoadSource::File(path), 12);
}
