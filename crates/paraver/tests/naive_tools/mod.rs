//! Paraver's cutter and filter ported line by line from paraver-kernel
//! (`KTraceCutter::execute` and `shiftLeft_TraceTimes_ToStartFromZero`,
//! `KTraceFilter::execute`): the file read in order, one line at a time, as BSC's tools read
//! it. The reference the store's cut and filter are tested against; with `PARAMEDIR` set,
//! itself compared with BSC's tools.

// (Written as paraver-kernel writes it, conditions and all.)
#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::many_single_char_names,
    clippy::nonminimal_bool,
    clippy::collapsible_if
)]

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use prvscope_format::Pcf;
use prvscope_paraver::cut::{CutterOptions, FilterOptions};

#[derive(Default, Clone)]
struct Info {
    last_time: u64,
    last_state_end: u64,
    last_cpu: u64,
    finished: bool,
    without_states: bool,
    opened: Vec<u64>,
    counters_seen: BTreeSet<u64>,
    zeroed: BTreeSet<u64>,
}

fn fields(line: &str) -> Vec<u64> {
    line.split(':')
        .map(|x| x.trim().parse().unwrap_or(0))
        .collect()
}

/// The `.pcf`'s counter types and types without values, as the cutter takes them.
fn types(pcf: Option<&Pcf>) -> (BTreeSet<u64>, BTreeSet<u64>) {
    let (mut hwc, mut not) = (BTreeSet::new(), BTreeSet::new());
    if let Some(p) = pcf {
        for (&ty, info) in &p.event_types {
            if (42_000_000..50_000_000).contains(&ty) {
                hwc.insert(u64::from(ty));
            } else if info.values.is_empty() {
                not.insert(u64::from(ty));
            }
        }
    }
    (hwc, not)
}

/// The header line with another duration (the rest as written: the tests compare records,
/// and the header's other fields separately).
fn with_duration(header: &str, duration: u64) -> String {
    let (date, rest) = header.split_once("):").unwrap();
    let (d, rest) = rest.split_once(':').unwrap();
    let unit = d.trim_start_matches(|c: char| c.is_ascii_digit());
    format!("{date}):{duration}{unit}:{rest}")
}

