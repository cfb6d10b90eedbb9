//! CPU-burst clustering against independent computations: the bursts of each thread add up
//! to the useful time and useful instructions paramedir computes with pypop's cfgs; the
//! grid DBSCAN gives the naive DBSCAN's labels on the real traces' points; a clustered trace
//! written out reads back with every original record and one cluster event per burst edge.

#![allow(clippy::unwrap_used)]

mod common;

use std::collections::HashMap;
use std::path::Path;

use prvscope_paraver::cluster::{self, dbscan};
use prvscope_paraver::pop::INSTRUCTIONS;

/// (reference folder, trace under `traces/`).
const CASES: [(&str, &str); 6] = [
    ("extrae_mpi_prime16", "extrae_mpi_prime16/prime_v0.prv"),
    (
        "extrae_omp_jacobi24",
        "extrae_omp_jacobi24/jacobi-2d-imper_v0.prv",
    ),
    (
        "profet_lulesh_2appl_comms",
        "profet_lulesh_2appl_comms/lulesh_4+4_with_uncores_sockets1+2.chop_5it.prv",
    ),
    (
        "pypop_imagemagick_omp4",
        "pypop_imagemagick_omp4/omp4.prv.gz",
    ),
    ("epoch_1proc", "pypop_epoch_scaling/epoch_1proc.prv.gz"),
    ("epoch_2proc", "pypop_epoch_scaling/epoch_2proc.prv.gz"),
];

/// A paramedir histogram's per-thread totals, by thread name (`1.2.1`).
fn per_thread(path: &Path) -> HashMap<String, f64> {
    common::gunzip(path)
        .lines()
        .filter_map(|l| l.strip_prefix("THREAD "))
        .map(|l| {
            let mut f = l.split('\t');
            let name = f.next().unwrap().trim().to_owned();
            (name, f.filter_map(|v| v.trim().parse::<f64>().ok()).sum())
        })
        .collect()
}

fn names(t: &prvscope_store::Trace) -> Vec<String> {
    prvscope_paraver::cut::row_ids(&t.header)
        .iter()
        .map(|[a, k, h]| format!("{a}.{k}.{h}"))
        .collect()
}

#[test]
fn bursts_add_up_to_paramedirs_useful_time_and_instructions() {
    let Some(shared) = common::shared() else {
        return;
    };
    for (reference, rel) in CASES {
        let t = common::load(&shared.join("traces").join(rel));
        let b = cluster::bursts(&t, &[INSTRUCTIONS], 0).unwrap();
        let names = names(&t);
        let mut time = vec![0u64; names.len()];
        let mut instructions = vec![0f64; names.len()];
        for burst in &b.list {
            assert!(burst.begin < burst.end, "{rel}: an empty burst");
            time[burst.thread as usize] += burst.duration();
            if let Some(&i) = burst.counters.first() {
                instructions[burst.thread as usize] += i;
            }
        }
        // Bursts of a thread are in time order and do not touch (they would be one).
        for w in b.list.windows(2) {
            if w[0].thread == w[1].thread {
                assert!(w[0].end < w[1].begin, "{rel}: bursts touch or overlap");
            }
        }
        let dir = shared.join("reference/paramedir").join(reference);
        let useful = per_thread(&dir.join("pypop__total_useful_computation.txt.gz"));
        assert!(!useful.is_empty(), "{rel}");
        let ns = b.ns_per_tick;
        for (k, name) in names.iter().enumerate() {
            let theirs = useful.get(name).copied().unwrap_or(0.0);
            assert!(
                (time[k] as f64 * ns - theirs).abs() < 0.5,
                "{rel}: thread {name}: {} ns of bursts against paramedir's {theirs} ns of \
                 useful computation",
                time[k] as f64 * ns
            );
        }
        if b.counters.contains(&INSTRUCTIONS) {
            let useful = per_thread(&dir.join("pypop__useful_instructions.txt.gz"));
            for (k, name) in names.iter().enumerate() {
                let theirs = useful.get(name).copied().unwrap_or(0.0);
                assert!(
                    (instructions[k] - theirs).abs() <= 0.5 + theirs.abs() * 1e-12,
                    "{rel}: thread {name}: {} instructions in bursts against paramedir's \
                     {theirs} useful instructions",
                    instructions[k]
                );
            }
        }
    }
}

