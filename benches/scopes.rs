//! Scope analysis (`analysis::scopes`) of the whole `ovni_gen_large_4x16` trace (10.3 M event
//! records, 64 threads) and of a 1/100 window in its middle, with the types chosen
//! automatically (ovni's subsystem and task type). Beside them, the same run measures a
//! plain walk over every value of those types (`iter` over the store's columns), the least
//! any analysis reading them must do.
//!
//! Run with `cargo bench --bench scopes` (needs `../shared/traces`).

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use prvscope_analysis::scopes::{self, ScopeContext, ScopeQuery};
use prvscope_import::{self as trace, LoadOptions};

fn bench(c: &mut Criterion) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/traces/ovni_gen_large_4x16/thread.prv.xz");
    if !path.exists() {
        eprintln!("skipping: {} not found", path.display());
        return;
    }
    let t = trace::load(&path, &LoadOptions::default(), None).expect("loading the ovni trace");
    let store = &t.store;
    let types = scopes::auto_types(t.pcf.as_ref(), &store.event_types());
    assert!(!types.is_empty(), "no scope types chosen");
    let ctx = ScopeContext::new(t.pcf.as_ref(), store);
    let end = t.header.end_time;
    let events: usize = store
        .threads()
        .iter()
        .flat_map(|th| types.iter().filter_map(|s| th.event_type(s.ty)))
        .map(prvscope_store::EventColumn::len)
        .sum();
    eprintln!(
        "{} records, scope types {:?}, {events} scope events",
        store.counts().total(),
        types.iter().map(|s| s.ty).collect::<Vec<_>>()
    );
    let windows = [("whole", 0, end), ("1_100", end / 2, end / 2 + end / 100)];
    let mut g = c.benchmark_group("scopes");
    g.sample_size(20).measurement_time(Duration::from_secs(8));
    for (name, t0, t1) in windows {
        let query = ScopeQuery {
            types: types.clone(),
            t0,
            t1,
        };
        let a = scopes::analyze(store, &ctx, &query, None).expect("not cancelled");
        let total: u64 = a.cells.iter().map(|c| c.ticks).sum();
        assert_eq!(total, (t1 - t0) * a.threads as u64, "{name}: time adds up");
        eprintln!(
            "{name}: {} scopes, {} blocks",
            a.scopes.len(),
            a.blocks.len()
        );
        g.bench_function(name, |b| {
            b.iter(|| scopes::analyze(store, &ctx, &query, None).map(|a| a.scopes.len()));
        });
    }
    g.bench_function("reference_walk_of_the_scope_values", |b| {
        b.iter(|| {
            let mut sum = 0u64;
            for th in store.threads() {
                for s in &types {
                    if let Some(col) = th.event_type(s.ty) {
                        sum = sum.wrapping_add(col.value.iter().fold(0, u64::wrapping_add));
                        sum = sum.wrapping_add(col.time.iter().fold(0, u64::wrapping_add));
                    }
                }
            }
            black_box(sum)
        });
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