/// `text` cut as BSC's cutter cuts it (its comment lines left out).
pub fn cutter(text: &str, pcf: Option<&Pcf>, o: &CutterOptions) -> String {
    let (hwc, not_hwc) = types(pcf);
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let duration: u64 = header
        .split_once("):")
        .unwrap()
        .1
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let (t0, t1) = o.range(duration);
    let original = o.original_time;
    let brk = o.break_states && !original;
    let keep = o.keep_events && !brk;
    let ncomm = header
        .rsplit_once(',')
        .filter(|(_, n)| !n.contains(')'))
        .and_then(|(_, n)| n.trim().parse::<usize>().ok())
        .unwrap_or(0);
    let mut head = String::new();
    for _ in 0..ncomm {
        let _ = writeln!(head, "{}", lines.next().unwrap());
    }
    let mut threads: BTreeMap<(u64, u64, u64), Info> = BTreeMap::new();
    let (mut useful, mut init_useful) = (0i64, false);
    let mut first: Option<u64> = None;
    let mut last = 0u64;
    let mut body: Vec<String> = Vec::new();
    let selected = |task: u64| o.keeps_task(task);
    for line in lines {
        let f = fields(line);
        match line.as_bytes().first() {
            Some(b'1') => {
                let (cpu, key, mut b, mut e, v) = (f[1], (f[2], f[3], f[4]), f[5], f[6], f[7]);
                if !selected(key.1) || e <= t0 {
                } else if b < t0 && e > t1 && (o.remove_first_states || o.remove_last_states) {
                    threads
                        .entry(key)
                        .or_insert_with(|| {
                            useful += 1;
                            init_useful = true;
                            Info {
                                last_cpu: cpu,
                                ..Info::default()
                            }
                        })
                        .without_states = true;
                } else if b < t0 && e >= t0 && o.remove_first_states {
                } else if (b < t1 && e > t1 && o.remove_last_states) || (original && b > t1) {
                    if let Some(th) = threads.get_mut(&key) {
                        if !th.finished {
                            useful -= 1;
                            th.finished = true;
                        }
                    }
                } else if !original && b > t1 {
                    break;
                } else {
                    let th = threads.entry(key).or_insert_with(|| {
                        useful += 1;
                        init_useful = true;
                        Info {
                            last_cpu: cpu,
                            ..Info::default()
                        }
                    });
                    th.without_states = false;
                    th.last_state_end = e;
                    if b < t1 && e > t1 && !o.remove_last_states && !brk && keep {
                        th.finished = true;
                    }
                    if brk {
                        b = b.max(t0);
                        e = e.min(t1);
                    }
                    th.last_time = e;
                    first = Some(first.map_or(b, |x| x.min(b)));
                    last = last.max(e);
                    body.push(format!("1:{cpu}:{}:{}:{}:{b}:{e}:{v}", key.0, key.1, key.2));
                }
            }
            Some(b'2') => {
                let (cpu, key, t) = (f[1], (f[2], f[3], f[4]), f[5]);
                if !selected(key.1) {
                    continue;
                }
                let th = threads.get(&key).cloned();
                if let Some(th) = th
                    .as_ref()
                    .filter(|th| th.finished && t != th.last_state_end)
                {
                    if !(!o.remove_last_states && !brk && keep && t <= th.last_state_end) {
                        continue;
                    }
                } else if t > t1 {
                    continue;
                }
                if th
                    .as_ref()
                    .is_some_and(|th| t > th.last_time && t > t1 && !keep)
                {
                    continue;
                }
                if th.is_none() && (t > t1 || o.remove_first_states) {
                    continue;
                }
                let write = t >= t0
                    || th.as_ref().is_some_and(|th| th.last_time >= t0 && keep)
                    || (first.is_some_and(|f| t >= f)
                        && th.as_ref().is_some_and(|th| th.without_states));
                if !write {
                    continue;
                }
                first = Some(first.map_or(t, |x| x.min(t)));
                last = last.max(t);
                let mut out = format!("2:{cpu}:{}:{}:{}:{t}", key.0, key.1, key.2);
                let th = threads.entry(key).or_insert_with(|| {
                    useful += 1;
                    init_useful = true;
                    Info {
                        without_states: true,
                        ..Info::default()
                    }
                });
                for pair in f[6..].chunks(2) {
                    let (ty, mut v) = (pair[0], *pair.get(1).unwrap_or(&0));
                    if !not_hwc.contains(&ty) {
                        let is_hwc = hwc.contains(&ty);
                        if v > 0 {
                            if is_hwc {
                                th.counters_seen.insert(ty);
                            } else {
                                th.opened.push(ty);
                            }
                        } else if !is_hwc {
                            if let Some(p) = th.opened.iter().rposition(|&x| x == ty) {
                                th.opened.remove(p);
                            }
                        }
                    }
                    if hwc.contains(&ty) && th.zeroed.insert(ty) {
                        v = 0;
                    }
                    let _ = write!(out, ":{ty}:{v}");
                }
                body.push(out);
                th.last_time = t;
                th.last_cpu = cpu;
            }
            Some(b'3') => {
                let (t1s, t2s, t3r, t4r) = (f[5], f[6], f[11], f[12]);
                if !selected(f[3]) && !selected(f[9]) {
                    continue;
                }
                if t1s >= t0 && t3r >= t0 {
                    if t1s > t1 && !original {
                        break;
                    }
                    if t2s <= t1 && t4r <= t1 {
                        let ts = [t1s, t2s, t3r, t4r];
                        let lo = *ts.iter().min().unwrap();
                        first = Some(first.map_or(lo, |x| x.min(lo)));
                        last = last.max(*ts.iter().max().unwrap());
                        body.push(line.to_owned());
                    }
                }
            }
            _ => {}
        }
        if init_useful && useful == 0 {
            break;
        }
    }
    let final_time = if last > t1 || o.remove_last_states {
        last
    } else {
        t1
    };
    let mut closing = Vec::new();
    for (key, th) in &threads {
        let mut unique: Vec<u64> = Vec::new();
        for &ty in &th.opened {
            if !unique.contains(&ty) {
                unique.push(ty);
            }
        }
        unique.reverse();
        for set in [unique, th.counters_seen.iter().copied().collect()] {
            if set.is_empty() {
                continue;
            }
            let mut l = format!(
                "2:{}:{}:{}:{}:{final_time}",
                th.last_cpu, key.0, key.1, key.2
            );
            for ty in set {
                let _ = write!(l, ":{ty}:0");
            }
            closing.push(l);
        }
    }
    body.extend(closing);
    let shift = if original { 0 } else { first.unwrap_or(t0) };
    let duration = if original {
        duration
    } else {
        last.saturating_sub(shift)
    };
    let mut out = with_duration(header, duration);
    out.push('\n');
    out.push_str(&head);
    for line in body {
        let mut f: Vec<String> = line.split(':').map(str::to_owned).collect();
        let times: &[usize] = match line.as_bytes().first() {
            Some(b'1') => &[5, 6],
            Some(b'2') => &[5],
            _ => &[5, 6, 11, 12],
        };
        for &i in times {
            f[i] = (f[i].parse::<u64>().unwrap() - shift).to_string();
        }
        out.push_str(&f.join(":"));
        out.push('\n');
    }
    out
}

