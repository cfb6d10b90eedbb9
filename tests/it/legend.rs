//! The legend of a gradient view: a colour ramp from the scale's smallest to its largest
//! value, and what the window draws, in order.

use egui_kittest::kittest::Queryable;
use prvscope_store::signal::SignalSpec;
use prvscope_viewer::loader::LoadSource;
use prvscope_viewer::view::ColorMode;

use crate::viewer::harness_with;

#[test]
fn a_gradient_view_has_a_colour_ramp_with_its_range_and_the_values_drawn_in_order() {
    let _shared = crate::common::shared();
    let mut h = harness_with(
        LoadSource::Demo,
        Some(SignalSpec::Events(vec![42_000_050])),
        (1200.0, 800.0),
        false,
    );
    let (lo, hi, drawn) = {
        let t = &h.state().loaded().unwrap().timeline;
        assert_eq!(t.config().color, ColorMode::Gradient);
        let (lo, hi) = t.coloring().range();
        let mut drawn: Vec<u64> = t.legend().iter().map(|e| e.0).collect();
        drawn.sort_unstable();
        (lo, hi, drawn)
    };
    assert!(hi > lo && drawn.len() > 10);
    let thousands = prvscope_viewer::app::thousands;
    // The ramp's ends, written with thousands separators.
    h.get_by_label(&thousands(lo));
    h.get_by_label(&thousands(hi));
    // What this window draws: the smallest and largest of the values drawn.
    h.get_by_label(&format!(
        "this window: {} values from {} to {}",
        drawn.len(),
        thousands(drawn[0]),
        thousands(*drawn.last().unwrap())
    ));
    // The values drawn, in order, on demand.
    h.get_by_label("values drawn, in order").click();
    h.run_steps(2);
    h.get_by_label(&thousands(drawn[1]));
    h.snapshot("gradient_legend");
    assert_eq!(thousands(1_234_567), "1,234,567");
    assert_eq!(thousands(999), "999");
}

#[test]
fn a_view_of_two_counters_draws_a_lane_per_type_with_its_own_scale_and_legend() {
    use std::sync::Arc;

    use prvscope_store::signal::ViewSignals;

    let _shared = crate::common::shared();
    let (ins, cyc) = (42_000_050, 42_000_059);
    let mut h = harness_with(
        LoadSource::Demo,
        Some(SignalSpec::Events(vec![ins, cyc])),
        (1200.0, 800.0),
        false,
    );
    h.run_steps(2);
    let app = h.state();
    let l = app.loaded().unwrap();
    let t = &l.timeline;
    let lanes = t.lanes();
    assert_eq!(lanes.iter().map(|l| l.ty).collect::<Vec<_>>(), [ins, cyc]);
    // Each lane's colour scale spans its own type's values only.
    for lane in lanes {
        let alone = ViewSignals::build(
            Arc::clone(&l.trace.store),
            SignalSpec::Events(vec![lane.ty]),
            t.config().zero_is_null,
        );
        let values = alone.values();
        assert_eq!(
            lane.coloring.range(),
            (*values.first().unwrap(), *values.last().unwrap()),
            "type {}",
            lane.ty
        );
        assert!(!lane.legend.is_empty());
    }
    assert_ne!(lanes[0].coloring.range(), lanes[1].coloring.range());
    // The details of a point name both types' values.
    let d = t
        .details(&l.trace, 0, t.window().start + t.window().span / 2)
        .unwrap();
    assert!(
        d.label.contains("PAPI_TOT_INS") && d.label.contains("PAPI_TOT_CYC"),
        "{}",
        d.label
    );
    // A legend part per lane.
    h.get_by_label_contains("lane 1: PAPI_TOT_INS");
    h.get_by_label_contains("lane 2: PAPI_TOT_CYC");
    h.snapshot("lanes_two_counters");
}

#[test]
fn lanes_of_a_large_trace_are_built_in_the_background_and_then_drawn() {
    let _shared = crate::common::shared();
    let path = crate::common::generated_16_threads_of("lanes_large", 60 << 20);
    let mut h = harness_with(
        LoadSource::File(path),
        Some(SignalSpec::Events(vec![42_000_050, 42_000_059])),
        (1000.0, 600.0),
        false,
    );
    assert!(h.state().loaded().unwrap().trace.store.counts().total() > 2_000_000);
    let started = std::time::Instant::now();
    while h.state().loaded().unwrap().timeline.lanes().is_empty() {
        h.run_steps(1);
        std::thread::sleep(std::time::Duration::from_millis(10));
        assert!(started.elapsed().as_secs() < 120, "the lanes never came");
    }
    h.run_steps(2);
    let t = &h.state().loaded().unwrap().timeline;
    assert_eq!(t.lanes().len(), 2);
    assert!(
        t.lanes().iter().all(|l| !l.legend.is_empty()),
        "both lanes drawn"
    );
}
