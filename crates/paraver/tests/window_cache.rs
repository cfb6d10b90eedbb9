//! Windows kept in a [`WindowCache`] give the same histograms as windows read from the
//! store: every analyzer of Paraver's analysis cfgs, on every shared trace, over the whole
//! trace and over parts of it (what the viewer's "Follow the timeline" asks), the second
//! time from the kept rows and, where the control window is its own data, from their index
//! by value. And the cache keeps within its budget, least recently used
//! first out.

#![allow(clippy::unwrap_used)]

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use prvscope_paraver::cfg::{Cfg, Level, TimeUnit};
use prvscope_paraver::paramedir::Context;
use prvscope_paraver::window::{Computed, Interval, ValueKind, WindowCache, WindowInfo};

/// The cfgs with analyzers under `dir`, recursively.
fn analyzer_cfgs(dir: &Path, out: &mut Vec<(PathBuf, Cfg)>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            analyzer_cfgs(&p, out);
        } else if p.extension().is_some_and(|x| x == "cfg") {
            let text = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned();
            if let Ok(cfg) = Cfg::parse(&p.display().to_string(), &text)
                && !cfg.analyzers.is_empty()
            {
                out.push((p, cfg));
            }
        }
    }
}

#[test]
fn kept_windows_give_the_histograms_of_the_store_over_any_range() {
    let Some(shared) = common::shared() else {
        return;
    };
    let root = shared.join("paraver_cfgs/paraver");
    let mut cfgs = Vec::new();
    for topic in ["General/analysis", "mpi/analysis", "OpenMP/analysis"] {
        if root.join(topic).is_dir() {
            analyzer_cfgs(&root.join(topic), &mut cfgs);
        }
    }
    assert!(cfgs.len() > 20, "{} cfgs", cfgs.len());
    let (mut compared, mut from_cache, mut indexed) = (0, 0, 0);
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut rnd = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n.max(1)
    };
    for rel in common::REFERENCE_TRACES {
        let trace = prvscope_import::load(
            &shared.join("traces").join(rel),
            &prvscope_import::LoadOptions::default(),
            None,
        )
        .unwrap();
        let end = trace.header.end_time;
        let store = Context::new(&trace);
        let cache = Arc::new(WindowCache::new(1 << 30));
        let kept = Context::with_cache(&trace, Arc::clone(&cache));
        for (path, cfg) in &cfgs {
            for index in 0..cfg.analyzers.len() {
                // The whole trace first (it fills the cache), then parts of it: a middle,
                // a sliver at the start, one at the end, and two as a timeline's pans and
                // zooms leave them (ends anywhere, on an interval's edge or inside).
                let (one, two) = (rnd(end), rnd(end));
                let (at, width) = (rnd(end), rnd(end / 1000 + 2));
                for range in [
                    None,
                    Some((end / 5, end / 5 * 3)),
                    Some((0, end / 97 + 1)),
                    Some((end - end / 89 - 1, end)),
                    Some((one.min(two), one.max(two))),
                    Some((at, (at + width).min(end))),
                ] {
                    let hits = cache.usage().hits;
                    let a = store.analysis(cfg, index, range);
                    let b = kept.analysis(cfg, index, range);
                    let what = format!("{rel}: {} #{index} over {range:?}", path.display());
                    match (a, b) {
                        (Ok(a), Ok(b)) => {
                            assert_eq!(a.histogram.text(), b.histogram.text(), "{what}");
                            assert_eq!(a.control.rows, b.control.rows, "{what}");
                            compared += 1;
                            if range.is_some() && cache.usage().hits > hits {
                                from_cache += 1;
                                indexed += usize::from(b.control.indexed());
                            }
                        }
                        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{what}"),
                        (a, b) => panic!("{what}: {:?} vs {:?}", a.err(), b.err()),
                    }
                }
            }
        }
    }
    eprintln!(
        "{compared} histograms compared, {from_cache} parts read from kept windows, \
         {indexed} of them from their index by value"
    );
    assert!(compared > 200, "{compared} histograms compared");
    // Every part of the trace after the whole was read from the kept windows; those whose
    // control window is its own data (in 2D, with a statistic of integer sums: states, MPI
    // calls) from its index by value (180 of 1650 today).
    assert_eq!(from_cache * 6, compared * 5, "{from_cache} of {compared}");
    assert!(indexed >= 150, "{indexed} of {from_cache} indexed");
}

