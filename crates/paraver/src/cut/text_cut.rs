//! Paraver's cutter (`KTraceCutter::execute`, then `shiftLeft_TraceTimes_ToStartFromZero`)
//! as a pass over the trace's own text: the file read in order, a line at a time, each line
//! kept, cut or dropped as the cutter decides when it reads it, and written as the cutter
//! writes it (the same line, its pairs in their order, its CPU; only its times shifted, a
//! state's cut at the edges, a counter's first value zeroed), then the 0s that close what is
//! left open. The text is read twice: once for the first and last times written (the shift
//! and the header's duration), once to write; the decisions are the same both times.

use std::collections::{BTreeSet, HashMap};
use std::io::{BufRead, Write};

use prvscope_format::{Header, Pcf};

use super::fields::{head, numbers};
use super::filter::Rules;
use super::options::{CutterOptions, FilterOptions};
use super::stream::{filter_line, flush_full};
use super::text::{header_text, row_ids};
use super::text_pass::{OpenAt, Pre, pass, pass_by_thread, read_head, span_pass};
use super::{Control, WriteError, Written};
use prvscope_store::TextIndex;

/// A hasher for small integer keys (event types, thread ids): one multiply per word.
#[derive(Default, Clone, Copy)]
struct Mul(u64);

impl std::hash::Hasher for Mul {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }
}

type Fast = std::hash::BuildHasherDefault<Mul>;

/// What the cutter does with an event type's values.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    /// A `.pcf` type without values: not tracked.
    Untracked,
    /// A hardware counter (`42000000..50000000` of the `.pcf`).
    Counter,
    /// Any other: a value > 0 opens it, a 0 closes it.
    Other,
}

/// The cutter's record of a thread (`ThreadInfo`).
#[derive(Default, Clone)]
struct Info {
    last_time: u64,
    last_state_end: u64,
    last_cpu: u64,
    finished: bool,
    without_states: bool,
    /// Event types opened (a value > 0) and not closed: per type, how many opens are left
    /// and when the earliest of them was opened. The cutter keeps a list of every open and
    /// takes a close off its type's latest, so that the earliest open left of a type is the
    /// first since its count was last 0; the list's order of first occurrences is that of
    /// these times (kept so, the list would grow with every open never closed).
    opened: HashMap<u64, (u64, u64), Fast>,
    /// Opens so far.
    opens: u64,
    /// Counter types seen with a value > 0 (in the order seen; sorted when written).
    counters_seen: Vec<u64>,
    /// Counter types whose first value was written (as 0).
    zeroed: Vec<u64>,
}

/// The cut's decisions over the lines, in the cutter's order.
#[derive(Clone)]
struct Cut<'a> {
    opts: &'a CutterOptions,
    t0: u64,
    t1: u64,
    original: bool,
    brk: bool,
    keep: bool,
    counters: &'a BTreeSet<u64>,
    untracked: &'a BTreeSet<u64>,
    /// Each event type's class, found once.
    classes: HashMap<u64, Class, Fast>,
    /// The rows kept (`CutterOptions::rows`), by (application, task, thread).
    rows: Option<HashMap<[u64; 3], bool>>,
    threads: HashMap<[u64; 3], Info, Fast>,
    useful: i64,
    init_useful: bool,
    first: Option<u64>,
    last: u64,
    /// The bytes of the cutter's first pass so far (`max_trace_size` is compared with it).
    phase1: u64,
    max_size: u64,
    /// Stop reading where Paraver's cutter stops (the first state or message after the
    /// cut, in the file's order; every thread met finished): Paraver's output, which leaves
    /// out what comes later in an unsorted file. Otherwise such lines are skipped and the
    /// whole file read.
    stop_as_paraver: bool,
    done: bool,
    /// The cut stopped on its `max_trace_size`.
    size_reached: bool,
}

fn push_num(buf: &mut Vec<u8>, v: u64) {
    buf.extend_from_slice(itoa::Buffer::new().format(v).as_bytes());
}

