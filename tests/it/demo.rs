//! The embedded demo trace of `assets/demo/`: made by the generator, showing states, an event
//! type with real zeros and nulls, communications, and user functions whose source lines are
//! in `demo.c`.

use std::path::Path;

use prvscope_import::synth::{self, GenOptions};

use crate::common::{all_values, load, temp_dir};

fn demo_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo")
}

#[test]
fn demo_trace_is_what_the_generator_writes() {
    let _shared = crate::common::shared();
    let dir = temp_dir("demo");
    synth::generate(&dir.join("demo.prv"), &GenOptions::demo()).unwrap();
    for ext in ["prv", "pcf", "row"] {
        let fresh = std::fs::read(dir.join(format!("demo.{ext}"))).unwrap();
        let kept = std::fs::read(demo_dir().join(format!("demo.{ext}"))).unwrap();
        assert!(
            fresh == kept,
            "assets/demo/demo.{ext} is stale: regenerate it (see GenOptions::demo)"
        );
    }
}

#[test]
fn demo_trace_shows_zeros_nulls_comms_and_functions_of_demo_c() {
    let _shared = crate::common::shared();
    let t = load(&demo_dir().join("demo.prv"));
    assert!(t.report.is_empty(), "{:?}", t.report.warnings());
    let c = t.store.counts();
    assert!(c.states > 1000 && c.comms > 100 && c.null_values > 100);
    assert_eq!(t.store.null_policy().mode_name(), "sentinel");
    let ready = all_values(&t.store, synth::TYPE_READY_TASKS);
    assert!(ready.contains(&0) && ready.contains(&u64::MAX));

    // Each user function's label names a line of demo.c where that function is defined.
    let source = std::fs::read_to_string(demo_dir().join("demo.c")).unwrap();
    let lines: Vec<&str> = source.lines().collect();
    let pcf = t.pcf.as_ref().unwrap();
    for (i, (name, line)) in synth::FUNCTIONS.iter().enumerate() {
        let label = pcf
            .value_label(synth::TYPE_USER_FUNCTION, i as u64 + 1)
            .unwrap();
        assert_eq!(label, format!("{name} [demo.c:{line}]"));
        let text = lines[*line as usize - 1];
        assert!(
            text.contains(&format!("{name}(")),
            "demo.c:{line} is `{text}`, not {name}"
        );
    }
}