fn window(name: &str, intervals: usize) -> Arc<Computed> {
    let info = WindowInfo {
        name: name.into(),
        level: Level::Thread,
        units: TimeUnit::Nanoseconds,
        kind: ValueKind::Number,
        code_colour: true,
        function_line: false,
        begin_time: 0,
        end_time: 1,
    };
    Arc::new(Computed::new(
        info,
        vec![
            vec![
                Interval {
                    begin: 0,
                    end: 1,
                    value: 0.0
                };
                intervals
            ];
            1
        ],
    ))
}

#[test]
fn the_cache_keeps_within_its_budget_least_recently_used_out_first() {
    let one = window("a", 1000).bytes();
    let cache = WindowCache::new(one * 2 + one / 2);
    cache.insert("a".into(), window("a", 1000));
    cache.insert("b".into(), window("b", 1000));
    assert!(cache.get("a").is_some());
    // `b` is now the least recently used: it goes when `c` comes.
    cache.insert("c".into(), window("c", 1000));
    assert!(cache.get("b").is_none());
    assert!(cache.get("a").is_some() && cache.get("c").is_some());
    let u = cache.usage();
    assert_eq!((u.windows, u.bytes), (2, one * 2));
    assert_eq!((u.hits, u.misses), (3, 1));
    // A window over the whole budget is not kept.
    cache.insert("big".into(), window("big", 3000));
    assert!(cache.get("big").is_none());
    assert_eq!(cache.usage().windows, 2);
}

#[test]
fn one_walk_gives_paravers_two_walks_histograms_over_any_range() {
    use prvscope_paraver::filter::TypesFound;
    use prvscope_paraver::histogram;
    use prvscope_paraver::paramedir::Options;
    let Some(shared) = common::shared() else {
        return;
    };
    let root = shared.join("paraver_cfgs/paraver");
    let mut cfgs = Vec::new();
    for topic in ["General/analysis", "mpi/analysis", "OpenMP/analysis"] {
        if root.join(topic).is_dir() {
            analyzer_cfgs(&root.join(topic), &mut cfgs);
        }
    }
    let mut compared = 0;
    for rel in common::REFERENCE_TRACES {
        let trace = prvscope_import::load(
            &shared.join("traces").join(rel),
            &prvscope_import::LoadOptions::default(),
            None,
        )
        .unwrap();
        let end = trace.header.end_time;
        let ctx = Context::new(&trace);
        let engine = ctx.engine();
        for (path, cfg) in &cfgs {
            for a in &cfg.analyzers {
                // Edges of every kind: the whole trace, a middle, slivers at both ends, an
                // empty range.
                for window in [
                    None,
                    Some((end / 5, end / 5 * 3)),
                    Some((0, end / 97 + 1)),
                    Some((end - end / 89 - 1, end)),
                    Some((end / 2, end / 2)),
                ] {
                    let run = |two_walks| {
                        let options = Options {
                            window,
                            two_walks,
                            ..Options::default()
                        };
                        histogram::run(&engine, cfg, a, &options, &mut TypesFound::default())
                            .map(|h| h.text())
                    };
                    let what = format!("{rel}: {} over {window:?}", path.display());
                    match (run(false), run(true)) {
                        (Ok(one), Ok(two)) => {
                            assert_eq!(one, two, "{what}");
                            compared += 1;
                        }
                        (Err(a), Err(b)) => assert_eq!(a, b, "{what}"),
                        (a, b) => panic!("{what}: {:?} vs {:?}", a.err(), b.err()),
                    }
                }
            }
        }
    }
    assert!(compared > 1000, "{compared} histograms compared");
}