#[test]
fn the_grid_dbscan_gives_the_naive_labels_on_real_bursts() {
    let Some(shared) = common::shared() else {
        return;
    };
    let mut compared = 0;
    for (_, rel) in CASES {
        let t = common::load(&shared.join("traces").join(rel));
        let (options, _) = cluster::Options::for_trace(&t);
        let b = cluster::bursts(&t, &[INSTRUCTIONS, prvscope_paraver::pop::CYCLES], 0).unwrap();
        let p = cluster::points(&b, &options.features);
        // The naive reference is quadratic: the first 3000 points.
        let n = p.kept.len().min(3000);
        let coords = &p.coords[..n * p.dims];
        for (eps, min_points) in [(0.03, 10), (0.01, 4), (0.1, 20)] {
            assert_eq!(
                dbscan::dbscan(coords, p.dims, eps, min_points),
                dbscan::naive(coords, p.dims, eps, min_points),
                "{rel}: eps {eps}, {min_points} points"
            );
            compared += n;
        }
    }
    assert!(compared > 10_000, "{compared} points compared");
}

#[test]
fn a_clustered_trace_reads_back_with_its_cluster_events() {
    let Some(shared) = common::shared() else {
        return;
    };
    let input = shared.join("traces/pypop_epoch_scaling/epoch_2proc.prv.gz");
    let t = common::load(&input);
    let (options, note) = cluster::Options::for_trace(&t);
    assert!(note.is_none(), "EPOCH has instructions and cycles");
    let c = cluster::cluster(&t, &options).unwrap();
    assert!(c.clusters() >= 1, "{:?}", c.figures);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cluster-write");
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("epoch_2proc.clustered.prv");
    let w = cluster::write::write_clustered(&input, &t, &c, &out).unwrap();
    assert_eq!(w.events, 2 * c.bursts.list.len() as u64);
    let back = common::load(&out);
    assert_eq!(back.report.skipped_lines(), 0);
    assert_eq!(back.store.counts().states, t.store.counts().states);
    assert_eq!(back.store.counts().comms, t.store.counts().comms);
    assert_eq!(
        back.store.counts().events,
        t.store.counts().events + w.events
    );
    // Each burst's start carries its class, its end 0.
    for (b, class) in c.bursts.list.iter().zip(&c.class) {
        let th = &back.store.threads()[b.thread as usize];
        let col = th
            .events
            .iter()
            .find(|e| e.ty == cluster::CLUSTER_EVENT)
            .expect("cluster events");
        let at = |time: u64| -> Vec<u64> {
            col.time
                .iter()
                .zip(col.value.iter())
                .filter(|&(t, _)| t == time)
                .map(|(_, v)| v)
                .collect()
        };
        assert!(at(b.begin).contains(&class.event_value()), "{b:?}");
        assert!(at(b.end).contains(&0), "{b:?}");
    }
    let pcf = back.pcf.as_ref().expect("the .pcf written");
    let labels = &pcf.event_types[&cluster::CLUSTER_EVENT];
    assert_eq!(labels.values.get(&5).map(String::as_str), Some("Noise"));
    assert_eq!(labels.values.get(&6).map(String::as_str), Some("Cluster 1"));
}

