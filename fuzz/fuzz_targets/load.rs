//! The whole load path from bytes: compression sniffed (plain, xz, gz), header, body in small
//! chunks, the store; then what the viewer asks of it (a view's summaries, the scope analysis).
#![no_main]

use std::path::Path;
use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use prvscope_analysis::scopes::{self, ScopeContext, ScopeQuery};
use prvscope_store::signal::{SignalSpec, ViewSignals};
use prvscope_store::summary::Grid;
use prvscope_import::{self as trace, LoadOptions};

fuzz_target!(|data: &[u8]| {
    let options = LoadOptions {
        chunk_bytes: 256,
        stream_block_bytes: 4096,
        ..LoadOptions::default()
    };
    let Ok(t) = trace::load_bytes(Path::new("fuzz.prv"), data, None, &options) else {
        return;
    };
    let end = t.header.end_time.max(t.store.end_time()).max(1);
    let grid = Grid {
        span: end,
        width: 64,
    };
    let edges = grid.edges(0, 64);
    for spec in [
        SignalSpec::States,
        SignalSpec::Events(t.store.event_types()),
    ] {
        if matches!(&spec, SignalSpec::Events(v) if v.is_empty()) {
            continue;
        }
        for zero_is_null in [false, true] {
            let view = ViewSignals::build(Arc::clone(&t.store), spec.clone(), zero_is_null);
            let mut out = Vec::new();
            for mode in prvscope_store::summary::DrawMode::ALL {
                for row in 0..view.row_count() {
                    view.summarize_row(row, &edges, mode, &mut out);
                }
                view.summarize_group(0..view.row_count(), &edges, mode, &mut out);
            }
        }
    }
    let ctx = ScopeContext::new(None, &t.store);
    // The automatic choice, else the first few types present (as a user could name them).
    let present = t.store.event_types();
    let mut types = scopes::auto_types(None, &present);
    if types.is_empty() {
        types = present
            .iter()
            .take(3)
            .map(|&ty| scopes::ScopeType::new(ty))
            .collect();
    }
    let query = ScopeQuery {
        types,
        t0: 0,
        t1: end,
    };
    let _ = scopes::analyze(&t.store, &ctx, &query, None);
});