impl Cut<'_> {
    fn selected(&self, key: [u64; 3]) -> bool {
        self.opts.keeps_task(key[1])
            && self
                .rows
                .as_ref()
                .is_none_or(|r| r.get(&key).copied().unwrap_or(false))
    }

    /// The record of thread `key`, made by `info` when it has none yet (a thread's record
    /// is made once, not for every line).
    fn new_thread(&mut self, key: [u64; 3], info: impl FnOnce() -> Info) -> &mut Info {
        let (useful, init) = (&mut self.useful, &mut self.init_useful);
        self.threads.entry(key).or_insert_with(|| {
            *useful += 1;
            *init = true;
            info()
        })
    }

    fn seen(&mut self, lo: u64, hi: u64) {
        self.first = Some(self.first.map_or(lo, |f| f.min(lo)));
        self.last = self.last.max(hi);
    }

    /// Decides on `line` (fields `f`); a kept line is written to `out` with its times less
    /// `shift`, as the cutter writes it.
    #[allow(clippy::too_many_lines)]
    fn line(&mut self, line: &[u8], f: &mut Vec<u64>, shift: u64, out: &mut Vec<u8>) {
        let start = out.len();
        match line.first() {
            Some(b'1') => {
                let h = head(line, 8);
                if h.n < 8 {
                    return;
                }
                let f = &h.v;
                let (cpu, key, mut b, mut e) = (f[1], [f[2], f[3], f[4]], f[5], f[6]);
                let o = self.opts;
                if !self.selected(key) || e <= self.t0 {
                } else if b < self.t0
                    && e > self.t1
                    && (o.remove_first_states || o.remove_last_states)
                {
                    self.new_thread(key, || Info {
                        last_cpu: cpu,
                        ..Info::default()
                    })
                    .without_states = true;
                } else if b < self.t0 && e >= self.t0 && o.remove_first_states {
                } else if (b < self.t1 && e > self.t1 && o.remove_last_states)
                    || (self.original && b > self.t1)
                {
                    if let Some(th) = self.threads.get_mut(&key)
                        && !th.finished
                    {
                        self.useful -= 1;
                        th.finished = true;
                    }
                } else if !self.original && b > self.t1 {
                    self.done = self.stop_as_paraver;
                } else {
                    let (brk, keep, t0, t1) = (self.brk, self.keep, self.t0, self.t1);
                    let th = self.new_thread(key, || Info {
                        last_cpu: cpu,
                        ..Info::default()
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
                    self.seen(b, e);
                    // The line's fields as read, its times cut and shifted.
                    out.extend_from_slice(&line[..h.at[5]]);
                    push_num(out, b - shift);
                    out.push(b':');
                    push_num(out, e - shift);
                    out.push(b':');
                    out.extend_from_slice(h.text(line, 7));
                    out.push(b'\n');
                }
            }
            Some(b'2') => {
                let h = head(line, 6);
                if h.n < 6 {
                    return;
                }
                let (cpu, key, t) = (h.v[1], [h.v[2], h.v[3], h.v[4]], h.v[5]);
                if !self.selected(key) {
                    return;
                }
                let o = self.opts;
                let (t0, t1, brk, keep) = (self.t0, self.t1, self.brk, self.keep);
                let th = self.threads.get(&key);
                if let Some(th) = th.filter(|th| th.finished && t != th.last_state_end) {
                    if o.remove_last_states || brk || !keep || t > th.last_state_end {
                        return;
                    }
                } else if t > t1 {
                    return;
                }
                if th.is_some_and(|th| t > th.last_time && t > t1 && !keep) {
                    return;
                }
                if th.is_none() && (t > t1 || o.remove_first_states) {
                    return;
                }
                let write = t >= t0
                    || th.is_some_and(|th| th.last_time >= t0 && keep)
                    || (self.first.is_some_and(|f| t >= f)
                        && th.is_some_and(|th| th.without_states));
                if !write {
                    return;
                }
                self.seen(t, t);
                // The pairs, read only now.
                let rest = line.get(h.at[6]..).unwrap_or_default();
                if h.at[6] <= line.len() {
                    numbers(rest, f);
                } else {
                    f.clear();
                }
                let mut classes = std::mem::take(&mut self.classes);
                let (counters, untracked) = (self.counters, self.untracked);
                let th = self.new_thread(key, || Info {
                    without_states: true,
                    ..Info::default()
                });
                // What the pairs open and close; whether a counter's first value is here.
                let mut zero = false;
                for pair in f.chunks(2) {
                    let (ty, v) = (pair[0], pair.get(1).copied().unwrap_or(0));
                    let class = *classes.entry(ty).or_insert_with(|| {
                        if untracked.contains(&ty) {
                            Class::Untracked
                        } else if counters.contains(&ty) {
                            Class::Counter
                        } else {
                            Class::Other
                        }
                    });
                    zero |= class == Class::Counter && !th.zeroed.contains(&ty);
                    if class != Class::Untracked {
                        let is_counter = class == Class::Counter;
                        if v > 0 {
                            if is_counter {
                                if !th.counters_seen.contains(&ty) {
                                    th.counters_seen.push(ty);
                                }
                            } else {
                                th.opens += 1;
                                let open = th.opened.entry(ty).or_insert((0, th.opens));
                                if open.0 == 0 {
                                    open.1 = th.opens;
                                }
                                open.0 += 1;
                            }
                        } else if !is_counter && let Some(open) = th.opened.get_mut(&ty) {
                            open.0 = open.0.saturating_sub(1);
                        }
                    }
                }
                out.extend_from_slice(&line[..h.at[5]]);
                push_num(out, t - shift);
                if !zero && f.len().is_multiple_of(2) {
                    // Every pair as read.
                    if !f.is_empty() {
                        out.push(b':');
                        out.extend_from_slice(rest);
                    }
                } else {
                    let mut fields = rest.split(|&c| c == b':');
                    for pair in f.chunks(2) {
                        let ty = pair[0];
                        let ty_text = fields.next().unwrap_or_default();
                        let v_text = fields.next().unwrap_or(b"0");
                        let class = classes.get(&ty).copied().unwrap_or(Class::Other);
                        out.push(b':');
                        out.extend_from_slice(ty_text);
                        out.push(b':');
                        if class == Class::Counter && !th.zeroed.contains(&ty) {
                            th.zeroed.push(ty);
                            out.push(b'0');
                        } else {
                            out.extend_from_slice(v_text);
                        }
                    }
                }
                out.push(b'\n');
                th.last_time = t;
                th.last_cpu = cpu;
                self.classes = classes;
            }
            Some(b'3') => {
                let h = head(line, 15);
                if h.n < 15 {
                    return;
                }
                let f = &h.v;
                let (ts, tr) = ([f[5], f[6]], [f[11], f[12]]);
                let (from, to) = ([f[2], f[3], f[4]], [f[8], f[9], f[10]]);
                if !self.selected(from) && !self.selected(to) {
                    return;
                }
                if ts[0] >= self.t0 && tr[0] >= self.t0 {
                    if ts[0] > self.t1 && !self.original {
                        self.done = self.stop_as_paraver;
                    } else if ts[1] <= self.t1 && tr[1] <= self.t1 {
                        let all = [ts[0], ts[1], tr[0], tr[1]];
                        let (lo, hi) = (
                            all.iter().copied().min().unwrap_or(0),
                            all.iter().copied().max().unwrap_or(0),
                        );
                        self.seen(lo, hi);
                        for k in 0..15 {
                            if k > 0 {
                                out.push(b':');
                            }
                            if matches!(k, 5 | 6 | 11 | 12) {
                                push_num(out, f[k] - shift);
                            } else {
                                out.extend_from_slice(h.text(line, k));
                            }
                        }
                        out.push(b'\n');
                    }
                }
            }
            Some(b'#') => {
                out.extend_from_slice(line);
                out.push(b'\n');
            }
            _ => {}
        }
        // The first pass writes the times as read: its size counts them so.
        if self.max_size > 0 && out.len() > start {
            self.phase1 += phase1_len(&out[start..], shift);
            if self.phase1 >= self.max_size {
                self.done = true;
                self.size_reached = true;
            }
        }
        if self.init_useful && self.useful == 0 && self.stop_as_paraver {
            self.done = true;
        }
    }

    /// The 0s that close each thread's open event types and counters (with the cutter's
    /// comment line before them), at `final_time` less `shift`.
    fn closing(&self, final_time: u64, shift: u64, out: &mut Vec<u8>) {
        let mut comment = false;
        let mut threads: Vec<(&[u64; 3], &Info)> = self.threads.iter().collect();
        threads.sort_unstable_by_key(|t| *t.0);
        for (key, th) in threads {
            // The types still open, in the order of their earliest open left, reversed.
            let mut open: Vec<(u64, u64)> = th
                .opened
                .iter()
                .filter(|(_, o)| o.0 > 0)
                .map(|(&ty, o)| (o.1, ty))
                .collect();
            open.sort_unstable();
            let unique: Vec<u64> = open.iter().rev().map(|&(_, ty)| ty).collect();
            let mut counters = th.counters_seen.clone();
            counters.sort_unstable();
            for set in [unique, counters] {
                if set.is_empty() {
                    continue;
                }
                if !comment {
                    out.extend_from_slice(b"# Appending events with value 0\n");
                    comment = true;
                }
                out.extend_from_slice(b"2:");
                for v in [th.last_cpu, key[0], key[1], key[2], final_time - shift] {
                    push_num(out, v);
                    out.push(b':');
                }
                out.pop();
                for ty in set {
                    out.push(b':');
                    push_num(out, ty);
                    out.extend_from_slice(b":0");
                }
                out.push(b'\n');
            }
        }
    }
}

/// The length of `written` (lines written with their times less `shift`) as the cutter's
/// first pass writes them, its times as read.
fn phase1_len(written: &[u8], shift: u64) -> u64 {
    if shift == 0 {
        return written.len() as u64;
    }
    let digits = |v: u64| itoa::Buffer::new().format(v).len() as u64;
    let mut n = written.len() as u64;
    for line in written.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let times: &[usize] = match line.first() {
            Some(b'1') => &[5, 6],
            Some(b'2') => &[5],
            Some(b'3') => &[5, 6, 11, 12],
            _ => &[],
        };
        for (k, f) in line.split(|&b| b == b':').enumerate() {
            if times.contains(&k) {
                let v: u64 = std::str::from_utf8(f)
                    .ok()
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(0);
                n = n + digits(v + shift) - digits(v);
            }
        }
    }
    n
}