/// ovni traces (thread states as events): the bursts equal a naive walk over the trace's
/// text, line by line (each thread's events in file order, every event of a time applied
/// before the state after it is judged), with the same definition: `Running`, and every
/// runtime subsystem at 0 or at a task body. Counters: the values written after a burst's
/// start and up to its end.
#[test]
fn ovni_bursts_equal_a_naive_walk_of_the_text() {
    let Some(shared) = common::shared() else {
        return;
    };
    for rel in [
        "ovni_nanos6-task-types/thread.prv",
        "ovni_nosv-hwc/thread.prv",
        "ovni_tampi-ss-comm/thread.prv",
    ] {
        let path = shared.join("traces").join(rel);
        let t = common::load(&path);
        let signals = cluster::ovni::signals(t.pcf.as_ref().unwrap()).expect("ovni signals");
        let ipc = cluster::ipc_types(&t);
        let b = cluster::bursts(&t, &[ipc.0], 0).unwrap();
        assert!(!b.list.is_empty(), "{rel}");
        // The naive walk: thread (appl, task, thread) -> its events in file order.
        let ids = prvscope_paraver::cut::row_ids(&t.header);
        let mut events: Vec<Vec<(u64, u32, u64)>> = vec![Vec::new(); ids.len()];
        for line in common::text_of(&path).lines().skip(1) {
            let f: Vec<&str> = line.split(':').collect();
            if f[0] != "2" {
                continue;
            }
            let id = [f[2], f[3], f[4]].map(|x| x.parse::<u32>().unwrap());
            let row = ids.iter().position(|r| *r == id).unwrap();
            let time: u64 = f[5].parse().unwrap();
            for pair in f[6..].chunks(2) {
                events[row].push((time, pair[0].parse().unwrap(), pair[1].parse().unwrap()));
            }
        }
        let mut expect: Vec<(u32, u64, u64, f64)> = Vec::new();
        for (row, ev) in events.iter().enumerate() {
            let mut ev = ev.clone();
            ev.sort_by_key(|e| e.0); // stable: file order within a time
            let mut state = 0u64;
            let mut subs = vec![0u64; signals.subsystems.len()];
            let computing = |state: u64, subs: &[u64]| {
                state == signals.state.1
                    && signals
                        .subsystems
                        .iter()
                        .zip(subs)
                        .all(|((_, bodies), v)| *v == 0 || bodies.contains(v))
            };
            let mut open: Option<u64> = None;
            let last = ev.iter().map(|e| e.0).max().unwrap_or(0);
            let mut k = 0;
            while k < ev.len() {
                let time = ev[k].0;
                while k < ev.len() && ev[k].0 == time {
                    let (_, ty, v) = ev[k];
                    if ty == signals.state.0 {
                        state = v;
                    }
                    if let Some(i) = signals.subsystems.iter().position(|s| s.0 == ty) {
                        subs[i] = v;
                    }
                    k += 1;
                }
                match (open, computing(state, &subs)) {
                    (None, true) => open = Some(time),
                    (Some(b0), false) => {
                        if time > b0 {
                            expect.push((row as u32, b0, time, 0.0));
                        }
                        open = None;
                    }
                    _ => {}
                }
            }
            if let Some(b0) = open
                && last > b0
            {
                expect.push((row as u32, b0, last, 0.0));
            }
        }
        for e in &mut expect {
            e.3 = events[e.0 as usize]
                .iter()
                .filter(|&&(tm, ty, _)| ty == ipc.0 && tm > e.1 && tm <= e.2)
                .map(|&(_, _, v)| v as f64)
                .sum();
        }
        let got: Vec<(u32, u64, u64, f64)> = b
            .list
            .iter()
            .map(|x| {
                (
                    x.thread,
                    x.begin,
                    x.end,
                    x.counters.first().copied().unwrap_or(0.0),
                )
            })
            .collect();
        assert_eq!(got, expect, "{rel}");
    }
}

/// A part of a trace (`--from`, `--to`) gives exactly the whole trace's bursts that lie
/// inside it, with the same counters; those crossing its edges are left out and counted.
#[test]
fn a_parts_bursts_are_the_whole_traces_bursts_inside_it() {
    let Some(shared) = common::shared() else {
        return;
    };
    for (rel, parts) in [
        ("pypop_epoch_scaling/epoch_2proc.prv.gz", [3, 7]),
        ("extrae_mpi_prime16/prime_v0.prv", [2, 5]),
        (
            "profet_lulesh_2appl_comms/lulesh_4+4_with_uncores_sockets1+2.chop_5it.prv",
            [4, 6],
        ),
    ] {
        let path = shared.join("traces").join(rel);
        let whole = common::load(&path);
        let end = whole.header.end_time;
        let (from, to) = (end / 10 * parts[0], end / 10 * parts[1]);
        let options = prvscope_import::LoadOptions {
            subset: prvscope_import::Subset {
                from: Some(from),
                to: Some(to),
                threads: None,
            },
            ..prvscope_import::LoadOptions::default()
        };
        let part = prvscope_import::load(&path, &options, None).unwrap();
        let counters = [INSTRUCTIONS, 42_000_059];
        let all = cluster::bursts(&whole, &counters, 0).unwrap();
        let inside = cluster::bursts(&part, &counters, 0).unwrap();
        let key = |b: &cluster::Burst| (b.thread, b.begin, b.end, format!("{:?}", b.counters));
        let expected: Vec<_> = all
            .list
            .iter()
            .filter(|b| b.begin > from && b.end < to)
            .map(key)
            .collect();
        let got: Vec<_> = inside.list.iter().map(key).collect();
        assert!(!got.is_empty(), "{rel}");
        assert_eq!(got, expected, "{rel}");
        assert!(inside.cut.0 > 0, "{rel}: no burst crosses the edges?");
        assert!(
            inside
                .cut_note()
                .unwrap()
                .contains("crossing the loaded part's edges")
        );
        assert_eq!(all.cut, (0, 0));
    }
}

