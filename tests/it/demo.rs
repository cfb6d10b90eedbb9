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

/// The viewer's cut and filter of the embedded demo read its embedded text as a file's
/// (its lines as written, not the store's records): the same output as on the demo's file,
/// wherever the viewer runs (a `demo.prv` in its folder is not read), and a POP region of
/// it, a store of its own, does not carry the demo's text.
#[test]
fn the_demos_cut_and_filter_read_its_embedded_text() {
    use std::sync::atomic::AtomicBool;

    use prvscope_paraver::cut::{self, Control, CutterOptions, FilterOptions, Job, StateFilter};

    let _shared = crate::common::shared();
    let demo = prvscope_viewer::loader::load_demo(&prvscope_import::LoadOptions::default())
        .expect("the demo loads");
    assert_eq!(demo.shipped_text, Some(prvscope_viewer::loader::DEMO_PRV));
    let file = load(&demo_dir().join("demo.prv"));
    let dir = temp_dir("demo-cut");
    let cancel = AtomicBool::new(false);
    let control = Control {
        progress: &|_| {},
        cancel: &cancel,
    };
    let end = demo.header.end_time;
    let cut = CutterOptions::by_time(end / 3, end / 3 * 2);
    let filter = FilterOptions {
        states: Some(StateFilter {
            all: true,
            names: Vec::new(),
            min_time: 1000,
        }),
        ..FilterOptions::default()
    };
    for (name, job) in [
        (
            "cut",
            Job {
                cutter: Some(cut),
                ..Job::default()
            },
        ),
        (
            "filter",
            Job {
                filter: Some(filter),
                ..Job::default()
            },
        ),
    ] {
        let body = |t: &prvscope_import::Trace, out: &str| {
            let out = dir.join(out);
            cut::save(t, &job, &out, &control).unwrap();
            let text = std::fs::read_to_string(&out).unwrap();
            // (The cutter's comment line names the input and the date.)
            text.lines()
                .filter(|l| !l.contains(":CUTTER:"))
                .map(str::to_owned)
                .collect::<Vec<_>>()
        };
        let (embedded, from_file) = (
            body(&demo, &format!("{name}-embedded.prv")),
            body(&file, &format!("{name}-file.prv")),
        );
        assert!(embedded.len() > 100, "{name}: {} lines", embedded.len());
        assert!(
            embedded == from_file,
            "{name}: the embedded demo's output differs from its file's"
        );
    }
    // A POP region is a store of its own: the demo's text is not its text.
    let region = cut::in_memory(&demo, end / 3, end / 3 * 2);
    assert!(region.shipped_text.is_none());
}
