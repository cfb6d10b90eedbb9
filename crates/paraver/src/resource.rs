//! Windows at the levels of the resource model: CPUs, nodes and the system (Paraver's
//! `src/intervalcpu.cpp` and `src/semanticcpufunctions.cpp`).
//!
//! A CPU's records are those of every thread whose records name that CPU, in time order
//! (equal times in thread order, then in each thread's order: Paraver's stable sort of the
//! CPU lists in `VectorBlocks::setFileLoaded`). A CPU interval runs from one of them to the
//! next one that is valid for the thread function or belongs to another thread (passing over
//! communication records); its value is the CPU function of the value the record's thread
//! has there, counted only when the thread's own interval began on this CPU. Nodes add up
//! their CPUs, and the system its nodes, with the window's node and system functions.

use crate::cfg::{Level, WindowCfg};
use crate::compose::apply_compose;
use crate::levels::{LevelFn, aggregate};
use crate::records::kind::{COMM, RRECV, RSEND};
use crate::thread::{ThreadCtx, ThreadFn, intervals_with_begins};
use crate::window::{Engine, Interval, WindowError};

/// A CPU function: what a CPU shows of the value of the thread running on it.
#[derive(Debug, Clone)]
enum CpuFn {
    /// `Active Thd`: the value.
    Value,
    /// `Active Thd Sign`: 1 where not 0.
    Sign,
    /// `Active Thd Val`: the value when listed, else 0.
    Values(Vec<f64>),
    /// `Active Thd Val Sign`: 1 when the value is listed.
    ValuesSign(Vec<f64>),
}

impl CpuFn {
    fn new(name: &str, params: &[Vec<f64>]) -> Option<CpuFn> {
        let list = || params.first().cloned().unwrap_or_default();
        Some(match name {
            "Active Thd" => CpuFn::Value,
            "Active Thd Sign" => CpuFn::Sign,
            "Active Thd Val" => CpuFn::Values(list()),
            "Active Thd Val Sign" => CpuFn::ValuesSign(list()),
            _ => return None,
        })
    }

    fn execute(&self, v: f64) -> f64 {
        match self {
            CpuFn::Value => v,
            CpuFn::Sign => f64::from(u8::from(v != 0.0)),
            CpuFn::Values(list) => {
                if list.contains(&v) {
                    v
                } else {
                    0.0
                }
            }
            CpuFn::ValuesSign(list) => f64::from(u8::from(list.contains(&v))),
        }
    }
}

