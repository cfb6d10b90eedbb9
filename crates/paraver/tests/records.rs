//! A thread's records read a block at a time from the store equal the thread's records
//! built whole and sorted at once (the way they were built before blocks: every state,
//! event and communication record pushed in column order, then one stable sort by time and
//! kind rank), for every thread of real traces and of a random one with overlapping states,
//! records at one time, migrations and messages to oneself, with blocks of every size.

#![allow(clippy::unwrap_used)]

use std::fmt::Write as _;
use std::path::Path;

mod common;

use prvscope_paraver::records::kind::{
    BEGIN, COMM, END, EVENT, LOG, PHY, RECV, RRECV, RSEND, SEND, STATE,
};
use prvscope_paraver::records::{Events, Rec, Select, Source, rank};
use prvscope_store::TraceStore;

/// Thread `row`'s records, built whole (the reference).
fn naive(store: &TraceStore, row: usize) -> Vec<Rec> {
    let sentinel = store.null_policy().sentinel;
    let t = store.thread(row).unwrap();
    let cpu_at = |time: u64| t.cpu_at(time);
    let mut v = Vec::new();
    for i in 0..t.states.len() {
        let (begin, end, value) = (
            t.states.begin.get(i),
            t.states.end.get(i),
            t.states.value.get(i),
        );
        let cpu = cpu_at(begin);
        v.push(Rec {
            time: begin,
            kind: STATE + BEGIN,
            a: value,
            b: 0,
            cpu,
        });
        v.push(Rec {
            time: end,
            kind: STATE + END,
            a: value,
            b: 0,
            cpu,
        });
    }
    for col in &t.events {
        for (time, value) in col.time.iter().zip(col.value.iter()) {
            v.push(Rec {
                time,
                kind: EVENT,
                a: u64::from(col.ty),
                b: if value == sentinel {
                    0
                } else {
                    value.cast_signed()
                },
                cpu: cpu_at(time),
            });
        }
    }
    for (i, c) in store.comms().iter().enumerate() {
        let rec = |time, kind, cpu| Rec {
            time,
            kind,
            a: i as u64,
            b: 0,
            cpu,
        };
        if c.send_row as usize == row {
            v.push(rec(c.lsend, COMM + LOG + SEND, c.send_cpu));
            v.push(rec(c.psend, COMM + PHY + SEND, c.send_cpu));
            v.push(rec(c.lrecv, RRECV + LOG, c.send_cpu));
            v.push(rec(c.precv, RRECV + PHY, c.send_cpu));
        }
        if c.recv_row as usize == row {
            v.push(rec(c.lrecv, COMM + LOG + RECV, c.recv_cpu));
            v.push(rec(c.precv, COMM + PHY + RECV, c.recv_cpu));
            v.push(rec(c.lsend, RSEND + LOG, c.recv_cpu));
            v.push(rec(c.psend, RSEND + PHY, c.recv_cpu));
        }
    }
    v.sort_by_key(|r| (r.time, rank(r.kind)));
    v
}

/// The records of `row` through a cursor of `block` records, released as they are read.
fn blocks(source: &Source<'_>, row: usize, select: &Select, block: usize) -> Vec<Rec> {
    let c = source.cursor(row, select, block);
    let mut out = Vec::new();
    while let Some(r) = c.get(out.len()) {
        out.push(r);
        if out.len() % 97 == 0 {
            c.release(out.len() - 3);
            assert!(c.get(out.len() - 4).is_none(), "released records are gone");
        }
    }
    out
}

