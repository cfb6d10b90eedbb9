//! "Open part of a trace" in the viewer: a trace too large for the memory opens it instead
//! of loading, and the part chosen there is what the timeline shows.

use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT as _, Queryable};
use prvscope_import::NullOverride;
use prvscope_viewer::app::App;
use prvscope_viewer::loader::{LoadRequest, LoadSource};
use prvscope_viewer::settings::Settings;

fn harness(path: &std::path::Path, available: Option<u64>) -> Harness<'static, App> {
    harness_with(path, available, None)
}

fn harness_with(
    path: &std::path::Path,
    available: Option<u64>,
    cache: Option<prvscope_import::cache::CacheOptions>,
) -> Harness<'static, App> {
    harness_for(
        path,
        LoadRequest {
            available_override: available,
            cache,
            ..LoadRequest::default()
        },
    )
}

fn harness_for(path: &std::path::Path, request: LoadRequest) -> Harness<'static, App> {
    let source = LoadSource::File(path.to_path_buf());
    let mut h = Harness::builder()
        .with_size(egui::vec2(1200.0, 700.0))
        .build_eframe(move |cc| {
            let mut app = App::with_request(
                &cc.egui_ctx,
                source,
                NullOverride::Auto,
                Settings::default(),
                request.clone(),
            );
            app.set_show_timings(false);
            app.set_show_scopes(false);
            app
        });
    let ctx = h.ctx.clone();
    h.state_mut().wait_for_load(&ctx);
    h.run_steps(4);
    h
}

fn load_part(h: &mut Harness<'_, App>) {
    h.get_by_label("Load this part").click();
    h.run_steps(2);
    let ctx = h.ctx.clone();
    h.state_mut().wait_for_load(&ctx);
    h.run_steps(4);
}

#[test]
fn a_trace_too_large_opens_the_part_dialog_and_loads_the_threads_chosen() {
    let _shared = crate::common::shared();
    let path = crate::common::generated_16_threads("part-dialog-threads");
    // 20 MB: the whole trace is estimated above it, one task of four threads below.
    let mut h = harness(&path, Some(20_000_000));
    assert!(
        h.state().loaded().is_none(),
        "nothing is loaded before the user chooses"
    );
    assert!(h.state().part_dialog().is_some());
    h.get_by_label_contains("The whole trace needs about");
    h.get_by_label_contains("of text); 20.0 MB available.");
    h.get_by_label_contains("has 16 threads");
    h.get_by_label_contains("g.prv needs about ");
    h.get_by_label_contains("MB to load, more than the memory available");
    // Without a store cache there is nothing to convert the trace into.
    assert!(
        h.get_by_label("Convert and open everything")
            .accesskit_node()
            .is_disabled()
    );
    // The range is preset to what fits; clear it and choose task 1.3 instead.
    let preset_to: u64 = h.state().part_dialog().unwrap().to.parse().unwrap();
    assert!(preset_to > 0);
    h.state_mut().part_dialog_mut().unwrap().to.clear();
    h.get_by_label("Threads").focus();
    h.get_by_label("Threads").type_text("1.3");
    h.run_steps(2);
    h.get_by_label_contains("This part needs about");
    // No text cursor in the picture (it blinks).
    h.ctx.memory_mut(|m| {
        if let Some(id) = m.focused() {
            m.surrender_focus(id);
        }
    });
    h.run_steps(2);
    h.snapshot("part_dialog");
    load_part(&mut h);
    let app = h.state();
    assert!(app.part_dialog().is_none());
    let l = app.loaded().expect("the part is loaded");
    assert_eq!(
        l.trace.part.as_ref().unwrap().subset.to_string(),
        "threads 1.3"
    );
    let rows: Vec<String> = l.timeline.rows().iter().map(|r| r.label.clone()).collect();
    assert_eq!(rows.len(), 4, "{rows:?}");
    h.get_by_label("THREAD 1.3.1");
    h.get_by_label("THREAD 1.3.4");
    assert!(h.query_by_label("THREAD 1.1.1").is_none());
    h.get_by_label_contains("part loaded: threads 1.3");
    h.get_by_label("Part loaded: threads 1.3 (4 of 16 threads)");
    // The Trace panel counts the rows loaded, and the "too large" message is gone.
    h.get_by_label_contains("4 of 16 rows loaded");
    assert!(h.query_by_label_contains("needs about").is_none());
    h.snapshot("part_loaded_task_1_3");
}