/// The `.pcf`'s counter types (`42000000..50000000`) and its types without values.
fn pcf_types(pcf: Option<&Pcf>) -> (BTreeSet<u64>, BTreeSet<u64>) {
    let (mut counters, mut untracked) = (BTreeSet::new(), BTreeSet::new());
    if let Some(p) = pcf {
        for (&ty, info) in &p.event_types {
            if (42_000_000..50_000_000).contains(&ty) {
                counters.insert(u64::from(ty));
            } else if info.values.is_empty() {
                untracked.insert(u64::from(ty));
            }
        }
    }
    (counters, untracked)
}

/// How a cut reads the text.
#[derive(Clone, Copy, Default)]
pub struct Reading<'a> {
    /// Stop where Paraver's cutter stops (see [`cut_text`]).
    pub stop_as_paraver: bool,
    /// The first and last times written, known before (see [`known_span`](super::known_span)).
    pub known: Option<(u64, u64)>,
    /// Every line decided on in order on one thread, none set aside on its first fields:
    /// slower, the reference the tests hold the pass to.
    pub plain: bool,
    /// The size of the blocks the text is read in (0: 8 MiB).
    pub block: usize,
    /// What each piece of the text holds (the trace's [`TextIndex`], made when it was
    /// read): the pieces of which a pass keeps no line are not read.
    pub index: Option<&'a TextIndex>,
    /// Opens the text at a byte offset, to pass over those pieces without reading them
    /// (otherwise they are read and dropped).
    pub open_at: Option<&'a OpenAt<'a>>,
}

