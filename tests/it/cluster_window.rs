//! Analysis > Cluster bursts on EPOCH (2 processes): the scatter of the bursts by cluster,
//! the clusters' table, a cluster selected (outlined on the timeline: exactly its bursts) and
//! its breakdown window (its bursts' time per thread, the scopes they span), a box
//! selected in the scatter, a burst clicked (the timeline centred on it).

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use prvscope_analysis::scopes::ScopeKey;
use prvscope_paraver::cluster::Class;
use prvscope_viewer::app::App;
use prvscope_viewer::breakdown::Tab;
use prvscope_viewer::loader::LoadSource;

use crate::common::shared_traces;
use crate::viewer::harness_with;

/// Waits until the cluster window has computed what it computes (bursts, clustering), then
/// draws a few frames.
fn clustering_done(h: &mut Harness<'static, App>) {
    let ctx = h.ctx.clone();
    let w = h.state_mut().cluster_window().expect("the window opened");
    while w.is_computing() {
        w.poll(&ctx);
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    h.run_steps(3);
}

/// Waits until the breakdown window of `class` is open and computed; its key.
fn cluster_breakdown_computed(h: &mut Harness<'static, App>, class: Class) -> ScopeKey {
    let key = ScopeKey {
        ty: prvscope_paraver::cluster::CLUSTER_EVENT,
        value: class.event_value(),
    };
    while {
        let panel = &h.state().loaded().unwrap().scopes;
        panel
            .breakdowns()
            .get(key)
            .is_none_or(prvscope_viewer::breakdown::BreakdownWindow::is_computing)
    } {
        h.run_steps(1);
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    key
}

#[test]
fn clustered_bursts_are_outlined_on_the_timeline() {
    let _shared = crate::common::shared();
    let Some(root) = shared_traces() else {
        return;
    };
    let path = root.join("pypop_epoch_scaling/epoch_2proc.prv.gz");
    let mut h = harness_with(LoadSource::File(path.clone()), None, (1400.0, 900.0), false);
    h.get_by_label("Analysis").click();
    h.run_steps(2);
    h.get_by_label("Cluster bursts…").click();
    h.run_steps(2);
    let ctx = h.ctx.clone();
    {
        let w = h.state_mut().cluster_window().expect("the window opened");
        while w.is_computing() || w.clustering().is_none() {
            w.poll(&ctx);
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    }
    h.run_steps(3);
    // The same clustering as the command line's.
    let t = crate::common::load(&path);
    let (options, _) = prvscope_paraver::cluster::Options::for_trace(&t);
    let reference = prvscope_paraver::cluster::cluster(&t, &options).unwrap();
    let shown = h
        .state_mut()
        .cluster_window()
        .unwrap()
        .clustering()
        .unwrap()
        .clone();
    assert_eq!(shown.class, reference.class);
    // Cluster 1 selected from the table: the timeline outlines its bursts, and only them.
    h.get_by_label("Cluster 1").click();
    h.run_steps(3);
    let outlined: usize = h
        .state()
        .loaded()
        .unwrap()
        .timeline
        .highlight()
        .expect("an outline")
        .iter()
        .map(Vec::len)
        .sum();
    let members = shown
        .class
        .iter()
        .filter(|&&c| c == Class::Cluster(1))
        .count();
    assert_eq!(outlined, members);
    // ... and opens its breakdown window: the time of its bursts on each thread, and the
    // scopes they span.
    let key = cluster_breakdown_computed(&mut h, Class::Cluster(1));
    h.run_steps(2);
    let panel = &h.state().loaded().unwrap().scopes;
    let w = panel.breakdowns().get(key).unwrap();
    assert_eq!(w.title(), "Breakdown: Cluster 1");
    let b = w.breakdown().expect("the cluster has time");
    let mut per_thread = vec![0u64; t.store.thread_count()];
    for (burst, _) in shown
        .bursts
        .list
        .iter()
        .zip(&shown.class)
        .filter(|x| *x.1 == Class::Cluster(1))
    {
        per_thread[burst.thread as usize] += burst.duration();
    }
    for (row, &time) in per_thread.iter().enumerate() {
        assert_eq!(b.thread_total(row), time, "thread {row}");
    }
    // EPOCH's scopes are its MPI calls, which no burst overlaps: the Scopes tab says so.
    let a = w.analysis().unwrap();
    assert!(
        a.scopes
            .iter()
            .all(|s| s.inclusive == 0 || (70_000_001..=70_000_099).contains(&s.key.ty))
    );
    h.snapshot("cluster_window_epoch_2proc");
    let panel = &mut h.state_mut().loaded_mut().unwrap().scopes;
    panel
        .breakdowns_mut()
        .get_mut(key)
        .unwrap()
        .set_tab(Tab::Scopes);
    h.run_steps(3);
    h.get_by_label("outside every scope");
    assert!(
        h.query_all_by_label_contains("No scope of the types read (MPI Point-to-point")
            .next()
            .is_some()
    );
    // ... and where the bursts end: in the MPI_Sendrecv of particle_bcs.
    h.get_by_label(
        "__particles_MOD_push_particles > __boundary_MOD_particle_bcs > \
         __partlist_MOD_partlist_sendrecv > MPI_Sendrecv",
    );
    // All their time outside the scopes listed (the callers only tell where they end).
    let total: u64 = per_thread.iter().sum();
    h.get_by_label(&format!("{:.2} s", total as f64 / 1e9));
    // A range selected on the timeline (right-drag, beside the docked windows) rings its bursts in
    // the scatter: those the timeline then shows, and only them.
    assert_eq!(
        h.state_mut().cluster_window().unwrap().ringed().len(),
        shown.bursts.list.len()
    );
    let area = h.state().loaded().unwrap().timeline.area();
    let y = area.bottom() - 30.0;
    crate::viewer::drag(
        &mut h,
        egui::pos2(area.left() + 0.53 * area.width(), y),
        egui::pos2(area.left() + 0.62 * area.width(), y),
        egui::PointerButton::Secondary,
    );
    h.run_steps(2);
    let timeline = &h.state().loaded().unwrap().timeline;
    let (a, b) = timeline.measured().expect("a range selected").bounds();
    let w = timeline.window();
    assert!(w.start <= a + 1 && w.end() + 1 >= b, "{w:?} {a} {b}");
    let expected: Vec<usize> = (0..shown.bursts.list.len())
        .filter(|&i| {
            let x = &shown.bursts.list[i];
            x.begin < w.end() && x.end > w.start
        })
        .collect();
    assert!(!expected.is_empty() && expected.len() < shown.bursts.list.len());
    assert_eq!(h.state_mut().cluster_window().unwrap().ringed(), expected);
    // A box over the whole scatter selects every burst that has its features.
    let n = h
        .state_mut()
        .cluster_window()
        .unwrap()
        .select_box((-1e9, 1e9), (-1e9, 1e9));
    let placed = shown.class.iter().filter(|&&c| c != Class::Missing).count();
    assert_eq!(n, placed);
    // A burst clicked: the timeline shows it in the middle third.
    let b = shown.bursts.list[5].clone();
    let ctx = h.ctx.clone();
    h.state_mut().cluster_window().unwrap().go_to_burst(&ctx, 5);
    h.run_steps(2);
    let w = h.state().loaded().unwrap().timeline.window();
    assert_eq!(w.start, b.begin - b.duration());
    assert_eq!(w.span, 3 * b.duration());
    // Clustered again (another epsilon): cluster 1's breakdown window, which showed the
    // old clustering's cluster 1, is closed.
    assert!(panel_has(&h, key));
    h.state_mut().cluster_window().unwrap().options.eps = Some(0.05);
    h.run_steps(1);
    clustering_done(&mut h);
    assert!(!panel_has(&h, key));
}

fn panel_has(h: &Harness<'static, App>, key: ScopeKey) -> bool {
    let panel = &h.state().loaded().unwrap().scopes;
    panel.breakdowns().get(key).is_some()
}

/// A trace with nothing to cluster (ovni's CPU view: no thread states) says why in the window.
#[test]
fn nothing_to_cluster_is_said_in_the_window() {
    let _shared = crate::common::shared();
    let Some(root) = shared_traces() else {
        return;
    };
    let path = root.join("ovni_nanos6-task-types/cpu.prv");
    let mut h = harness_with(LoadSource::File(path), None, (1200.0, 800.0), false);
    let ctx = h.ctx.clone();
    h.state_mut().open_cluster(&ctx);
    clustering_done(&mut h);
    assert!(
        h.query_all_by_label_contains("neither state records nor ovni's thread state events")
            .next()
            .is_some()
    );
}

/// On an OpenMP trace (jacobi, 24 threads) a cluster's breakdown lists the outlined
/// function its bursts run in.
#[test]
fn a_clusters_breakdown_lists_the_scopes_its_bursts_span() {
    let _shared = crate::common::shared();
    let Some(root) = shared_traces() else {
        return;
    };
    let path = root.join("extrae_omp_jacobi24/jacobi-2d-imper_v0.prv");
    let mut h = harness_with(LoadSource::File(path), None, (1400.0, 900.0), false);
    let ctx = h.ctx.clone();
    h.state_mut().open_cluster(&ctx);
    clustering_done(&mut h);
    h.get_by_label("Cluster 1").click();
    let key = cluster_breakdown_computed(&mut h, Class::Cluster(1));
    let panel = &mut h.state_mut().loaded_mut().unwrap().scopes;
    let w = panel.breakdowns_mut().get_mut(key).unwrap();
    w.set_tab(Tab::Scopes);
    let total = w.breakdown().unwrap().total;
    let top = &w.analysis().unwrap().scopes[0];
    assert_eq!(top.name, "kernel_jacobi_2d_imper.omp_fn.0");
    assert!(top.inclusive > 0 && top.inclusive <= total);
    h.run_steps(3);
    // In the table of scopes, and where the bursts end.
    assert_eq!(
        h.query_all_by_label("kernel_jacobi_2d_imper.omp_fn.0")
            .count(),
        2
    );
    h.snapshot("cluster_breakdown_scopes_jacobi24");
}