/// The rows of window `w` at a resource `level` (CPU, node or system), from its thread
/// function computed on every thread (`contexts`, one per thread row).
pub(crate) fn rows(
    engine: &Engine<'_>,
    w: &WindowCfg,
    level: Level,
    f: &ThreadFn,
    contexts: &[ThreadCtx<'_>],
) -> Result<Vec<Vec<Interval>>, WindowError> {
    let unsupported = |what: String| WindowError::Unsupported(w.name.clone(), what);
    let objects = engine.objects;
    let end = engine.records.end_time;
    let n_cpus = objects.cpu_node.len();
    if n_cpus == 0 {
        return Err(unsupported(format!(
            "the {level} level of a trace whose header declares no CPUs"
        )));
    }
    let compose_thread = engine.compose(w, "compose_thread")?;
    let mut threads = Vec::with_capacity(contexts.len());
    for ctx in contexts {
        let (mut iv, begins) = intervals_with_begins(f, ctx);
        let n = iv.len();
        apply_compose(&compose_thread, &mut iv);
        if iv.len() != n {
            return Err(unsupported(format!(
                "compose_thread function `{}` at the {level} level",
                w.function("compose_thread").unwrap_or("As Is")
            )));
        }
        threads.push((iv, begins));
    }
    // Each CPU's records: (thread row, record index), threads in order, then by time.
    let mut lists: Vec<Vec<(usize, usize)>> = vec![Vec::new(); n_cpus];
    for (row, ctx) in contexts.iter().enumerate() {
        for (i, r) in ctx.recs.iter().enumerate() {
            if let Some(list) = (r.cpu as usize)
                .checked_sub(1)
                .and_then(|c| lists.get_mut(c))
            {
                list.push((row, i));
            }
        }
    }
    let time = |&(row, i): &(usize, usize)| contexts[row].recs[i].time;
    for list in &mut lists {
        list.sort_by_key(time); // stable
    }
    let name = w.function("cpu").unwrap_or("Active Thd");
    let params = w.params_of("cpu", name).unwrap_or(&[]);
    let cpu_fn =
        CpuFn::new(name, params).ok_or_else(|| unsupported(format!("cpu function `{name}`")))?;
    let compose_cpu = engine.compose(w, "compose_cpu")?;
    let mut cpu_rows: Vec<Vec<Interval>> = lists
        .iter()
        .enumerate()
        .map(|(k, list)| {
            let mut iv = cpu_intervals(k as u32 + 1, list, &threads, contexts, f, &cpu_fn, end);
            apply_compose(&compose_cpu, &mut iv);
            iv
        })
        .collect();
    if level == Level::Cpu {
        return Ok(cpu_rows);
    }
    let level_fn = |slot: &str| {
        let name = w.function(slot).unwrap_or("Adding");
        let params = w.params_of(slot, name).unwrap_or(&[]);
        LevelFn::new(name, params).ok_or_else(|| unsupported(format!("{slot} function `{name}`")))
    };
    let node_fn = level_fn("node")?;
    let compose_node = engine.compose(w, "compose_node")?;
    let node_rows: Vec<Vec<Interval>> = (0..objects.node_cpus.len())
        .map(|n| {
            let mut iv = aggregate(&node_fn, &cpu_rows[objects.node_cpu_range(n)], end);
            apply_compose(&compose_node, &mut iv);
            iv
        })
        .collect();
    cpu_rows.clear();
    if level == Level::Node {
        return Ok(node_rows);
    }
    let system_fn = level_fn("system")?;
    let compose_system = engine.compose(w, "compose_system")?;
    let mut iv = aggregate(&system_fn, &node_rows, end);
    apply_compose(&compose_system, &mut iv);
    Ok(vec![iv])
}

/// The intervals of CPU `cpu` (1-based) from its records `list`.
fn cpu_intervals(
    cpu: u32,
    list: &[(usize, usize)],
    threads: &[(Vec<Interval>, Vec<Option<usize>>)],
    contexts: &[ThreadCtx<'_>],
    f: &ThreadFn,
    cpu_fn: &CpuFn,
    end: u64,
) -> Vec<Interval> {
    let mut out = Vec::new();
    let terminal = |out: &mut Vec<Interval>, at: u64| {
        out.push(Interval {
            begin: at,
            end: at,
            value: 0.0,
        });
    };
    let Some(&(first_thread, _)) = list.first() else {
        out.push(Interval {
            begin: 0,
            end,
            value: cpu_fn.execute(0.0),
        });
        terminal(&mut out, end);
        return out;
    };
    // Each thread's interval reached so far (the CPU's records come in time order).
    let mut at = vec![0usize; threads.len()];
    // The virtual first record: time 0, the thread of the first real one.
    let (mut b_time, mut b_thread, mut next_from) = (0u64, first_thread, 0usize);
    loop {
        let (iv, begins) = &threads[b_thread];
        let p = &mut at[b_thread];
        while *p + 1 < iv.len() && iv[*p].end <= b_time && iv[*p].begin < end {
            *p += 1;
        }
        // The thread's value counts when its interval began on this CPU.
        let began_here = begins[*p].is_some_and(|i| contexts[b_thread].recs[i].cpu == cpu);
        let value = cpu_fn.execute(if began_here { iv[*p].value } else { 0.0 });
        // The next record that is valid for the thread function, or another thread's
        // (communication records do not end the interval).
        let next = (next_from..list.len()).find(|&j| {
            let (row, i) = list[j];
            let ctx = &contexts[row];
            (ctx.pass(i) && ctx.valid(f, i))
                || (ctx.recs[i].kind & (RSEND | RRECV | COMM) == 0 && row != b_thread)
        });
        let e_time = next.map_or(end, |j| contexts[list[j].0].recs[list[j].1].time);
        // Paraver's init at time 0 skips the intervals that end there.
        if e_time > 0 {
            out.push(Interval {
                begin: b_time,
                end: e_time.max(b_time),
                value,
            });
        }
        let Some(j) = next else {
            break;
        };
        (b_time, b_thread, next_from) = (e_time, list[j].0, j + 1);
    }
    terminal(&mut out, end.max(b_time));
    out
}