/// Every thread of `t`, whole and with selections, against the reference.
fn check(name: &str, t: &prvscope_store::Trace) {
    let source = Source::new(&t.header, &t.store);
    let types = t.store.event_types();
    let some_types: Vec<u32> = types.iter().copied().step_by(2).collect();
    let mut total = 0;
    for row in 0..t.store.thread_count() {
        let all = naive(&t.store, row);
        total += all.len();
        for block in [64, 1000, 1 << 16] {
            assert_eq!(
                blocks(&source, row, &Select::all(), block),
                all,
                "{name}: thread {row}, blocks of {block}"
            );
        }
        let states = Select {
            states: true,
            ..Select::default()
        };
        let only_states: Vec<Rec> = all
            .iter()
            .copied()
            .filter(|r| r.kind & STATE != 0)
            .collect();
        assert_eq!(
            blocks(&source, row, &states, 64),
            only_states,
            "{name}: {row}"
        );
        let picked = Select {
            events: Some(Events::Types(some_types.clone())),
            comms: true,
            ..Select::default()
        };
        let only_picked: Vec<Rec> = all
            .iter()
            .copied()
            .filter(|r| {
                (r.kind == EVENT && some_types.contains(&(r.a as u32)))
                    || r.kind & (COMM | RSEND | RRECV) != 0
            })
            .collect();
        assert_eq!(
            blocks(&source, row, &picked, 64),
            only_picked,
            "{name}: {row}"
        );
    }
    eprintln!("{name}: {total} records");
    assert!(total > 0, "{name}: no records");
}

fn load(path: &Path) -> prvscope_store::Trace {
    prvscope_import::load(path, &prvscope_import::LoadOptions::default(), None).unwrap()
}

#[test]
fn blocks_of_the_shared_traces_are_their_records_sorted_whole() {
    let Some(shared) = common::shared() else {
        return;
    };
    for p in [
        "traces/extrae_mpi_prime16/prime_v0.prv",
        "traces/ovni_tampi-ss-comm/thread.prv",
        "traces/ovni_tampi-ss-comm/cpu.prv",
        "traces/ovni_nanos6-breakdown-write-zero/nanos6-breakdown.prv",
        "traces/profet_lulesh_2appl_comms/lulesh_4+4_with_uncores_sockets1+2.chop_5it.prv",
        "traces/null_mode/threads_null.prv",
    ] {
        check(p, &load(&shared.join(p)));
    }
}

#[test]
fn blocks_of_a_random_trace_are_its_records_sorted_whole() {
    let mut x = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move |m: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % m
    };
    let threads = 4;
    let mut body = String::new();
    for th in 1..=threads {
        // Contiguous states with gaps, some overlapping (ends out of order), some at one
        // time; events of a few types, several at one time; CPUs that change.
        let mut t = 0;
        for _ in 0..400 {
            let begin = t + next(3) * next(5);
            let len = next(4) * next(7);
            let end = if next(10) == 0 {
                begin + len + 50
            } else {
                begin + len
            };
            let cpu = 1 + (th + u64::from(next(20) == 0)) % 4;
            writeln!(body, "1:{cpu}:1:{th}:1:{begin}:{end}:{}", next(4)).unwrap();
            let mut pairs = String::new();
            for _ in 0..next(4) {
                write!(pairs, ":{}:{}", 10 + next(3), next(3)).unwrap();
            }
            if !pairs.is_empty() {
                writeln!(body, "2:{cpu}:1:{th}:1:{begin}{pairs}").unwrap();
            }
            t = begin + len;
        }
    }
    for _ in 0..300 {
        let (from, to) = (1 + next(threads), 1 + next(threads));
        let ls = next(8000);
        let ps = ls + next(3);
        let lr = ps + next(40);
        let pr = lr - next(2).min(lr - ls);
        writeln!(
            body,
            "3:{from}:1:{from}:1:{ls}:{ps}:{to}:1:{to}:1:{lr}:{pr}:{}:{}",
            next(100),
            next(3)
        )
        .unwrap();
    }
    let mut lines: Vec<&str> = body.lines().collect();
    lines.sort_by_key(|l| l.split(':').nth(5).unwrap().parse::<u64>().unwrap());
    let text = format!(
        "#Paraver (01/01/2026 at 00:00):20000_ns:1(4):1:4(1:1,1:1,1:1,1:1)\n{}\n",
        lines.join("\n")
    );
    let t = prvscope_import::load_bytes(
        Path::new("random.prv"),
        text.as_bytes(),
        None,
        &prvscope_import::LoadOptions::default(),
    )
    .unwrap();
    assert_eq!(t.report.skipped(), 0, "{:?}", t.report);
    assert!(
        t.store.threads().iter().any(|th| !th.states.ends_sorted),
        "some thread has overlapping states"
    );
    assert!(t.store.threads().iter().any(|th| th.cpus.len() > 1));
    check("random", &t);
}