/// Writes the text that `open` gives (a trace's file, decompressed; opened twice) cut as
/// Paraver's cutter cuts it to `out`, the filter `filter` applied to what it writes
/// (`paramedir --cutter --filter`): the header with the cut's duration, the cutter's
/// comment line, the lines kept in the file's order, each as read but for its times, then
/// the 0s that close what is left open. `stop_as_paraver`: stop reading where Paraver's
/// cutter stops (its output exactly; what an unsorted file holds inside the cut after that
/// point is left out), else read the whole text and keep every line inside the cut.
/// `known`: the first and last times the cut writes, when the caller knows them (see
/// [`known_span`](super::known_span)): the text is then read once. `total` is the text's size for the progress.
#[allow(clippy::too_many_arguments)]
pub fn cut_text(
    open: &dyn Fn() -> std::io::Result<Box<dyn BufRead + Send>>,
    header: &Header,
    pcf: Option<&Pcf>,
    opts: &CutterOptions,
    filter: Option<&FilterOptions>,
    (input_name, date): (&str, &str),
    reading: Reading<'_>,
    out: &mut dyn Write,
    control: &Control<'_>,
    total: Option<u64>,
) -> Result<Written, WriteError> {
    let Reading {
        stop_as_paraver,
        known,
        plain,
        block,
        index,
        open_at,
    } = reading;
    let (counters, untracked) = pcf_types(pcf);
    let (t0, t1) = opts.range(header.end_time);
    let rows = opts.rows.as_ref().map(|r| {
        row_ids(header)
            .iter()
            .zip(r)
            .map(|(id, &k)| (id.map(u64::from), k))
            .collect::<HashMap<_, _>>()
    });
    let brk = opts.break_states && !opts.original_time;
    let new_cut = || Cut {
        opts,
        t0,
        t1,
        original: opts.original_time,
        brk,
        keep: opts.keep_events && !brk,
        counters: &counters,
        untracked: &untracked,
        classes: HashMap::default(),
        rows: rows.clone(),
        threads: HashMap::default(),
        useful: 0,
        init_useful: false,
        first: None,
        last: 0,
        phase1: 0,
        max_size: opts.max_trace_size.saturating_mul(1_000_000),
        stop_as_paraver,
        done: false,
        size_reached: false,
    };
    let skip = 1 + header.communicator_lines as usize;
    // The first pass: the times written, and the cutter's first pass's header size.
    let mut first_pass = new_cut();
    // The first pass of Paraver's cutter writes the header with the trace's duration, and
    // when it writes the file in one pass (original times) its comment line.
    let comment_len = |shift: u64| {
        format!("#{date}:CUTTER:ORIGINAL:\"{input_name}\":{shift}:{t0}:{t1}\n").len() as u64
    };
    // (Its header's duration is the cut's length unless the times are kept.)
    let phase1_duration = if opts.original_time {
        header.end_time
    } else {
        t1 - t0
    };
    let head_len = |communicators: &[String]| {
        header_text(header, phase1_duration, communicators).len() as u64
            + if opts.original_time {
                comment_len(0)
            } else {
                0
            }
    };
    let (mut f, mut scratch) = (Vec::new(), Vec::new());
    // (Where the body's lines start, once the head is read.)
    let start = std::cell::Cell::new(0u64);
    let pre = |floor: u64| Pre {
        opts,
        rows: rows.as_ref(),
        t0,
        t1,
        original: opts.original_time,
        keep: opts.keep_events && !brk,
        stop: stop_as_paraver,
        floor,
        all: plain,
        block: if block == 0 { 8 << 20 } else { block },
        index,
        start: start.get(),
        open_at,
    };
    let progress = |base: f32| {
        move |read: u64| {
            if let Some(total) = total.filter(|&t| t > 0) {
                (control.progress)((base + read as f64 as f32 / total as f32 / 2.0).min(1.0));
            }
        }
    };
    // The first and last times written, when known before (`known`), need no first pass:
    // only the head is read.
    if let Some((first, last)) = known {
        first_pass.first = Some(first);
        first_pass.last = last;
    }
    let mut input = open()?;
    let head_lines = read_head(&mut *input, skip)?;
    start.set(head_lines.iter().map(|l| l.len() as u64 + 1).sum());
    let communicators: Vec<String> = head_lines
        .iter()
        .skip(1)
        .map(|l| String::from_utf8_lossy(l.strip_suffix(b"\r").unwrap_or(l)).into_owned())
        .collect();
    if head_lines.len() == skip {
        first_pass.phase1 = head_len(&communicators);
    }
    // A cut read to the end with nothing of its size limited decides on each thread's
    // lines apart from the other threads', and, its states cut at the edges and none
    // removed, writes lines whose first and last times each line tells alone.
    let by_line = !stop_as_paraver && opts.max_trace_size == 0 && !plain;
    let mut spanned = false;
    if known.is_none() && by_line && brk && !opts.remove_first_states && !opts.remove_last_states {
        let span = span_pass(&mut *input, &pre(t0), control, &progress(0.0))?;
        if span.is_none_or(|(first, _)| first >= t0) {
            first_pass.first = span.map(|s| s.0);
            first_pass.last = span.map_or(0, |s| s.1);
            spanned = true;
        } else {
            input = open()?;
            read_head(&mut *input, skip)?;
        }
    }
    if known.is_none() && !spanned {
        // With states cut at the edges, nothing before the cut's start is written but by a
        // message whose times are out of order: the pass is then made again, without
        // setting aside the events before the start.
        for floor in [if brk && !plain { t0 } else { 0 }, 0] {
            let mut cut = new_cut();
            cut.phase1 = first_pass.phase1;
            pass(
                &mut *input,
                &pre(floor),
                control,
                &progress(0.0),
                &mut |line| {
                    scratch.clear();
                    cut.line(line, &mut f, 0, &mut scratch);
                    Ok(cut.done)
                },
            )?;
            first_pass = cut;
            if first_pass.first.is_none_or(|first| first >= floor) {
                break;
            }
            input = open()?;
            read_head(&mut *input, skip)?;
        }
    }
    let final_time = if first_pass.last > t1 || opts.remove_last_states {
        first_pass.last
    } else {
        t1
    };
    let shift = if opts.original_time {
        0
    } else {
        first_pass.first.unwrap_or(t0)
    };
    let duration = if opts.original_time {
        header.end_time
    } else {
        first_pass.last.saturating_sub(shift)
    };
    let rules = filter.map(|fo| (Rules::with_pcf(pcf, fo), fo));
    let mut buf: Vec<u8> = Vec::with_capacity(1 << 20);
    buf.extend_from_slice(header_text(header, duration, &communicators).as_bytes());
    {
        use std::io::Write as _;
        let _ = writeln!(
            buf,
            "#{date}:CUTTER:ORIGINAL:\"{input_name}\":{shift}:{t0}:{t1}"
        );
    }
    let mut bytes = 0u64;
    let mut cut = new_cut();
    cut.phase1 = head_len(&communicators);
    let mut lines = Vec::new();
    let emit = |lines: &[u8], buf: &mut Vec<u8>| {
        if let Some((rules, fo)) = &rules {
            for l in lines.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
                filter_line(l, rules, fo, buf);
            }
        } else {
            buf.extend_from_slice(lines);
        }
    };
    let mut input = open()?;
    read_head(&mut *input, skip)?;
    let mut left_out = 0u64;
    // No event before the first time written is written.
    let floor = first_pass.first.unwrap_or(u64::MAX);
    if by_line && floor >= t0 {
        // Each thread's lines decided by one worker, the workers in parallel.
        let mut workers: Vec<(Cut<'_>, Vec<u64>, Vec<u8>)> = (0..rayon::current_num_threads()
            .clamp(1, 64))
            .map(|_| (new_cut(), Vec::new(), Vec::new()))
            .collect();
        pass_by_thread(
            &mut *input,
            &pre(floor),
            control,
            &progress(0.5),
            &mut workers,
            &|(cut, f, lines), line, text| {
                if rules.is_some() {
                    lines.clear();
                    cut.line(line, f, shift, lines);
                    emit(lines, text);
                } else {
                    cut.line(line, f, shift, text);
                }
            },
            &mut |text| {
                buf.extend_from_slice(text);
                flush_full(&mut buf, out, &mut bytes)
            },
        )?;
        for (w, _, _) in workers {
            cut.threads.extend(w.threads);
        }
    } else {
        // Once the cut stops where Paraver's cutter stops, the rest is read by a cut that
        // does not stop, only to count the records inside the cut that it leaves out.
        let mut rest: Option<Cut<'_>> = None;
        let mut scratch = Vec::new();
        pass(
            &mut *input,
            &pre(floor),
            control,
            &progress(0.5),
            &mut |line| {
                if let Some(rest) = &mut rest {
                    lines.clear();
                    rest.line(line, &mut f, shift, &mut lines);
                    scratch.clear();
                    emit(&lines, &mut scratch);
                    left_out += scratch
                        .split(|&b| b == b'\n')
                        .filter(|l| !l.is_empty() && l[0] != b'#')
                        .count() as u64;
                    return Ok(false);
                }
                if rules.is_some() {
                    lines.clear();
                    cut.line(line, &mut f, shift, &mut lines);
                    emit(&lines, &mut buf);
                } else {
                    // Without a filter the lines go straight to the output.
                    cut.line(line, &mut f, shift, &mut buf);
                }
                flush_full(&mut buf, out, &mut bytes)?;
                if cut.done && !cut.size_reached {
                    let mut on = cut.clone();
                    (on.stop_as_paraver, on.done) = (false, false);
                    rest = Some(on);
                    return Ok(false);
                }
                Ok(cut.done)
            },
        )?;
    }
    lines.clear();
    cut.closing(final_time, shift, &mut lines);
    emit(&lines, &mut buf);
    out.write_all(&buf)?;
    bytes += buf.len() as u64;
    out.flush()?;
    Ok(Written {
        bytes,
        range: (t0, t1),
        shift,
        duration,
        left_out,
    })
}