/// `text` filtered as BSC's filter filters it (comment lines copied, as it copies them).
pub fn filter(text: &str, pcf: Option<&Pcf>, o: &FilterOptions) -> String {
    let mut lines = text.lines();
    let mut out = String::new();
    let _ = writeln!(out, "{}", lines.next().unwrap());
    // The states kept: a `.pcf` state whose name is part of a name given.
    let ids: Option<BTreeSet<u64>> = o.states.as_ref().and_then(|s| {
        (!s.all).then(|| {
            pcf.map(|p| {
                p.states
                    .iter()
                    .filter(|(_, n)| s.names.iter().any(|g| g.contains(n.as_str())))
                    .map(|(&id, _)| id)
                    .collect()
            })
        })?
    });
    for line in lines {
        let f = fields(line);
        match line.as_bytes().first() {
            Some(b'1') => {
                let Some(s) = &o.states else { continue };
                if ids.as_ref().is_some_and(|ids| !ids.contains(&f[7])) {
                    continue;
                }
                if s.min_time == 0 || f[6] - f[5] >= s.min_time {
                    let _ = writeln!(out, "{line}");
                }
            }
            Some(b'2') => {
                let Some(ev) = &o.events else { continue };
                let mut rec = format!("2:{}:{}:{}:{}:{}", f[1], f[2], f[3], f[4], f[5]);
                let mut any = false;
                // The values as written (`N` kept: the filter does not read it).
                let words: Vec<&str> = line.split(':').collect();
                for (pair, w) in f[6..].chunks(2).zip(words[6..].chunks(2)) {
                    // `N` (prvscope's null, which BSC's tools do not read) matches no value.
                    let null = w.get(1).is_some_and(|v| v.trim() == "N");
                    let (ty, v) = (
                        pair[0],
                        if null {
                            u64::MAX
                        } else {
                            *pair.get(1).unwrap_or(&0)
                        },
                    );
                    if ev.keeps(ty, v) {
                        any = true;
                        let _ = write!(rec, ":{ty}:{}", w.get(1).unwrap_or(&"0"));
                    }
                }
                if any {
                    let _ = writeln!(out, "{rec}");
                }
            }
            Some(b'3') => {
                let Some(min) = o.comms else { continue };
                if min > 0 && f[13] < min {
                    continue;
                }
                let _ = writeln!(out, "{line}");
            }
            Some(b'c' | b'C' | b'i' | b'I' | b'#') => {
                let _ = writeln!(out, "{line}");
            }
            _ => {}
        }
    }
    out
}

/// A `.prv`'s records for comparison: the header line, then every state, every event pair
/// (`2:cpu:appl:task:thread:time:type:value`) and every communication, sorted; comment
/// lines left out.
pub fn records(text: &str) -> Vec<String> {
    let mut lines = text.lines();
    let mut out = vec![format!("H {}", lines.next().unwrap_or(""))];
    let mut rest: Vec<String> = Vec::new();
    for l in lines {
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        if l.starts_with('2') {
            let f: Vec<&str> = l.split(':').collect();
            let base = f[..6].join(":");
            for p in f[6..].chunks(2) {
                rest.push(format!("{base}:{}:{}", p[0], p.get(1).unwrap_or(&"")));
            }
        } else {
            rest.push(l.to_owned());
        }
    }
    rest.sort();
    out.extend(rest);
    out
}