/// The default clustering (radius from the bursts, refined) on every shared EPOCH run
/// clusters at least 80% of its bursts; it keeps every cluster that DBSCAN finds at its
/// radius, whole and apart from the others (the refinement only adds noise bursts to them
/// or makes new clusters of noise); and each thread's bursts, clustered or noise, with the
/// shorter ones left out, are the thread's useful time as paramedir computes it.
#[test]
fn default_clustering_clusters_most_bursts_of_every_epoch_run() {
    let Some(shared) = common::shared() else {
        return;
    };
    let runs: Vec<_> = std::fs::read_dir(shared.join("traces/pypop_epoch_scaling"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".prv.gz"))
        .collect();
    assert!(runs.len() >= 3, "{runs:?}");
    for path in runs {
        let t = common::load(&path);
        let (options, _) = cluster::Options::for_trace(&t);
        assert_eq!(options.eps, None, "the radius is chosen from the bursts");
        let c = cluster::cluster(&t, &options).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let clustered = c
            .class
            .iter()
            .filter(|k| matches!(k, cluster::Class::Cluster(_)))
            .count();
        let share = clustered as f64 / c.class.len() as f64;
        assert!(
            share >= 0.8,
            "{name}: {clustered} of {} bursts clustered ({:.1}%), eps {}",
            c.class.len(),
            share * 100.0,
            c.eps
        );
        assert!(c.eps >= cluster::DEFAULT_EPS);
        // Every cluster of DBSCAN at the chosen radius is one cluster of the result, and
        // two of them never one.
        let p = cluster::points(&c.bursts, &options.features);
        let plain = dbscan::dbscan(&p.coords, p.dims, c.eps, options.min_points);
        let mut of: HashMap<u32, cluster::Class> = HashMap::new();
        for (k, &l) in plain.iter().enumerate() {
            if l == dbscan::NOISE {
                continue;
            }
            let class = c.class[p.kept[k]];
            assert!(matches!(class, cluster::Class::Cluster(_)), "{name}");
            assert_eq!(*of.entry(l).or_insert(class), class, "{name}: split");
        }
        let mut classes: Vec<_> = of.values().collect();
        classes.sort();
        classes.dedup();
        assert_eq!(classes.len(), of.len(), "{name}: two clusters merged");
        // The refinement's bursts are counted where they joined.
        let joined: u64 = c.figures.iter().map(|f| f.joined).sum();
        let found_later = c
            .figures
            .iter()
            .filter(|f| f.found_at.is_some_and(|r| r > c.eps))
            .map(|f| f.bursts)
            .sum::<u64>();
        let noise_before = plain.iter().filter(|&&l| l == dbscan::NOISE).count() as u64;
        let noise_after = c.figures[0].bursts;
        assert_eq!(c.figures[0].class, cluster::Class::Noise);
        assert_eq!(noise_before - noise_after, joined + found_later, "{name}");

        // Per thread: the bursts of every class and the shorter ones left out are the
        // useful time, where paramedir's reference is stored.
        let reference = name.trim_end_matches(".prv.gz");
        let file = shared
            .join("reference/paramedir")
            .join(reference)
            .join("pypop__total_useful_computation.txt.gz");
        if !file.exists() {
            continue;
        }
        let useful = per_thread(&file);
        let all = cluster::bursts(&t, &[], 0).unwrap();
        let names = names(&t);
        let mut time = vec![0u64; names.len()];
        for b in &c.bursts.list {
            time[b.thread as usize] += b.duration();
        }
        for b in all
            .list
            .iter()
            .filter(|b| b.duration() < options.min_duration)
        {
            time[b.thread as usize] += b.duration();
        }
        for (k, name) in names.iter().enumerate() {
            let theirs = useful[name];
            assert!(
                (time[k] as f64 * c.bursts.ns_per_tick - theirs).abs() < 0.5,
                "{reference} {name}: {} ns against paramedir's {theirs}",
                time[k]
            );
        }
    }
}