#[test]
fn open_part_of_a_trace_loads_a_time_range_and_home_fits_it() {
    let _shared = crate::common::shared();
    let path = crate::common::generated_16_threads("part-dialog-range");
    // Enough memory: the trace loads whole, then File > Open part of a trace… on it.
    let mut h = harness(&path, None);
    let end = h.state().loaded().unwrap().trace.header.end_time;
    h.state_mut().ask_part(path.clone());
    for _ in 0..200 {
        h.run_steps(1);
        if h.state().part_dialog().unwrap().estimate.is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    h.run_steps(2);
    h.get_by_label_contains("The whole trace needs about");
    let (from, to) = (end / 4, end / 2);
    // From in ticks, To with a unit (the trace's ticks are nanoseconds).
    assert_eq!(
        h.state()
            .loaded()
            .unwrap()
            .trace
            .header
            .time_unit
            .ns_per_tick(),
        1
    );
    h.get_by_label("From").focus();
    h.get_by_label("From").type_text(&from.to_string());
    h.get_by_label("To").focus();
    h.get_by_label("To")
        .type_text(&format!("{}us", to as f64 / 1000.0));
    h.run_steps(2);
    // A bad field says what is wrong and disables loading.
    h.get_by_label("Threads").focus();
    h.get_by_label("Threads").type_text("1.9");
    h.run_steps(2);
    h.get_by_label_contains("task 1.9 is not in the header");
    h.state_mut().part_dialog_mut().unwrap().threads.clear();
    h.run_steps(2);
    load_part(&mut h);
    let l = h.state().loaded().unwrap();
    assert_eq!(l.trace.loaded_range(), Some((from, to)));
    let w = l.timeline.window();
    assert_eq!(
        (w.start, w.end()),
        (from, to),
        "the timeline opens on the range"
    );
    assert_eq!(l.timeline.rows().len(), 16);
    h.state_mut()
        .loaded_mut()
        .unwrap()
        .timeline
        .zoom_to(prvscope_viewer::frame::TimeWindow {
            start: 0,
            span: end,
        });
    h.state_mut().loaded_mut().unwrap().timeline.fit();
    let w = h.state().loaded().unwrap().timeline.window();
    assert_eq!((w.start, w.end()), (from, to), "Home shows the range");
}

/// "Convert and open everything" converts the whole trace into the store cache a batch at a
/// time and opens it from there: every record, read from the file in place.
#[test]
fn a_trace_too_large_is_converted_and_opened_whole() {
    let _shared = crate::common::shared();
    let path = crate::common::generated_16_threads("part-dialog-convert");
    let cache = prvscope_import::cache::CacheOptions {
        dir: crate::common::temp_dir("part-dialog-convert-cache"),
        limit_bytes: 1 << 40,
    };
    let mut h = harness_with(&path, Some(20_000_000), Some(cache));
    assert!(h.state().loaded().is_none());
    assert!(h.state().part_dialog().is_some());
    h.get_by_label("Convert and open everything").click();
    h.run_steps(2);
    let ctx = h.ctx.clone();
    h.state_mut().wait_for_load(&ctx);
    h.run_steps(4);
    let app = h.state();
    assert!(app.part_dialog().is_none());
    let l = app.loaded().expect("the trace is converted and opened");
    assert_eq!(
        l.trace.cache.state,
        prvscope_import::cache::CacheState::Built
    );
    assert!(l.trace.store.is_mapped());
    assert!(l.trace.part.is_none());
    let whole = crate::common::load(&path);
    assert_eq!(*l.trace.store, *whole.store);
    // The trace facts say where it was read from.
    h.state_mut().set_show_timings(true);
    h.run_steps(2);
    h.get_by_label_contains("converted into the store cache");
}

/// Asked for on the command line (`--convert`), a conversion starts at once: no memory check,
/// no dialog.
#[test]
fn a_conversion_asked_for_starts_without_the_dialog() {
    let _shared = crate::common::shared();
    let path = crate::common::generated_16_threads("part-dialog-convert-asked");
    let request = LoadRequest {
        available_override: Some(20_000_000),
        cache: Some(prvscope_import::cache::CacheOptions {
            dir: crate::common::temp_dir("part-dialog-convert-asked-cache"),
            limit_bytes: 1 << 40,
        }),
        convert: true,
        ..LoadRequest::default()
    };
    let h = harness_for(&path, request);
    assert!(h.state().part_dialog().is_none());
    let l = h.state().loaded().expect("converted and opened");
    assert!(l.trace.store.is_mapped());
    assert_eq!(
        l.trace.cache.state,
        prvscope_import::cache::CacheState::Built
    );
}
