//! Records as `.prv` text, and the merge of the threads' lines in time order.
//!
//! Each thread writes its lines for a block of time into its own buffer (in parallel), with
//! the time of each line; the block's lines of all threads and its communications are then
//! merged by time into the output. Only one block of the output is held at a time.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use prvscope_format::Header;
use prvscope_store::Comm;

/// (application, task, thread), 1-based, of each row.
pub fn row_ids(header: &Header) -> Vec<[u32; 3]> {
    let mut out = Vec::with_capacity(header.thread_count());
    for (a, app) in (1u32..).zip(&header.applications) {
        for (t, task) in (1u32..).zip(&app.tasks) {
            for th in 1..=task.threads {
                out.push([a, t, th]);
            }
        }
    }
    out
}

/// The header line as Paraver's tools write it (`dumpTraceHeader`) with `duration`, and the
/// communicator lines after it.
pub fn header_text(header: &Header, duration: u64, communicators: &[String]) -> String {
    use std::fmt::Write as _;
    let mut s = format!("#Paraver ({}):{duration}", header.date);
    match header.time_unit {
        prvscope_format::TimeUnit::Microseconds => {}
        u => {
            let _ = write!(s, "_{}", u.as_str());
        }
    }
    s.push(':');
    if header.node_cpus.is_empty() {
        s.push('0');
    } else {
        let cpus: Vec<String> = header.node_cpus.iter().map(u32::to_string).collect();
        let _ = write!(s, "{}({})", header.node_cpus.len(), cpus.join(","));
    }
    let _ = write!(s, ":{}:", header.applications.len());
    let nodes = !header.node_cpus.is_empty();
    let apps: Vec<String> = header
        .applications
        .iter()
        .map(|app| {
            let tasks: Vec<String> = app
                .tasks
                .iter()
                .map(|t| format!("{}:{}", t.threads, if nodes { t.node } else { 0 }))
                .collect();
            format!("{}({})", app.tasks.len(), tasks.join(","))
        })
        .collect();
    s.push_str(&apps.join(","));
    if !communicators.is_empty() {
        let _ = write!(s, ",{}", communicators.len());
    }
    s.push('\n');
    for c in communicators {
        s.push_str(c);
        s.push('\n');
    }
    s
}

/// Writes numbers and fields of a line into a buffer.
pub struct Line<'a> {
    pub buf: &'a mut Vec<u8>,
    /// The value written as `N`.
    pub sentinel: u64,
}

impl Line<'_> {
    pub fn num(&mut self, v: u64) -> &mut Self {
        self.buf.push(b':');
        let mut b = itoa::Buffer::new();
        self.buf.extend_from_slice(b.format(v).as_bytes());
        self
    }

    pub fn value(&mut self, v: u64) -> &mut Self {
        if v == self.sentinel {
            self.buf.extend_from_slice(b":N");
            self
        } else {
            self.num(v)
        }
    }

    pub fn start(&mut self, kind: u8, cpu: u32, ids: [u32; 3]) -> &mut Self {
        self.buf.push(kind);
        self.num(u64::from(cpu));
        for id in ids {
            self.num(u64::from(id));
        }
        self
    }

    pub fn end(&mut self) {
        self.buf.push(b'\n');
    }
}

/// One thread's lines of a block: the text, and each line's time and end offset (`ends`).
#[derive(Default)]
pub struct Lines {
    pub text: Vec<u8>,
    pub ends: Vec<(u64, u32)>,
    /// `:cpu:appl:task:thread` of the thread's last line, and its CPU (a thread rarely
    /// changes CPU: written once, copied after).
    prefix: Vec<u8>,
    prefix_cpu: Option<u32>,
    /// The bytes the cutter's lines take in Paraver's first pass (times not yet shifted;
    /// before any filter): what `max_trace_size` is compared with.
    pub phase1: u64,
}

/// Decimal digits of `v`.
pub fn digits(v: u64) -> u64 {
    u64::from(v.checked_ilog10().unwrap_or(0)) + 1
}

/// The length of a line `kind:f0:f1:...` and its newline.
pub fn line_len(fields: impl IntoIterator<Item = u64>) -> u64 {
    1 + fields.into_iter().map(|f| 1 + digits(f)).sum::<u64>() + 1
}

impl Lines {
    pub fn clear(&mut self) {
        self.phase1 = 0;
        self.text.clear();
        self.ends.clear();
    }

    /// Starts a line of `kind` (`b'1'`, `b'2'`) of the thread `ids` on `cpu`.
    pub fn start(&mut self, kind: u8, cpu: u32, ids: [u32; 3]) {
        if self.prefix_cpu != Some(cpu) {
            self.prefix.clear();
            let mut l = Line {
                buf: &mut self.prefix,
                sentinel: u64::MAX,
            };
            l.num(u64::from(cpu));
            for id in ids {
                l.num(u64::from(id));
            }
            self.prefix_cpu = Some(cpu);
        }
        self.text.push(kind);
        self.text.extend_from_slice(&self.prefix);
    }

    /// Marks the end of a line of time `time` just written.
    pub fn close(&mut self, time: u64) {
        self.ends.push((time, self.text.len() as u32));
    }
}

/// A communication line, times shifted by `shift`.
pub fn comm_line(buf: &mut Vec<u8>, c: &Comm, ids: &[[u32; 3]], shift: u64) {
    let mut l = Line {
        buf,
        sentinel: u64::MAX,
    };
    let id = |r: u32| ids.get(r as usize).copied().unwrap_or([0, 0, 0]);
    l.start(b'3', c.send_cpu, id(c.send_row));
    l.num(c.lsend - shift).num(c.psend - shift);
    l.num(u64::from(c.recv_cpu));
    for x in id(c.recv_row) {
        l.num(u64::from(x));
    }
    l.num(c.lrecv - shift)
        .num(c.precv - shift)
        .num(c.size)
        .num(c.tag);
    l.end();
}

/// Merges the threads' lines (and the communications' lines, after the threads' at equal
/// times) of one block onto `out`, by time; equal times in row order.
pub fn merge(threads: &[Lines], comms: &Lines, out: &mut Vec<u8>) -> u64 {
    let mut heap = BinaryHeap::new();
    let all: Vec<&Lines> = threads.iter().chain(std::iter::once(comms)).collect();
    for (k, l) in all.iter().enumerate() {
        if let Some(&(t, _)) = l.ends.first() {
            heap.push(Reverse((t, k, 0usize)));
        }
    }
    let mut written = 0u64;
    while let Some(&Reverse((_, k, i))) = heap.peek() {
        let l = all[k];
        let start = if i == 0 { 0 } else { l.ends[i - 1].1 as usize };
        // Take the run of this source's lines that comes before every other source's next:
        // the smallest of the others is one of the root's children.
        let rest = heap.as_slice();
        let limit = rest[1..rest.len().min(3)]
            .iter()
            .map(|Reverse((t, k2, _))| (*t, *k2))
            .min();
        let mut j = i + 1;
        while j < l.ends.len() && limit.is_none_or(|(t, k2)| (l.ends[j].0, k) < (t, k2)) {
            j += 1;
        }
        let end = l.ends[j - 1].1 as usize;
        out.extend_from_slice(&l.text[start..end]);
        written += (end - start) as u64;
        if j < l.ends.len() {
            if let Some(mut top) = heap.peek_mut() {
                *top = Reverse((l.ends[j].0, k, j));
            }
        } else {
            heap.pop();
        }
    }
    written
}
