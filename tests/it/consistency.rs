//! Concepts that once had several homes and disagreed now have one: these tests show the
//! old disagreements are gone.

use prvscope_analysis::stats::{self, Column, Semantic};
use prvscope_analysis::table::stats_text;
use prvscope_store::signal::SignalSpec;
use prvscope_viewer::loader::{DEMO_PRV, LoadSource, load_demo, source_finder};
use prvscope_viewer::view::{type_label, value_label};

use crate::common::{load, temp_dir};

/// `prvscope stats` once printed an empty column header for a state whose `.pcf` label is
/// blank, while the viewer's CSV export (the same table) printed the number.
#[test]
fn stats_and_the_viewer_name_values_and_types_alike() {
    let dir = temp_dir("consistency-labels");
    let prv = dir.join("l.prv");
    std::fs::write(
        &prv,
        "#Paraver (01/01/2024 at 00:00):100_ns:0:1:1(2:0)\n\
         1:0:1:1:1:0:50:1\n1:0:1:1:1:50:100:2\n1:0:1:1:2:0:100:1\n2:0:1:1:1:10:7:3\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("l.pcf"),
        "STATES\n1   \n2  Running  \n\nEVENT_TYPE\n0 7  \nVALUES\n3 \n",
    )
    .unwrap();
    let t = load(&prv);
    let csv = stats_text(
        &t,
        Semantic::StateAsIs,
        &stats::time_per_value(&t.store, Semantic::StateAsIs, 0, 100),
        true,
    );
    let header = csv.lines().next().unwrap();
    let viewer: Vec<String> = [1, 2]
        .iter()
        .map(|&v| value_label(&t, &SignalSpec::States, v, false))
        .collect();
    assert_eq!(viewer, ["1", "Running"]);
    assert_eq!(header, format!("thread,{}", viewer.join(",")));
    // An event value and type with blank labels.
    let csv = stats_text(
        &t,
        Semantic::LastEventValue(7),
        &stats::time_per_value(&t.store, Semantic::LastEventValue(7), 0, 100),
        true,
    );
    // Legacy mode: the time before the first event counts as 0; the value 3 has a blank label.
    assert_eq!(csv.lines().next().unwrap(), "thread,0,3");
    assert_eq!(value_label(&t, &SignalSpec::Events(vec![7]), 3, false), "3");
    let ctx = prvscope_analysis::scopes::ScopeContext::new(t.pcf.as_ref(), &t.store);
    assert_eq!(ctx.type_label(7), type_label(&t, 7));
    assert_eq!(type_label(&t, 7), "type 7");
    assert_eq!(
        prvscope_analysis::table::column_label(&t, Semantic::StateAsIs, Column::Null),
        "null"
    );
}

/// The demo was recognised by its file name, so a user's own `demo.prv` was searched for
/// the embedded `demo.c` instead of its own sources.
#[test]
fn a_users_demo_prv_is_not_the_embedded_demo() {
    // A user's trace named `demo.prv`, opened from the working directory.
    let path = std::path::Path::new("demo.prv");
    let mine = prvscope_import::load_bytes(
        path,
        DEMO_PRV,
        None,
        &prvscope_import::LoadOptions::default(),
    )
    .unwrap();
    assert!(mine.shipped_sources.is_empty());
    let finder = source_finder(&mine, &[]);
    assert!(
        finder.embedded.is_empty(),
        "no embedded source for a user's trace"
    );
    assert!(
        finder.dirs.contains(&std::path::PathBuf::from(".")),
        "its own folder is searched: {:?}",
        finder.dirs
    );
    // The embedded demo keeps its shipped source.
    let demo = load_demo(&prvscope_import::LoadOptions::default()).unwrap();
    let finder = source_finder(&demo, &[]);
    assert_eq!(finder.embedded.len(), 1);
    assert!(finder.dirs.is_empty());
    assert_eq!(LoadSource::Demo.display_name(), "demo.prv");
}
