//! The toolbar's "pinned thread's only": the communications drawn are the lines of the thread
//! pinned, every one of its messages in the window and no other; none until a thread is
//! pinned, and all again when switched off.

use egui_kittest::kittest::Queryable;
use prvscope_viewer::loader::LoadSource;

use crate::viewer::harness_with;

#[test]
fn only_the_pinned_threads_messages_are_drawn_when_asked() {
    let _shared = crate::common::shared();
    let path = crate::common::generated_16_threads_of("comm-lines-pinned", 4 << 20);
    let mut h = harness_with(LoadSource::File(path), None, (1400.0, 800.0), false);
    h.run_steps(3);
    // Every thread's messages: lines or, that many, a density.
    let messages = |t: &prvscope_viewer::timeline::Timeline| {
        t.comm_density()
            .map(|d| d.messages)
            .or_else(|| t.comms().map(|c| c.messages))
            .expect("communications are on by default")
    };
    let all = messages(&h.state().loaded().unwrap().timeline);
    assert!(all > 1000, "{all} messages");

    // Asked for, with no thread pinned: nothing is drawn, and the legend says why.
    let t = &mut h.state_mut().loaded_mut().unwrap().timeline;
    t.set_pinned_comms_only(true);
    h.run_steps(2);
    let t = &h.state().loaded().unwrap().timeline;
    let none = t.comms().expect("the communications' part of the frame");
    assert_eq!((none.messages, none.bundles.len()), (0, 0));
    assert!(t.comm_density().is_none());
    assert!(
        h.query_by_label_contains("pin a thread (click it) to draw its messages")
            .is_some()
    );

    // Thread 3 pinned: its messages, each one line's worth, and no other thread's.
    let row = 3;
    let t = &mut h.state_mut().loaded_mut().unwrap().timeline;
    t.pin(row, 0);
    h.run_steps(2);
    let l = h.state().loaded().unwrap();
    let (w, end) = (l.timeline.window(), l.timeline.end_time());
    let t1 = w.start + w.span;
    let naive = l
        .trace
        .store
        .comms()
        .iter()
        .filter(|c| c.send_row as usize == row || c.recv_row as usize == row)
        .filter(|c| c.lsend >= w.start && (c.lsend < t1 || (t1 >= end && c.lsend == t1)))
        .count() as u64;
    let lines = l.timeline.comms().expect("the pinned thread's lines");
    assert!(naive > 0);
    assert_eq!(lines.messages, naive);
    assert!(!lines.bundles.is_empty() && !lines.is_density());
    assert!(
        lines
            .bundles
            .iter()
            .all(|b| b.from_row as usize == row || b.to_row as usize == row),
        "a line of another thread"
    );
    assert!(
        h.query_by_label_contains("(the pinned thread's only)")
            .is_some()
    );

    // Off again: every thread's messages.
    let t = &mut h.state_mut().loaded_mut().unwrap().timeline;
    t.set_pinned_comms_only(false);
    h.run_steps(2);
    assert_eq!(messages(&h.state().loaded().unwrap().timeline), all);
}
