//! A cluster's breakdown (the scope analysis restricted to its bursts) against independent
//! computations on the shared traces: each thread's time in it is the sum of its bursts, and
//! each scope's time in it is the overlap, computed naively, of the scope's intervals with
//! the bursts; the stacks open where the bursts end are those a replay of each thread's
//! events up to each end gives.

use prvscope_analysis::breakdown::Breakdown;
use prvscope_analysis::scopes::{self, ScopeKey, ScopeQuery};
use prvscope_paraver::cluster::{self, Class, Options};

use crate::common;

/// The time two sorted lists of disjoint intervals share, pair by pair.
fn naive_overlap(a: &[(u64, u64)], b: &[(u64, u64)]) -> u64 {
    let mut sum = 0;
    for &(x0, x1) in a {
        for &(y0, y1) in b {
            sum += x1.min(y1).saturating_sub(x0.max(y0));
        }
    }
    sum
}

#[test]
fn a_clusters_breakdown_is_its_bursts_time_per_thread_and_per_scope() {
    let _shared = common::shared();
    let Some(root) = common::shared_traces() else {
        return;
    };
    for rel in [
        "pypop_epoch_scaling/epoch_2proc.prv.gz",
        "extrae_mpi_prime16/prime_v0.prv",
        "extrae_omp_jacobi24/jacobi-2d-imper_v0.prv",
        "profet_lulesh_2appl_comms/lulesh_4+4_with_uncores_sockets1+2.chop_5it.prv",
    ] {
        let t = common::load(&root.join(rel));
        let (options, _) = Options::for_trace(&t);
        let c = cluster::cluster(&t, &options).unwrap();
        let class = c
            .figures
            .iter()
            .map(|f| f.class)
            .find(|k| matches!(k, Class::Cluster(_)))
            .unwrap_or(Class::Noise);
        let mut within = vec![Vec::new(); t.store.thread_count()];
        for (b, _) in c.bursts.list.iter().zip(&c.class).filter(|x| *x.1 == class) {
            within[b.thread as usize].push((b.begin, b.end));
        }
        for w in &mut within {
            w.sort_unstable();
        }
        let ctx = scopes::ScopeContext::new(t.pcf.as_ref(), &t.store);
        let present = t.store.event_types();
        let types = scopes::with_callers(scopes::auto_types(t.pcf.as_ref(), &present), &present);
        let end = t.header.end_time;
        let query = ScopeQuery {
            types: types.clone(),
            t0: 0,
            t1: end,
        };
        let a = scopes::analyze_within(&t.store, &ctx, &query, &within, None).unwrap();
        let key = ScopeKey {
            ty: cluster::CLUSTER_EVENT,
            value: class.event_value(),
        };
        let b = Breakdown::all(&a, key);
        let mut checked = 0;
        for (row, w) in within.iter().enumerate() {
            if !a.counted[row] {
                continue;
            }
            let bursts: u64 = w.iter().map(|&(x, y)| y.min(end) - x.min(end)).sum();
            assert_eq!(b.thread_total(row), bursts, "{rel}: thread {row}");
            checked += u64::from(bursts > 0);
        }
        assert!(
            checked > 0,
            "{rel}: no counted thread has bursts of {class:?}"
        );
        assert!(a.scopes.iter().all(|s| s.entries == 0), "{rel}");
        // Bursts lie outside MPI calls: only a trace with other scopes (OpenMP's outlined
        // functions here) has scopes in them.
        let callers = 70_000_001..=70_000_099;
        let spanned = a
            .scopes
            .iter()
            .filter(|s| s.inclusive > 0 && !callers.contains(&s.key.ty))
            .count();
        assert_eq!(
            spanned > 0,
            rel.contains("omp"),
            "{rel}: {spanned} scopes in the bursts"
        );
        // Where the bursts end: the stacks open there, as the thread's events replayed up to
        // each burst's end give them.
        let mut expected = std::collections::BTreeMap::<Vec<ScopeKey>, u64>::new();
        for (row, w) in within.iter().enumerate() {
            for &(_, e) in w.iter().filter(|_| a.counted[row]) {
                if e < end {
                    *expected
                        .entry(scopes::stack_at(&t.store, &ctx, &types, row, e))
                        .or_insert(0) += 1;
                }
            }
        }
        let mut got = std::collections::BTreeMap::<Vec<ScopeKey>, u64>::new();
        for &(block, n) in &a.ends {
            let path = a.blocks[block]
                .path
                .iter()
                .map(|&i| a.scopes[i].key)
                .collect();
            *got.entry(path).or_insert(0) += n;
        }
        assert!(expected.values().sum::<u64>() > 0, "{rel}");
        assert_eq!(got, expected, "{rel}");
        // The scopes with the most time in the cluster, and one with little.
        let mut keys: Vec<ScopeKey> = a.scopes.iter().take(4).map(|s| s.key).collect();
        keys.extend(
            a.scopes
                .iter()
                .rev()
                .find(|s| s.inclusive > 0)
                .map(|s| s.key),
        );
        assert!(!keys.is_empty(), "{rel}: the cluster spans no scope");
        for key in keys {
            let s = &a.scopes[a.find(key).unwrap()];
            let intervals =
                scopes::scope_intervals(&t.store, &ctx, &types, key, 0, end, None).unwrap();
            for (row, w) in within.iter().enumerate() {
                let expected = if a.counted[row] {
                    naive_overlap(&intervals[row], w)
                } else {
                    0
                };
                assert_eq!(
                    s.inclusive_per_thread[row], expected,
                    "{rel}: {} on thread {row}",
                    s.name
                );
            }
        }
    }
}
